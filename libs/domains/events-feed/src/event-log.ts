/**
 * The events feed: every event of an account (its sales' changes, and the events other domains
 * add through the event-source port, ./event-sources.ts: payouts paid or failed...) in one ordered
 * log, read from a cursor that resumes exactly after the last event seen.
 *
 * A status change pushes its event into the conversion and flags it (`log_pending`) in one
 * update (./lifecycle.ts); a source's row gets its event and its mark in the write that changes it.
 * Appending moves flagged events into `sale_events`, numbering them
 * 1, 2, 3... per account. Only the holder of the account's lease (`event_log_heads`) appends, and
 * each append is one ordered insert numbered from the last stored number, checked by the unique
 * `{publisher_id, seq}` index: numbers are contiguous and never reused. An event joins the log
 * once it is committed, so a reader that has seen number n has seen every event numbered up to
 * n, and every later event gets a number above n: nothing is skipped, nothing repeated, whatever
 * the instance or the concurrency of the changes. Appends run before every feed read and stream
 * poll (for that account) and in the worker's pass (for every account), so an event reaches the
 * log within a poll of its change; a crash between the insert and the flag's clearing is
 * repaired by the next append (events already logged are recognised by id).
 */
import type { Policy } from '@cw/auth';
import { ApiError } from '@cw/errors';
import type { ConversionRecord } from '@cw/conversions';
import { saleEventBody } from './sale-events';
import type { EventSource, PendingRow } from './event-sources';
import type { FeedEventBody } from './event-types';
import { withAccountLease } from './account-lease';
import { behindEveryConsumer, lowestCheckpoint } from './consumers';
import { own, type EventsFeedDeps } from './deps';
import { CacheNamespace, type CacheSpec } from '@cw/cache';

/** Publisher API keys of every kind but demo (403), on the reporting budget. */
export const EVENTS_POLICY: Policy = { budget: 'reporting', scope: 'reports:read' };

/** How long an append may hold an account's log; an append takes milliseconds. */
const LEASE_MS = 10_000;
/** Conversions read per append step. */
const BATCH = 200;

type Deps = Pick<EventsFeedDeps, 'data'>;

interface LoggedEvent {
  _id: string;
  publisher_id: string;
  seq: number;
  type: string;
  body: string;
}

/** The account has events not yet in its log: sale events flagged on conversions, or a source's marked rows. */
async function hasPending(deps: Deps, publisherId: string): Promise<boolean> {
  if (await own(deps).Conversion.exists({ log_pending: true, publisher_id: publisherId })) return true;
  for (const source of deps.data.eventsFeed.eventSources()) if (await source.hasPending(publisherId)) return true;
  return false;
}

/**
 * Appends the account's events not yet in its log. Returns how many it appended; 0 also when
 * another process holds the account's lease (that process appends them).
 */
export async function appendAccountEvents(deps: Deps, publisherId: string): Promise<number> {
  if (!(await hasPending(deps, publisherId))) return 0;
  const appended = await withAccountLease(deps, publisherId, 'log', LEASE_MS, async (lease) => {
    let n = 0;
    for (;;) {
      const step = await appendStep(deps, publisherId);
      n += step.appended;
      // A long append (a backfill) renews its lease between steps; one it lost, it stops.
      if (!step.more || !(await lease.renew())) return n;
    }
  });
  return appended ?? 0;
}

interface FreshEvent {
  _id: string;
  type: string;
  conversion_id?: string;
  traceparent?: string;
  body: () => string;
  created_at: Date;
}

async function appendStep(deps: Deps, publisherId: string): Promise<{ appended: number; more: boolean }> {
  const rows = await own(deps).Conversion.find({ log_pending: true, publisher_id: publisherId }).limit(BATCH).lean<ConversionRecord[]>();
  // Other domains' marked rows (../event-sources.ts), read in the same step so they are numbered together.
  const sourced: Array<{ source: EventSource; rows: PendingRow[] }> = [];
  for (const source of deps.data.eventsFeed.eventSources()) {
    const pending = await source.pending(publisherId, BATCH);
    if (pending.length) sourced.push({ source, rows: pending });
  }
  if (!rows.length && !sourced.length) return { appended: 0, more: false };
  const ids = [...rows.flatMap((c) => c.events.map((e) => e._id)), ...sourced.flatMap((s) => s.rows.flatMap((r) => r.events.map((e) => e.id)))];
  const logged = new Set(
    (
      await own(deps)
        .SaleEvent.find({ publisher_id: publisherId, _id: { $in: ids } }, { _id: 1 })
        .lean()
    ).map((e) => String(e._id)),
  );
  const names = rows.length
    ? await deps.data.programs.merchantNames(rows.flatMap((c) => (c.campaign_id !== undefined && c.campaign_id !== null ? [c.campaign_id] : [])))
    : new Map<number, string>();
  const fresh: FreshEvent[] = [
    ...rows.flatMap((c) =>
      c.events
        .filter((e) => !logged.has(e._id))
        .map((e) => ({
          _id: e._id,
          type: e.type,
          conversion_id: c._id,
          ...(e.traceparent ? { traceparent: e.traceparent } : {}),
          body: () => JSON.stringify(saleEventBody(c, e, c.campaign_id !== undefined ? names.get(c.campaign_id) : undefined)),
          created_at: e.created_at,
        })),
    ),
    ...sourced.flatMap((s) =>
      s.rows.flatMap((r) =>
        r.events.filter((e) => !logged.has(e.id)).map((e) => ({ _id: e.id, type: e.type, body: () => JSON.stringify(e.body), created_at: e.created_at })),
      ),
    ),
  ].sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a._id < b._id ? -1 : 1));
  if (fresh.length) {
    // Numbered after the newest event stored and the head's last number: once every event is
    // pruned the head still knows it, so a cursor held from before sees what comes next.
    const last = await own(deps).SaleEvent.findOne({ publisher_id: publisherId }, { seq: 1 }).sort({ seq: -1 }).lean<{ seq: number }>();
    const head = await own(deps).EventLogHead.findById(publisherId, { last_seq: 1 }).lean<{ last_seq?: number }>();
    const loggedAt = new Date();
    let seq = Math.max(last?.seq ?? 0, head?.last_seq ?? 0);
    await own(deps).SaleEvent.insertMany(
      fresh.map((e) => ({
        _id: e._id,
        publisher_id: publisherId,
        seq: ++seq,
        type: e.type,
        ...(e.conversion_id !== undefined ? { conversion_id: e.conversion_id } : {}),
        ...(e.traceparent !== undefined ? { traceparent: e.traceparent } : {}),
        body: e.body(),
        created_at: e.created_at,
        logged_at: loggedAt,
      })),
      { ordered: true },
    );
    // After the insert: a consumer that cleared its mark before this saw these events, or sees the mark again.
    await own(deps).EventLogHead.updateOne({ _id: publisherId }, { $max: { last_seq: seq }, $set: behindEveryConsumer() });
  }
  // Cleared only where no event was pushed since the read (the array has the length we saw).
  if (rows.length)
    await own(deps).Conversion.bulkWrite(
      rows.map((c) => ({ updateOne: { filter: { _id: c._id, events: { $size: c.events.length } }, update: { $unset: { log_pending: '' } } } })),
      { ordered: false },
    );
  for (const s of sourced) await s.source.clear(publisherId, s.rows);
  return { appended: fresh.length, more: rows.length === BATCH || sourced.some((s) => s.rows.length >= BATCH) };
}

/** Every account with events not yet logged gets them appended (the worker's pass). */
export async function appendPendingEvents(deps: Deps, opts: { accounts?: number } = {}): Promise<number> {
  const limit = opts.accounts ?? 1000;
  const found = new Set((await own(deps).Conversion.distinct('publisher_id', { log_pending: true })).slice(0, limit) as string[]);
  for (const source of deps.data.eventsFeed.eventSources()) for (const account of await source.pendingAccounts(limit)) found.add(account);
  const accounts = [...found].slice(0, limit);
  // Workers running this side by side start on different accounts (one holding an account's lease skips it for the others).
  for (let i = accounts.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [accounts[i], accounts[j]] = [accounts[j]!, accounts[i]!];
  }
  let appended = 0;
  for (const account of accounts) appended += await appendAccountEvents(deps, account);
  return appended;
}

const CURSOR_PREFIX = 'evc1_';

/** The cursor after event `seq` of the account: opaque to clients. */
export const eventCursor = (publisherId: string, seq: number) => `${CURSOR_PREFIX}${Buffer.from(`${publisherId}\u0000${seq}`).toString('base64url')}`;

const invalidCursor = (detail: string) =>
  new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter 'cursor': ${detail}.`, errors: [{ param: 'cursor', detail }] });

function seqOf(cursor: string, publisherId: string): number {
  const invalid = invalidCursor;
  if (!cursor.startsWith(CURSOR_PREFIX)) throw invalid('not a cursor of the events feed (pass next_cursor or an event stream id as given)');
  const [account, seq, ...rest] = Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString().split('\u0000');
  if (rest.length || !seq || !/^(0|[1-9][0-9]{0,15})$/.test(seq))
    throw invalid('not a cursor of the events feed (pass next_cursor or an event stream id as given)');
  if (account !== publisherId) throw invalid("a cursor of another account's feed");
  return Number(seq);
}

/**
 * The cursor after the account's newest event (its pending events appended first): a client that
 * wants only what happens from now on (a live page) opens the stream from it.
 */
export async function latestEventCursor(deps: Deps, publisherId: string): Promise<string> {
  await appendAccountEvents(deps, publisherId);
  const last = await own(deps).SaleEvent.findOne({ publisher_id: publisherId }, { seq: 1 }).sort({ seq: -1 }).lean<{ seq: number }>();
  return eventCursor(publisherId, last?.seq ?? 0);
}

/** The number after which a cursor of this account's feed resumes (0: from the start); 400 if it is not one. */
export const cursorSeq = (cursor: string | undefined, publisherId: string): number => (cursor ? seqOf(cursor, publisherId) : 0);

export interface TailEvent {
  seq: number;
  type: string;
  body: string;
}

/**
 * The newest events of each account with open streams, kept in this process: refreshed at most
 * once per `maxAgeMs` by whichever stream polls first (its pending events appended, then only
 * what is newer than the last refresh is read), so idle streams cost one query per account per
 * poll interval and a change reaches every stream of the account without a query per stream.
 */
interface Tail {
  at: number;
  /** The newest number seen; -1 before the first refresh. */
  latest: number;
  /** Contiguous, ending at `latest`; at most TAIL_MAX. */
  entries: TailEvent[];
  refreshing?: Promise<void>;
}
const TAIL_MAX = 1000;

/** The tails' namespace (docs/decisions/0045-one-cache-abstraction.md): a tail's own freshness is the polling streams' `maxAgeMs`. */
export const EVENT_TAILS_CACHE: CacheSpec = {
  name: 'eventsFeed.tails',
  keeps: 'The newest events (up to 1,000) of each account with open event streams, by account',
  maxEntries: 10_000,
  freshMs: Infinity,
  invalidation: 'Refreshed in place at most once per `EVENTS_POLL_MS` by the first stream that polls; the least recently polled account leaves first.',
};

/** The tails of the accounts with open streams in this process (`deps.caches.eventTails`). */
export class EventTails {
  readonly byAccount = new CacheNamespace<string, Tail>(EVENT_TAILS_CACHE);
}

async function refreshTail(deps: Deps, publisherId: string, t: Tail): Promise<void> {
  await appendAccountEvents(deps, publisherId);
  if (t.latest < 0) {
    t.latest = (await own(deps).SaleEvent.findOne({ publisher_id: publisherId }, { seq: 1 }).sort({ seq: -1 }).lean<{ seq: number }>())?.seq ?? 0;
  } else {
    const rows = await own(deps)
      .SaleEvent.find({ publisher_id: publisherId, seq: { $gt: t.latest } }, { _id: 0, seq: 1, type: 1, body: 1 })
      .sort({ seq: 1 })
      .limit(TAIL_MAX)
      .lean<TailEvent[]>();
    if (rows.length) {
      // Not contiguous with what is kept (a prune, or more news than fits): keep only the new rows.
      t.entries = rows[0]!.seq === t.latest + 1 ? [...t.entries, ...rows].slice(-TAIL_MAX) : rows;
      t.latest = rows.at(-1)!.seq;
    }
  }
  t.at = Date.now();
}

/**
 * The account's events after `afterSeq` from this process's tail: [] when nothing is newer, null
 * when the cursor is older than the tail (read the log instead).
 */
export async function tailAfter(
  deps: Deps & { caches: { eventTails: EventTails } },
  publisherId: string,
  afterSeq: number,
  maxAgeMs: number,
): Promise<TailEvent[] | null> {
  const tails = deps.caches.eventTails.byAccount;
  let t = tails.get(publisherId);
  if (!t) tails.set(publisherId, (t = { at: 0, latest: -1, entries: [] }));
  if (Date.now() - t.at >= maxAgeMs) {
    const tail = t;
    tail.refreshing ??= refreshTail(deps, publisherId, tail).finally(() => (tail.refreshing = undefined));
    await tail.refreshing;
  }
  if (afterSeq >= t.latest) return [];
  const first = t.entries[0]?.seq ?? t.latest + 1;
  if (afterSeq + 1 < first) return null;
  return t.entries.slice(afterSeq + 1 - first);
}

export const EVENTS_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    cursor: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'Resume after the event this cursor names (`next_cursor`, or a stream event id); absent: from the first event.',
    },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
  },
} as const;

export interface EventsPage {
  data: FeedEventBody[];
  next_cursor: string;
  has_more: boolean;
}

export interface LoggedPage {
  events: Array<{ type: string; body: string; cursor: string }>;
  next_cursor: string;
  has_more: boolean;
}

/** What one reader sees of the log: the types hidden from it (./event-visibility.ts `hiddenEventTypes`). */
export interface EventsView {
  hidden?: readonly string[];
}

/**
 * The account's events after `cursor`, oldest first, as stored JSON with each one's cursor.
 * `next_cursor` is always set (the last event's, or the given one when there is nothing new), so
 * a poller keeps it and asks again. A cursor before the oldest event kept (pruned) answers 410.
 * Events of types `view.hidden` names are skipped (their numbers too: the cursor moves past them).
 */
export async function readEventLog(deps: Deps, publisherId: string, input: { cursor?: string; limit?: number }, view: EventsView = {}): Promise<LoggedPage> {
  const after = input.cursor ? seqOf(input.cursor, publisherId) : 0;
  const limit = input.limit ?? 100;
  const hidden = view.hidden?.length ? [...view.hidden] : undefined;
  await appendAccountEvents(deps, publisherId);
  // The head first: its number is set after the events it counts, so it never runs ahead of them.
  const lastSeq =
    after > 0 || hidden ? ((await own(deps).EventLogHead.findById(publisherId, { last_seq: 1 }).lean<{ last_seq?: number }>())?.last_seq ?? 0) : 0;
  if (after > lastSeq) throw invalidCursor("past the account's last event");
  const rows = await own(deps)
    .SaleEvent.find({ publisher_id: publisherId, seq: { $gt: after }, ...(hidden ? { type: { $nin: hidden } } : {}) }, { seq: 1, type: 1, body: 1 })
    .sort({ seq: 1 })
    .limit(limit + 1)
    .lean<LoggedEvent[]>();
  // The next event after the cursor is gone (or, with nothing left, every one it had seen the head count).
  const next = hidden
    ? ((
        await own(deps)
          .SaleEvent.findOne({ publisher_id: publisherId, seq: { $gt: after } }, { seq: 1 })
          .sort({ seq: 1 })
          .lean<{ seq: number }>()
      )?.seq ?? null)
    : (rows[0]?.seq ?? null);
  if ((next !== null && next !== after + 1) || (next === null && after < lastSeq)) {
    throw new ApiError({
      code: 'cursor_expired',
      detail: 'The events after this cursor are no longer kept; list from the start (no cursor) and reconcile with /conversions/.',
    });
  }
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const hasMore = rows.length > limit;
  // Hiding events: with nothing more to show, the cursor moves to the head (every event up to it was read).
  const through = hidden && !hasMore ? Math.max(last?.seq ?? after, lastSeq) : last?.seq;
  return {
    events: page.map((r) => ({ type: r.type, body: r.body, cursor: eventCursor(publisherId, r.seq) })),
    next_cursor: through !== undefined && through > after ? eventCursor(publisherId, through) : (input.cursor ?? eventCursor(publisherId, 0)),
    has_more: hasMore,
  };
}

/** GET /events/: a page of the account's events after the cursor (those `view` hides left out). */
export async function listEvents(deps: Deps, publisherId: string, input: { cursor?: string; limit?: number }, view: EventsView = {}): Promise<EventsPage> {
  const page = await readEventLog(deps, publisherId, input, view);
  return { data: page.events.map((e) => JSON.parse(e.body) as FeedEventBody), next_cursor: page.next_cursor, has_more: page.has_more };
}

/**
 * Removes events logged before `before` (every account) that every consumer of the log (the
 * ledger, postbacks: ./consumers.ts) has read; a cursor older than what is left answers 410.
 */
export async function pruneEvents(deps: Pick<EventsFeedDeps, 'data'>, before: Date): Promise<number> {
  const accounts = (await own(deps).SaleEvent.distinct('publisher_id', { logged_at: { $lt: before } })) as string[];
  let removed = 0;
  for (const publisherId of accounts) {
    const read = await lowestCheckpoint(deps, publisherId);
    removed += (await own(deps).SaleEvent.deleteMany({ publisher_id: publisherId, logged_at: { $lt: before }, seq: { $lte: read } })).deletedCount ?? 0;
  }
  return removed;
}
