import { Schema, type InferSchemaType } from 'mongoose';

/**
 * One followed tracked link per document: how clicks were stored before buckets
 * (./click-bucket.schema.ts). Read until `clicks:migrate` has moved every row into buckets.
 */
export const clickSchema = new Schema(
  {
    _id: { type: String, required: true },
    link_id: { type: String, required: true },
    publisher_id: { type: String, required: true },
    program_id: { type: Number, required: true },
    campaign_id: { type: Number, required: true },
    subid: { type: String, default: '' },
    created_at: { type: Date, required: true },
    user_agent: { type: String, default: '' },
    ip_hash: { type: String, default: '' },
    referrer: { type: String, default: '' },
    is_bot: { type: Boolean, default: false },
    bot_reason: { type: String },
    /** The stats transaction that stored (and counts) this click. */
    stats_txn: { type: String },
  },
  { versionKey: false },
);
// The clicks list's sort ({created_at: -1, _id: 1}) read in index order (while rows are left);
// the migration reads them by publisher and time.
clickSchema.index({ publisher_id: 1, created_at: -1, _id: 1 });

export type ClickDoc = InferSchemaType<typeof clickSchema>;
