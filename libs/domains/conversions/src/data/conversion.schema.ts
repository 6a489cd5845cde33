import { Schema, type InferSchemaType } from 'mongoose';

export const CONVERSION_STATUSES = ['pending', 'approved', 'declined'] as const;
export type ConversionStatus = (typeof CONVERSION_STATUSES)[number];

/**
 * How a sale reached its publisher: `link` (a click id, as always), `code` (a publisher's personal
 * coupon code), `agent` (an AI agent's attribution token), `inquiry` (a missing-sale inquiry the
 * merchant accepted). Rows written before the field existed have none and read as `link`.
 */
export const CONVERSION_CHANNELS = ['link', 'code', 'agent', 'inquiry'] as const;
export type ConversionChannel = (typeof CONVERSION_CHANNELS)[number];

export const SALE_EVENT_TYPES = ['sale.created', 'sale.approved', 'sale.declined', 'sale.reversed'] as const;
export type SaleEventType = (typeof SALE_EVENT_TYPES)[number];

/**
 * A sale's events: each status change pushes its event in the same single-document update that
 * changes the status, so a change and its event are never apart; the events log takes them from
 * here (`log_pending`) and its consumers read them there. `published_at` is the retired outbox's
 * stamp (null on events it never published; the outbox migration of @cw/postbacks reads it).
 */
const saleEventSchema = new Schema(
  {
    _id: { type: String, required: true },
    type: { type: String, enum: SALE_EVENT_TYPES, required: true },
    created_at: { type: Date, required: true },
    published_at: { type: Date, default: null },
    /** The W3C traceparent of the request that made this event, when tracing was on (its postback's parent span). */
    traceparent: { type: String },
  },
  { versionKey: false },
);

/**
 * A sale attributed to a publisher (or a ledger entry the network books); money in Decimal128,
 * exact. A sale's _id is the hash of (merchant, order id), so one order is one document, cluster-
 * wide, through the _id index alone (the collection is sharded by hashed _id: docs/scaling.md).
 */
export const conversionSchema = new Schema(
  {
    _id: { type: String, required: true },
    publisher_id: { type: String, required: true },
    /** Absent on ledger entries not tied to a program. */
    program_id: { type: Number },
    campaign_id: { type: Number },
    click_id: { type: String },
    link_id: { type: String },
    subid: { type: String, default: '' },
    /** How the sale was attributed (CONVERSION_CHANNELS); absent on older rows and ledger entries: read as `link`. */
    channel: { type: String, enum: CONVERSION_CHANNELS },
    /** The personal coupon code a `code` sale came by (its id in `codes`). */
    code_id: { type: String },
    /** The merchant's order id: never shown to publishers; unique per merchant (campaign) through _id. */
    order_ref: { type: String },
    /** Ledger entries: why the network booked it. */
    reason: { type: String },
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
    events: { type: [saleEventSchema], default: [] },
    /** Set in the same update that pushes an event; cleared once every event is in the events feed (sale_events). */
    log_pending: { type: Boolean },
    /** Network bookings (`source: ledger`) not yet booked in the ledger as corrections. */
    ledger_pending: { type: Boolean },
    /**
     * The state the stats read model counts this conversion in (`<status>_<paid 0|1>`); absent: not
     * counted yet. The stats read a sale's changes from the events log (their checkpoint), and
     * network bookings by this field's absence (their partial index below).
     */
    stats_key: { type: String },
    created_at: { type: Date, default: Date.now },
    updated_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);
// Lists newest first end in _id, the tie-break of their sort: page 1 reads only its page (no in-memory sort).
conversionSchema.index({ publisher_id: 1, occurred_at: -1, _id: 1 });
// The same lists filtered by sub-ID (a publisher's most common filter): one sub-ID's rows only.
conversionSchema.index({ publisher_id: 1, subid: 1, occurred_at: -1, _id: 1 });
// The same lists filtered by channel (older rows, without one, are indexed as null and read as `link`).
conversionSchema.index({ publisher_id: 1, channel: 1, occurred_at: -1, _id: 1 });
conversionSchema.index({ publisher_id: 1, status: 1 });
conversionSchema.index({ publisher_id: 1, updated_at: 1 });
// The retired postback outbox (its migration, @cw/postbacks outbox-migration.ts, reads what is left): only conversions still flagged.
conversionSchema.index({ outbox_since: 1 }, { partialFilterExpression: { outbox_since: { $exists: true } } });
// The events feed's appender: conversions with events not yet logged, by account.
conversionSchema.index({ log_pending: 1, publisher_id: 1 }, { partialFilterExpression: { log_pending: true } });

// The stats applier: network bookings (no sale event) not counted yet, by account.
conversionSchema.index({ source: 1, stats_key: 1, publisher_id: 1 }, { partialFilterExpression: { source: 'ledger' } });

// The ledger's pass: network bookings not yet booked as corrections.
conversionSchema.index({ ledger_pending: 1, publisher_id: 1 }, { partialFilterExpression: { ledger_pending: true } });

export type ConversionDoc = InferSchemaType<typeof conversionSchema>;

/** The stored conversion (as read with lean()). */
export interface ConversionRecord {
  _id: string;
  publisher_id: string;
  program_id?: number;
  campaign_id?: number;
  click_id?: string;
  link_id?: string;
  subid: string;
  channel?: ConversionChannel;
  code_id?: string;
  order_ref?: string;
  reason?: string;
  status: ConversionStatus;
  sale_amount: { toString(): string };
  commission: { toString(): string };
  currency: string;
  occurred_at: Date;
  reversed: boolean;
  paid: boolean;
  source: 'v1' | 'ledger';
  events: Array<{ _id: string; type: SaleEventType; created_at: Date; published_at: Date | null; traceparent?: string }>;
  created_at: Date;
  updated_at: Date;
}
