import { Schema, type InferSchemaType } from 'mongoose';

/**
 * The stats read model (owned by @cw/stats): one cell per account,
 * view, period and dimension values, holding counters that clicks and conversion changes
 * increment as they happen. Views: `a` (the account), `p` (program and merchant), `s` (sub-ID),
 * `ps` (both), `l` (a tracked link: `link_id`, with its program and sub-ID). Grains: `d` (a UTC day: quarter hours in a Fenwick tree, slots `f1`..`f96`, so any
 * time zone's days are exact) and `m` (a UTC month: its total, slot `m`, and its days in a Fenwick
 * tree, slots `d1`..`d31`). `fv`: the layout's version (cells of an older one are rebuilt). Counters: `c.<slot>` clicks (bots
 * apart); `s.<slot>.<currency>_<status>_<source>_<paid>` = `{n, a, m}` (conversions, sale amount
 * and commission, Decimal128). `txns` holds the ids of the transactions being applied (guards their
 * increments against a second application).
 */
export const statSchema = new Schema(
  {
    _id: { type: String, required: true },
    publisher_id: { type: String, required: true },
    v: { type: String, enum: ['a', 'p', 's', 'ps', 'l'], required: true },
    g: { type: String, enum: ['d', 'm'], required: true },
    t: { type: Date, required: true },
    program_id: { type: Number, default: null },
    campaign_id: { type: Number, default: null },
    subid: { type: String, default: null },
    link_id: { type: String },
    fv: { type: Number },
    c: { type: Schema.Types.Mixed },
    s: { type: Schema.Types.Mixed },
    txns: { type: [String], default: undefined },
  },
  { versionKey: false, minimize: false },
);
// Reads: one account's view and grain over a range of periods, optionally one sub-ID.
statSchema.index({ publisher_id: 1, v: 1, g: 1, t: 1 });
statSchema.index({ publisher_id: 1, v: 1, subid: 1, g: 1, t: 1 });
// Links' totals: the cells of given links (view `l` only).
statSchema.index({ publisher_id: 1, link_id: 1, g: 1, t: 1 }, { partialFilterExpression: { v: 'l' } });

/**
 * A transaction of increments to stats cells, stored before it is applied so that a crash in the
 * middle is finished by the next pass instead of lost or doubled. `kind: 'conversions'`: one
 * account's batch of conversion changes (the increments and the state each conversion is counted
 * in); `kind: 'clicks'`: one tracker batch (the click ids; counting reads the clicks stored with
 * this transaction id), counted by the worker once `stored`, several batches together.
 */
export const statTxnSchema = new Schema(
  {
    _id: { type: String, required: true },
    kind: { type: String, enum: ['conversions', 'clicks'], required: true },
    publisher_id: { type: String },
    incs: { type: Schema.Types.Mixed },
    conversions: { type: Schema.Types.Mixed },
    click_ids: { type: [String], default: undefined },
    /**
     * A click batch stored as buckets by insertClickRows (`click_ids` are its buckets' ids, each
     * click in one of them once): counted from the buckets' columns. Absent: a batch of an earlier
     * version (rows, or buckets a migration made of them), whose clicks are found and deduped by id.
     */
    buckets: { type: Boolean },
    /** A click batch whose clicks are all written: the worker may count it now (with others). */
    stored: { type: Boolean },
    /** Who is applying it now (a group of click batches, or a recovery); absent: nobody yet. */
    owner: { type: String },
    /** Until when its writer may still be applying it; past it, any pass finishes it. */
    lease_until: { type: Date, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false },
);
statTxnSchema.index({ kind: 1, lease_until: 1 });
statTxnSchema.index({ kind: 1, stored: 1, owner: 1 });
statTxnSchema.index({ publisher_id: 1 }, { partialFilterExpression: { kind: 'conversions' } });

export type StatDoc = InferSchemaType<typeof statSchema>;
export type StatTxnDoc = InferSchemaType<typeof statTxnSchema>;
