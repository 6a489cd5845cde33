import { Schema, type InferSchemaType } from 'mongoose';

/**
 * The events feed: every event of an account (sale events, and other domains' events through the
 * event-source port: `payout.paid`...), numbered 1, 2, 3... in the order it joined the account's
 * log (`seq`, contiguous, never reused). The collection keeps its first name, `sale_events`. The body is the postback body, frozen when the
 * event was logged. Appended only by the holder of the account's log lease (event_log_heads), so
 * numbers never collide or leave gaps; kept as long as conversions are (`events:prune` aside).
 */
export const saleEventLogSchema = new Schema(
  {
    /** The event id (`evt_...`), the same as the postback's. */
    _id: { type: String, required: true },
    publisher_id: { type: String, required: true },
    seq: { type: Number, required: true },
    type: { type: String, required: true },
    /** Sale events: their conversion; other domains' events have none. */
    conversion_id: { type: String },
    /** Sale events made with tracing on: the W3C traceparent of the request that made them (their postbacks' parent span). */
    traceparent: { type: String },
    /** The postback body (JSON), as of the event. */
    body: { type: String, required: true },
    created_at: { type: Date, required: true },
    logged_at: { type: Date, required: true },
  },
  { versionKey: false },
);
saleEventLogSchema.index({ publisher_id: 1, seq: 1 }, { unique: true });
// `events:prune` (by age).
saleEventLogSchema.index({ logged_at: 1 });

/** One per account: who may append to its log (and count its changes in the stats) right now (leases), so both are serial. */
export const eventLogHeadSchema = new Schema(
  {
    _id: { type: String, required: true },
    leased_until: { type: Date, default: null },
    holder: { type: String, default: null },
    /** The highest number appended so far (survives a prune of every event). */
    last_seq: { type: Number, default: 0 },
    /** The stats applier's lease on the account (its conversion changes are counted serially). */
    stats_leased_until: { type: Date, default: null },
    stats_holder: { type: String, default: null },
    /**
     * The consumers of the log (./consumers.ts): `behind.<name>` is set when events are appended
     * and cleared once that consumer has read through the last number; `consumed.<name>` is the
     * last number it has handled (its checkpoint).
     */
    behind: { type: Schema.Types.Mixed },
    consumed: { type: Schema.Types.Mixed },
  },
  { versionKey: false },
);

// Each consumer's pass: the accounts whose log has events it has not read.
eventLogHeadSchema.index({ 'behind.ledger': 1 }, { partialFilterExpression: { 'behind.ledger': true } });
eventLogHeadSchema.index({ 'behind.postbacks': 1 }, { partialFilterExpression: { 'behind.postbacks': true } });
eventLogHeadSchema.index({ 'behind.stats': 1 }, { partialFilterExpression: { 'behind.stats': true } });

export type SaleEventDoc = InferSchemaType<typeof saleEventLogSchema>;
export type EventLogHeadDoc = InferSchemaType<typeof eventLogHeadSchema>;
