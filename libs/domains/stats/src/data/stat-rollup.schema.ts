import { Schema, type InferSchemaType } from 'mongoose';

/**
 * The stats read model's roll-ups (owned by @cw/stats; decision record 0065): one document per
 * account, view (`s` sub-ID, `p` program and merchant, `ps` both, `l` tracked link), grain (`d` a
 * UTC day, `m` a UTC month) and period start `t`, holding every key's totals of that period in
 * `k`: `k.<key>.c` clicks, `k.<key>.s.<currency>_<status>_<source>_<paid>` = `{n, a, m}`, the
 * same counters as a cell's total. A key is the group's program, merchant, sub-ID and link
 * (`rollupKey`, dots escaped). Incremented in the same stored transactions as the cells (`txns`
 * guards as it guards a cell); `ok`: built from the cells (or since the period began), so a read
 * may use it (absent or false: the read takes the cells); `over`: too many keys for one document
 * (reads take the cells); `nb`: an upper bound of the document's size in bytes; `w`: bumped by
 * every write (the builder replaces a document only if no write came between).
 */
export const statRollupSchema = new Schema(
  {
    _id: { type: String, required: true },
    publisher_id: { type: String, required: true },
    v: { type: String, enum: ['s', 'p', 'ps', 'l'], required: true },
    g: { type: String, enum: ['d', 'm'], required: true },
    t: { type: Date, required: true },
    ok: { type: Boolean },
    over: { type: Boolean },
    nb: { type: Number },
    w: { type: Number },
    /** The build that wrote it (a month's build finds what its bulk write reached by it). */
    b: { type: String },
    k: { type: Schema.Types.Mixed },
    txns: { type: [String], default: undefined },
  },
  { versionKey: false, minimize: false },
);
// Reads and builds: one account's view and grain over periods (the reader names them by _id; the builder walks them).
statRollupSchema.index({ publisher_id: 1, v: 1, g: 1, t: 1 });
// The worker's pass: documents a writer created that the builder has not checked against the cells yet.
statRollupSchema.index({ ok: 1 }, { partialFilterExpression: { ok: false } });

export type StatRollupDoc = InferSchemaType<typeof statRollupSchema>;

/**
 * The roll-ups' backfill (decision record 0065): one document per account whose cells predate its
 * roll-ups, `_id` its id, walked by the worker month by month from the newest: `next` is the month
 * it goes on before (absent: from the newest), `done` once every month is built; `lease_until` and
 * `owner`: the replica walking it now (one at a time, another takes over after the lease). The
 * document `_id: '~seeded'` says the accounts were listed (`v`: the backfill's version).
 */
export const statRollupBackfillSchema = new Schema(
  {
    _id: { type: String, required: true },
    done: { type: Boolean, required: true },
    next: { type: Date },
    lease_until: { type: Date },
    owner: { type: String },
    months: { type: Number },
    built: { type: Number },
    v: { type: Number },
  },
  { versionKey: false },
);
// The worker's round: accounts not done yet (only those are in it).
statRollupBackfillSchema.index({ done: 1, lease_until: 1 }, { partialFilterExpression: { done: false } });

export type StatRollupBackfillDoc = InferSchemaType<typeof statRollupBackfillSchema>;
