import { Schema, type InferSchemaType } from 'mongoose';

export const INQUIRY_STATUSES = ['open', 'accepted', 'rejected'] as const;
export type InquiryStatus = (typeof INQUIRY_STATUSES)[number];

/** Why an inquiry was rejected (DESIGN.md "Attribution beyond the click"): the merchant's, an operator's or the response window's. */
export const REJECT_REASONS = ['duplicate', 'no_order', 'returned', 'outside_window', 'other'] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

/** Who decided: the program's merchant, an operator of the network, or the response window's job. */
export const DECIDERS = ['merchant', 'operator', 'window'] as const;
export type Decider = (typeof DECIDERS)[number];

/** The inquiry events (the events feed's and the opt-in postbacks' `inquiry.accepted` / `inquiry.rejected`). */
export const INQUIRY_EVENT_TYPES = ['inquiry.accepted', 'inquiry.rejected'] as const;
export type InquiryEventType = (typeof INQUIRY_EVENT_TYPES)[number];

const evidenceClickSchema = new Schema(
  {
    click_id: { type: String, required: true },
    clicked_at: { type: Date, required: true },
    /** The id's signature holds under the key ring and the click could have earned the order (the publisher's, this program's, in its cookie window before the order, not a bot). */
    verified: { type: Boolean, required: true },
  },
  { _id: false, versionKey: false },
);

const inquiryEventSchema = new Schema(
  {
    _id: { type: String, required: true },
    type: { type: String, enum: INQUIRY_EVENT_TYPES, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false },
);

/**
 * A missing-sale inquiry: a publisher's claim that an order of a program's merchant was earned and
 * not credited, with the platform's own evidence (the publisher's clicks on the program in its
 * cookie window before the order). One per (publisher, merchant, order id): the id is their hash.
 */
export const inquirySchema = new Schema(
  {
    _id: { type: String, required: true },
    publisher_id: { type: String, required: true },
    program_id: { type: Number, required: true },
    /** The program's merchant: whose tracking API sees and decides it. */
    merchant_id: { type: Number, required: true },
    /** The merchant's order id, as the publisher gave it. */
    order_id: { type: String, required: true },
    occurred_at: { type: Date, required: true },
    amount: { type: Schema.Types.Decimal128, required: true },
    currency: { type: String, required: true },
    /** The click id the publisher named, if any (shown as given; the evidence says whether it counts). */
    click_id: { type: String },
    note: { type: String },
    evidence: { clicks: { type: [evidenceClickSchema], default: [] } },
    status: { type: String, enum: INQUIRY_STATUSES, required: true },
    reason: { type: String, enum: REJECT_REASONS },
    /** The order was already credited when the inquiry was to be accepted (`order_already_credited`). */
    conflict: { type: String },
    /** The conversion an acceptance created. */
    conversion_id: { type: String },
    /** When the window's job decides it if nobody has. */
    respond_by: { type: Date, required: true },
    decided_by: { type: String, enum: DECIDERS },
    decided_at: { type: Date },
    /** Held while one decision is being made (an acceptance creates its conversion first): no second decision meanwhile. */
    deciding_until: { type: Date },
    /** The inquiry's events, kept with it (the events feed and postbacks read them from here). */
    events: { type: [inquiryEventSchema], default: [] },
    /** Set with an event, until the events feed has taken it. */
    events_pending: { type: Boolean },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false },
);
// The publisher's list, newest first (optionally one status).
inquirySchema.index({ publisher_id: 1, created_at: -1, _id: 1 });
inquirySchema.index({ publisher_id: 1, status: 1, created_at: -1, _id: 1 });
// The merchant's list on the tracking API.
inquirySchema.index({ merchant_id: 1, status: 1, created_at: -1, _id: 1 });
// The response window's job and the operators' overdue list: open inquiries by their deadline.
inquirySchema.index({ respond_by: 1 }, { partialFilterExpression: { status: 'open' } });
// Events not yet in the events feed.
inquirySchema.index({ events_pending: 1, publisher_id: 1 }, { partialFilterExpression: { events_pending: true } });

export type InquiryDoc = InferSchemaType<typeof inquirySchema>;

/** The stored inquiry (as read with lean()). */
export interface InquiryRecord {
  _id: string;
  publisher_id: string;
  program_id: number;
  merchant_id: number;
  order_id: string;
  occurred_at: Date;
  amount: { toString(): string };
  currency: string;
  click_id?: string;
  note?: string;
  evidence: { clicks: Array<{ click_id: string; clicked_at: Date; verified: boolean }> };
  status: InquiryStatus;
  reason?: RejectReason;
  conflict?: string;
  conversion_id?: string;
  respond_by: Date;
  decided_by?: Decider;
  decided_at?: Date;
  deciding_until?: Date;
  events: Array<{ _id: string; type: InquiryEventType; created_at: Date }>;
  events_pending?: boolean;
  created_at: Date;
  updated_at: Date;
}
