import { Schema, type InferSchemaType } from 'mongoose';

export const CODE_STATUSES = ['active', 'pending_review', 'rejected'] as const;
export type CodeStatus = (typeof CODE_STATUSES)[number];

/**
 * A publisher's personal coupon code at one program. `key` is the code normalised (NFKC, upper
 * case): unique per merchant, so a shopper's code at a checkout names one program and one
 * publisher whatever its case. A rejected code gives its key up (`~<id>`), so it may be asked for
 * again.
 */
export const codeSchema = new Schema(
  {
    _id: { type: String, required: true }, // cod_<random>
    publisher_id: { type: String, required: true },
    program_id: { type: Number, required: true },
    merchant_id: { type: Number, required: true },
    /** The code as shown (normalised: upper case). */
    code: { type: String, required: true },
    key: { type: String, required: true },
    status: { type: String, enum: CODE_STATUSES, required: true },
    /** Who decided a reviewed code (an operator's e-mail), and when. */
    decided_by: { type: String },
    decided_at: { type: Date },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false },
);
// One holder per code at a merchant (case-insensitive through the normalised key); the intake's lookup.
codeSchema.index({ merchant_id: 1, key: 1 }, { unique: true });
// A publisher's codes, newest first.
codeSchema.index({ publisher_id: 1, created_at: -1, _id: 1 });
// The operators' review queue.
codeSchema.index({ status: 1, created_at: 1, _id: 1 });

export type CodeDoc = InferSchemaType<typeof codeSchema>;

/** A stored code (as read with lean()). */
export interface CodeRow {
  _id: string;
  publisher_id: string;
  program_id: number;
  merchant_id: number;
  code: string;
  key: string;
  status: CodeStatus;
  decided_by?: string;
  decided_at?: Date;
  created_at: Date;
  updated_at: Date;
}
