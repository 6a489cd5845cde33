/**
 * The shard-key table: how each collection is split on a sharded MongoDB, and the rules the code
 * keeps so that it can be (docs/scaling.md says which queries each key serves and which scatter).
 *
 * - Every unique index on a sharded collection is prefixed by its shard key; on a hashed key, the
 *   only unique index is the shard key's own `_id` (order dedupe and link identity live in `_id`).
 * - Every single-document write (updateOne, replaceOne, deleteOne, findOneAnd*) on a sharded
 *   collection names its whole shard key, or `_id` by equality; an upsert names the whole shard
 *   key. `guardShardKeyWrites` enforces it on every write through the models, on any database, so
 *   the embedded engine refuses what a sharded cluster would.
 */
import type { Model, Query, Schema } from 'mongoose';

export type ShardKey = Record<string, 1 | 'hashed'>;
export type ShardPlan = { key: ShardKey; why: string } | { unsharded: string };

/** Keyed by collection name (`jobs` is the worker's Agenda collection). */
export const SHARD_KEYS: Record<string, ShardPlan> = {
  conversions: {
    key: { _id: 'hashed' },
    why: 'the id is the hash of (merchant, order): one order is one document cluster-wide; intake, status changes and outbox stamps are by id',
  },
  links: {
    key: { _id: 'hashed' },
    why: 'the code is an HMAC of (publisher, program, landing URL, sub-ID): one identity is one document; every redirect reads by code',
  },
  codes: {
    unsharded:
      'personal coupon codes: at most 10 per publisher and program, small documents; unique per merchant on the normalised code (a rejection rewrites that key, which a shard key could not be)',
  },
  attribution_spends: {
    key: { _id: 'hashed' },
    why: "write-once spends of agent attribution tokens keyed by the token's nonce: the intake inserts and verify reads by _id",
  },
  click_buckets: {
    key: { publisher_id: 1, _id: 'hashed' },
    why: "the largest collection (many clicks per document): a publisher's reads are targeted, a busy publisher's buckets spread over its chunks",
  },
  clicks: {
    key: { publisher_id: 1, _id: 'hashed' },
    why: 'click rows of the older layout, until clicks:migrate has moved them into click_buckets',
  },
  click_compactions: { unsharded: 'one small document per account: how far its clicks were compacted' },
  sale_events: {
    key: { publisher_id: 1, seq: 1 },
    why: "an account's feed is read by (publisher, seq) ranges: one chunk range per account, pages in order",
  },
  stats: {
    key: { publisher_id: 1, _id: 'hashed' },
    why: "the stats read model: every read is one account's cells (targeted); increments name (publisher, cell id)",
  },
  stats_txns: { key: { _id: 'hashed' }, why: 'written, applied and deleted by id; the recovery pass scatters (it runs in the background)' },
  stats_rollups: {
    key: { publisher_id: 1, _id: 'hashed' },
    why: "the stats roll-ups (one document per account, view and UTC day or month): every read names one account's documents by _id; increments and builds name (publisher, id)",
  },
  stats_rollup_backfill: {
    key: { _id: 'hashed' },
    why: "the roll-ups' backfill: one small document per account (its id), claimed and moved on by id; the worker's round looks for one not done (background, a page)",
  },
  ledger_transactions: {
    key: { publisher_id: 1, _id: 1 },
    why: "append-only and growing with history: a publisher's entries are read by (publisher, time) ranges on its chunks; the id, derived from the entry's cause, is unique cluster-wide through this key, so a cause is booked once",
  },
  ledger_balances: { unsharded: 'one per publisher: its balance per currency' },
  payout_profiles: { unsharded: 'one per publisher: its payout method (sealed), currency, threshold and schedule' },
  payout_runs: { unsharded: 'one per payout run (monthly and on request)' },
  payouts: { unsharded: 'one per publisher and run: at most a few per publisher a month; read by publisher and by run' },
  fx_rates: { unsharded: 'one per day of ECB reference rates' },
  inquiries: { unsharded: 'missing-sale inquiries, filed by hand: a few per publisher a month; read by publisher, by merchant and by deadline' },
  statements: {
    key: { publisher_id: 1 },
    why: "one per paid payout with its PDF: read by (publisher, payout); both unique indexes (the numbering's {publisher_id, year, seq} and {publisher_id, payout_id, revision}) start with the key",
  },
  postback_deliveries: { key: { _id: 'hashed' }, why: 'every claim, attempt and redelivery names the delivery id' },
  idempotency_keys: { key: { _id: 'hashed' }, why: 'every claim and completion names the key id' },
  publishers: { unsharded: 'one document per account' },
  credentials: { unsharded: 'a few documents per account; the unique key hash is read on every cache miss' },
  merchants: { unsharded: 'one document per merchant' },
  programs: { unsharded: 'one document per program' },
  program_memberships: { unsharded: 'publishers times joined programs: small documents, read by publisher' },
  products: { unsharded: 'read-mostly catalog, served from cache; a GTIN lookup would scatter on any key search pages target' },
  offers: { unsharded: 'live offers only, small' },
  monetize_applications: { unsharded: 'one per application, reviewed by operators' },
  trending_plans: { unsharded: 'a few per day' },
  feed_states: { unsharded: 'one per country' },
  postback_configs: { unsharded: 'one per account' },
  event_log_heads: { unsharded: "one per account: its log's append lease" },
  credential_uses: { unsharded: 'one per credential: when it was last used, to the minute' },
  users: { unsharded: 'one per person; the unique e-mail is read at every sign-in and must stay global' },
  account_members: { unsharded: 'people times accounts, small documents, read by person and by account' },
  portal_sessions: { unsharded: 'one per signed-in device, removed at their end by the TTL monitor; read by the cookie hash' },
  mail_tokens: { unsharded: 'one-time links waiting to be used (days at most)' },
  notification_preferences: { unsharded: 'one per person who changed a notification setting, read by person' },
  notification_sends: {
    unsharded: 'keys of notices sent at most once (a weekly summary per person and week, a failing postback a day), removed by the TTL monitor within days',
  },
  oauth_records: { unsharded: 'OAuth grants, sessions, codes, refresh tokens and clients: small, by _id; the TTL monitor removes expired ones' },
  security_events: {
    key: { account_id: 1, _id: 1 },
    why: "append-only and growing with history: an account's log is read by (account, time) ranges, only that account's chunks; ids are time-ordered so inserts follow the account's range",
  },
  jobs: { unsharded: 'bounded: one retry job per due-time slot (about 64 per doubling of the delay), finished jobs removed' },
};

export const shardKeyOf = (collection: string): ShardKey | undefined => {
  const plan = SHARD_KEYS[collection];
  return plan && 'key' in plan ? plan.key : undefined;
};

type IndexKey = Record<string, unknown>;

/** Why this index cannot exist on the collection once sharded (undefined: it can). */
export function uniqueIndexProblem(collection: string, key: IndexKey, options: { unique?: boolean }): string | undefined {
  const shardKey = shardKeyOf(collection);
  if (!shardKey || !options.unique) return undefined;
  const fields = Object.keys(shardKey);
  const hashed = Object.values(shardKey).includes('hashed');
  const name = `${collection} ${JSON.stringify(key)}`;
  if (hashed) return `${name}: unique, on a collection sharded by a hashed key (${JSON.stringify(shardKey)}); only _id can be unique there`;
  const prefix = Object.keys(key).slice(0, fields.length);
  if (prefix.join() !== fields.join()) return `${name}: unique, not prefixed by the shard key ${JSON.stringify(shardKey)}`;
  return undefined;
}

const OPERATORS_OF_EQUALITY = new Set(['$eq']);

/** Whether the filter holds `field` by equality (a value, or `{$eq: value}`), so the write can be routed. */
function namesByEquality(filter: Record<string, unknown>, field: string): boolean {
  if (!(field in filter)) return false;
  const v = filter[field];
  if (v === null || typeof v !== 'object' || v instanceof Date || Array.isArray(v)) return v !== undefined;
  const keys = Object.keys(v);
  if (!keys.some((k) => k.startsWith('$'))) return true; // an embedded document or an ObjectId-like value
  return keys.length === 1 && OPERATORS_OF_EQUALITY.has(keys[0]!);
}

/**
 * Why a single-document write with this filter cannot be routed on the collection once sharded
 * (undefined: it can). `upsert`: the whole shard key is needed (a new document must land somewhere).
 */
export function unroutedWriteProblem(collection: string, op: string, filter: Record<string, unknown>, opts: { upsert?: boolean } = {}): string | undefined {
  const shardKey = shardKeyOf(collection);
  if (!shardKey) return undefined;
  const fields = Object.keys(shardKey);
  if (fields.every((f) => namesByEquality(filter, f))) return undefined;
  if (!opts.upsert && !op.startsWith('findOneAnd') && namesByEquality(filter, '_id')) return undefined;
  return `${op} on ${collection} must name its shard key ${JSON.stringify(shardKey)}${opts.upsert || op.startsWith('findOneAnd') ? '' : ' or _id'} by equality (filter: ${Object.keys(filter).join(', ') || 'none'})`;
}

/** A write a sharded cluster could not route: a programming error, raised before the write is sent. */
export class UnroutedWriteError extends Error {}

const SINGLE_DOCUMENT_WRITES = ['updateOne', 'replaceOne', 'deleteOne', 'findOneAndUpdate', 'findOneAndReplace', 'findOneAndDelete'] as const;
type AnyQuery = Query<unknown, unknown> & { model: Model<unknown> };

/** Refuses, on every database, the single-document writes a sharded cluster could not route. */
export function guardShardKeyWrites(schema: Schema, collection: string): void {
  if (!shardKeyOf(collection)) return;
  for (const op of SINGLE_DOCUMENT_WRITES) {
    schema.pre(op, { document: false, query: true }, function (this: AnyQuery) {
      const problem = unroutedWriteProblem(collection, op, this.getFilter() as Record<string, unknown>, { upsert: !!this.getOptions().upsert });
      if (problem) throw new UnroutedWriteError(problem);
    });
  }
  schema.pre('bulkWrite', function (ops: unknown) {
    for (const raw of (ops as Array<Record<string, { filter?: Record<string, unknown>; upsert?: boolean }>>) ?? []) {
      const [op, spec] = Object.entries(raw)[0] ?? [];
      if (!op || !spec || !['updateOne', 'replaceOne', 'deleteOne'].includes(op)) continue;
      const problem = unroutedWriteProblem(collection, op, spec.filter ?? {}, { upsert: !!spec.upsert });
      if (problem) throw new UnroutedWriteError(problem);
    }
  });
}
