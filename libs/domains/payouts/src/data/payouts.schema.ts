import { Schema, type InferSchemaType } from 'mongoose';

export const PAYOUT_STATUSES = ['pending', 'held', 'in_transit', 'paid', 'failed', 'canceled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];
export const PAYOUT_SCHEDULES = ['monthly', 'on_request'] as const;
export type PayoutSchedule = (typeof PAYOUT_SCHEDULES)[number];
export const RUN_STATUSES = ['draft', 'approving', 'approved', 'settled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const RAILS = ['sepa', 'paypal', 'csv'] as const;
export type Rail = (typeof RAILS)[number];
/** Why a payout waits for an operator (shown to the publisher and to operators). */
export const HOLD_REASONS = ['method_changed', 'shared_account', 'method_failed', 'account_inactive', 'tax_profile_incomplete'] as const;
export type HoldReason = (typeof HOLD_REASONS)[number];

const sealedSchema = new Schema({ kid: String, iv: String, tag: String, data: String }, { _id: false });

/** A publisher's payout settings: its method (sealed), currency, threshold and schedule. */
export const payoutProfileSchema = new Schema(
  {
    _id: { type: String, required: true },
    method: {
      type: new Schema(
        {
          type: { type: String, required: true },
          last4: { type: String, required: true },
          country: String,
          currency: String,
          fingerprint: { type: String, required: true },
          sealed: { type: sealedSchema, required: true },
          /** The bank or PayPal refused a payout to it: the publisher must set it again. */
          failed_at: Date,
        },
        { _id: false },
      ),
      default: null,
    },
    method_changed_at: { type: Date },
    currency: { type: String, default: 'EUR' },
    threshold: { type: Schema.Types.Decimal128 },
    schedule: { type: String, enum: PAYOUT_SCHEDULES, default: 'monthly' },
    /** The tax profile (`/settings/tax`): sealed, beside what may be shown (`src/tax/`, `StoredTaxProfile`). */
    tax: { type: Schema.Types.Mixed, default: undefined },
    updated_at: { type: Date },
  },
  { versionKey: false },
);
// Publishers sharing one account (a risk hold).
payoutProfileSchema.index({ 'method.fingerprint': 1 }, { partialFilterExpression: { 'method.fingerprint': { $exists: true } } });

/** A payout run: every payout due at one time, created by one admin and approved by another. */
export const payoutRunSchema = new Schema(
  {
    _id: { type: String, required: true },
    kind: { type: String, enum: ['scheduled', 'request'], required: true },
    status: { type: String, enum: RUN_STATUSES, required: true },
    created_by: { type: String, required: true },
    created_at: { type: Date, required: true },
    /** Set while the schedule fills the month's run (a crash leaves it: the next pass finishes the run). */
    opening: Boolean,
    approved_by: String,
    approved_at: Date,
    exported_at: Date,
    settled_at: Date,
    /** Per currency and rail: payouts and amount (pending ones; held ones apart). */
    totals: { type: [{ _id: false, currency: String, rail: String, count: Number, amount: String }], default: [] },
    held: { type: Number, default: 0 },
  },
  { versionKey: false },
);
payoutRunSchema.index({ created_at: -1, _id: -1 });

/** One payment to one publisher in one currency; its id derives from (run, publisher, currency). */
export const payoutSchema = new Schema(
  {
    _id: { type: String, required: true },
    run_id: { type: String, required: true },
    publisher_id: { type: String, required: true },
    status: { type: String, enum: PAYOUT_STATUSES, required: true },
    amount: { type: Schema.Types.Decimal128, required: true },
    currency: { type: String, required: true },
    rail: { type: String, enum: RAILS, required: true },
    method: { type: new Schema({ type: { type: String }, last4: String }, { _id: false }), required: true },
    method_fingerprint: { type: String },
    /** The method as it was when the payout was made (sealed; only the rails' export opens it). */
    method_sealed: { type: Schema.Types.Mixed, select: false },
    /** The balances it pays, each in its own currency (converted at `fx` when not the payout's). */
    sources: { type: [{ _id: false, currency: String, amount: String }], default: [] },
    converted: { type: [{ _id: false, currency: String, amount: String }], default: [] },
    fx: { type: [{ _id: false, from: String, to: String, rate: String, date: String }], default: [] },
    holds: { type: [String], default: [] },
    failure: { type: { _id: false, code: String, message: String }, default: null },
    statement: { type: { _id: false, number: String }, default: null },
    created_at: { type: Date, required: true },
    approved_at: Date,
    paid_at: Date,
    failed_at: Date,
    updated_at: Date,
    /**
     * Its events (`payout.paid`, `payout.failed`), pushed by the write that settles it, with
     * `log_pending` set in that same write until the events feed has logged them
     * (@cw/events-feed's event-source port; `payoutEventSource`, ../payout-events.ts).
     */
    events: { type: [{ _id: String, type: { type: String }, created_at: Date }], default: undefined },
    log_pending: { type: Boolean },
  },
  { versionKey: false },
);
payoutSchema.index({ publisher_id: 1, created_at: -1, _id: -1 });
payoutSchema.index({ run_id: 1, _id: 1 });
// The events feed's appends: payouts whose events are not logged yet.
payoutSchema.index({ log_pending: 1, publisher_id: 1 }, { partialFilterExpression: { log_pending: true } });

/** The ECB's reference rates of one day (units per 1 EUR, as published). */
export const fxRatesSchema = new Schema(
  {
    _id: { type: String, required: true },
    base: { type: String, default: 'EUR' },
    rates: { type: Schema.Types.Mixed, required: true },
    imported_at: { type: Date, required: true },
  },
  { versionKey: false },
);

export type PayoutProfileDoc = InferSchemaType<typeof payoutProfileSchema>;
export type PayoutRunDoc = InferSchemaType<typeof payoutRunSchema>;
export type PayoutDoc = InferSchemaType<typeof payoutSchema>;
export type FxRatesDoc = InferSchemaType<typeof fxRatesSchema>;
