import { Schema, type InferSchemaType } from 'mongoose';

/**
 * A self-billing statement: issued once per paid payout (and again only as a correction that names
 * the one it supersedes), numbered without gaps per publisher and calendar year, never changed.
 * It keeps what it said (the snapshot: both parties, lines, totals, rates, VAT treatment) and the
 * PDF as rendered, so a later change of a name, an address, a rate or the renderer changes nothing
 * of a statement already issued.
 */
export const statementSchema = new Schema(
  {
    /** `stm_` + the payout's hash, `_r<revision>` for a correction: the same payout and revision, the same id. */
    _id: { type: String, required: true },
    publisher_id: { type: String, required: true },
    payout_id: { type: String, required: true },
    /** 1 for the statement issued at payment; 2, 3 … for corrections (statement:reissue). */
    revision: { type: Number, required: true },
    /** The calendar year (UTC) of the issue date, and the statement's place in the publisher's year. */
    year: { type: Number, required: true },
    seq: { type: Number, required: true },
    /** `YYYY-NNNNNN` (the year and seq). */
    number: { type: String, required: true },
    /** The number of the statement this one corrects (null for a payout's first). */
    supersedes: { type: String, default: null },
    issued_at: { type: Date, required: true },
    /** What the statement says (StatementSnapshot), as JSON. */
    snapshot: { type: Schema.Types.Mixed, required: true },
    /** The PDF as issued. */
    pdf: { type: Buffer, required: true },
    pdf_sha256: { type: String, required: true },
  },
  { versionKey: false },
);
// The numbering: one statement per (publisher, year, seq). An issuer that lost the race takes the next seq.
statementSchema.index({ publisher_id: 1, year: 1, seq: 1 }, { unique: true });
// Exactly once: one statement per payout and revision (the shard key is its prefix: docs/scaling.md).
statementSchema.index({ publisher_id: 1, payout_id: 1, revision: 1 }, { unique: true });

export type StatementDoc = InferSchemaType<typeof statementSchema>;

/** A stored statement as read with lean(). */
export interface StatementRow {
  _id: string;
  publisher_id: string;
  payout_id: string;
  revision: number;
  year: number;
  seq: number;
  number: string;
  supersedes: string | null;
  issued_at: Date;
  snapshot: unknown;
  pdf: Buffer | { buffer: Buffer | Uint8Array };
  pdf_sha256: string;
}
