import { Schema, type InferSchemaType } from 'mongoose';

/** What a ledger transaction records (DESIGN.md "Money out"). */
export const LEDGER_TYPES = ['commission', 'reversal', 'correction', 'payout', 'payout_return'] as const;
export type LedgerType = (typeof LEDGER_TYPES)[number];

/**
 * The journal's accounts. `publisher` is what the network owes the publisher (the balance);
 * the others are the network's side of each movement: commission approved on merchants' sales,
 * corrections the network books, payouts sent to banks and PayPal (and returned), and the
 * exchange between currencies when a payout converts a balance.
 */
export const LEDGER_ACCOUNTS = ['publisher', 'merchant_commission', 'corrections', 'payouts', 'fx'] as const;
export type LedgerAccount = (typeof LEDGER_ACCOUNTS)[number];

const postingSchema = new Schema(
  {
    account: { type: String, enum: LEDGER_ACCOUNTS, required: true },
    currency: { type: String, required: true },
    /** Signed: what the movement adds to the account (a debit of the publisher's balance is negative). */
    amount: { type: Schema.Types.Decimal128, required: true },
  },
  { _id: false, versionKey: false },
);

/**
 * One balanced movement of money: its postings sum to zero in each currency. Never updated but for
 * `pending` (cleared once the balance counts it) and never deleted; a mistake is a new transaction.
 * The id derives from what caused it (the sale event, the correction, the payout), so booking the
 * same cause twice finds the first.
 */
export const ledgerTxnSchema = new Schema(
  {
    _id: { type: String, required: true },
    publisher_id: { type: String, required: true },
    type: { type: String, enum: LEDGER_TYPES, required: true },
    postings: { type: [postingSchema], required: true },
    conversion_id: { type: String },
    payout_id: { type: String },
    /** The sale event that caused it (commission, reversal). */
    event_id: { type: String },
    /** Corrections: why (shown to the publisher); payouts: the statement's words. */
    reason: { type: String },
    /** Who booked it (an operator's e-mail, `system`). */
    actor: { type: String },
    /** Each converted currency with its rate to the payout's currency. */
    fx: { type: [{ _id: false, from: String, to: String, rate: String }], default: undefined },
    created_at: { type: Date, required: true },
    /** Set until the account's balance counts this transaction (./journal.ts). */
    pending: { type: Boolean },
  },
  { versionKey: false },
);
// The shard key (docs/scaling.md) and the id's uniqueness across the cluster: a cause is booked once.
ledgerTxnSchema.index({ publisher_id: 1, _id: 1 }, { unique: true });
// GET /balance/transactions/, newest first, a page reads its rows only.
ledgerTxnSchema.index({ publisher_id: 1, created_at: -1, _id: -1 });
// Transactions the balance does not count yet (a crash between the insert and the count).
ledgerTxnSchema.index({ publisher_id: 1, pending: 1 }, { partialFilterExpression: { pending: true } });
// A payout's transactions (booked, returned).
ledgerTxnSchema.index({ payout_id: 1 }, { partialFilterExpression: { payout_id: { $exists: true } } });

/**
 * Each publisher's balance per currency: the sum of its `publisher` postings, counted once per
 * transaction (`recent` holds the last transactions counted, `version` guards each change).
 */
export const ledgerBalanceSchema = new Schema(
  {
    _id: { type: String, required: true },
    version: { type: Number, required: true },
    balances: { type: [{ _id: false, currency: String, amount: Schema.Types.Decimal128 }], default: [] },
    entries: { type: Number, default: 0 },
    recent: { type: [String], default: [] },
    updated_at: { type: Date },
  },
  { versionKey: false },
);

export type LedgerTxnDoc = InferSchemaType<typeof ledgerTxnSchema>;
export type LedgerBalanceDoc = InferSchemaType<typeof ledgerBalanceSchema>;

export interface Posting {
  account: LedgerAccount;
  currency: string;
  amount: string;
}

/** A stored transaction (as read with lean(), amounts as their decimal strings). */
export interface LedgerTxn {
  _id: string;
  publisher_id: string;
  type: LedgerType;
  postings: Posting[];
  conversion_id?: string;
  payout_id?: string;
  event_id?: string;
  reason?: string;
  actor?: string;
  fx?: Array<{ from: string; to: string; rate: string }>;
  created_at: Date;
  pending?: boolean;
}
