import { Schema, type InferSchemaType } from 'mongoose';

export const CONVERSION_STATUSES = ['pending', 'approved', 'declined'] as const;

/** A sale attributed to a publisher; money in Decimal128, exact. */
export const conversionSchema = new Schema(
  {
    _id: { type: String, required: true },
    publisher_id: { type: String, required: true },
    program_id: { type: Number, required: true },
    campaign_id: { type: Number, required: true },
    click_id: { type: String },
    link_id: { type: String },
    subid: { type: String, default: '' },
    order_ref: { type: String },
    status: { type: String, enum: CONVERSION_STATUSES, required: true },
    sale_amount: { type: Schema.Types.Decimal128, required: true },
    commission: { type: Schema.Types.Decimal128, required: true },
    currency: { type: String, required: true },
    occurred_at: { type: Date, required: true },
    /** Set when a reversal declined a previously approved sale. */
    reversed: { type: Boolean, default: false },
    paid: { type: Boolean, default: false },
    paid_at: { type: Date },
    source: { type: String, enum: ['v1', 'ledger'], default: 'v1' },
    created_at: { type: Date, default: Date.now },
    updated_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);
conversionSchema.index({ publisher_id: 1, occurred_at: -1 });
conversionSchema.index({ publisher_id: 1, status: 1 });
conversionSchema.index({ program_id: 1, order_ref: 1 }, { unique: true, partialFilterExpression: { order_ref: { $type: 'string' } } });

export type ConversionDoc = InferSchemaType<typeof conversionSchema>;
