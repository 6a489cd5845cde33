/**
 * The events log's consumers: each one reads every account's events in log order from its own
 * checkpoint (`event_log_heads.consumed.<name>`), so it needs no flag on the conversion and no
 * write path knows it exists. An append marks the account behind for every consumer
 * (`behind.<name>`); the consumer's pass reads only accounts so marked, handles their events, and
 * moves its checkpoint; the mark is cleared only when the checkpoint reached the log's head, so
 * an event appended meanwhile is never missed. A consumer's handling must be idempotent per event
 * (a crash after handling and before the checkpoint moved handles those events again).
 *
 * Adding a consumer: its name here, and its partial index on `behind.<name>` in the schema. A
 * consumer added after accounts already had logs starts from their first event on the account's
 * next append; one that needs nothing logged before it existed is listed in FROM_ITS_START, so an
 * account it was never behind on does not keep its old events from `events:prune`.
 *
 * - `ledger`: books approvals and reversals (@cw/ledger).
 * - `stats`: moves each conversion a sale event is about from the state the stats read model counts
 *   it in to its current state (@cw/stats `countAccountChanges`); the write path runs it for the
 *   written account right after the change, the worker's pass for the rest.
 * - `postbacks`: turns every event (sale events, `payout.*`…) into postback deliveries
 *   (@cw/postbacks `deliverLoggedEvents`).
 */
import { own, type EventsFeedDeps } from './deps';

export const EVENT_CONSUMERS = ['ledger', 'postbacks', 'stats'] as const;
export type EventConsumer = (typeof EVENT_CONSUMERS)[number];

/**
 * Consumers that need only events appended since they were added (postbacks: no payout event was
 * logged before them; stats: every change before it was counted through the conversions' own flag,
 * which the migration drained): where such a consumer is not behind, it has read everything it needs.
 */
const FROM_ITS_START: readonly EventConsumer[] = ['postbacks', 'stats'];

/** The log and its heads (and the conversions, for events not logged yet). */
type Deps = { data: Pick<EventsFeedDeps['data'], 'conversions' | 'eventsFeed'> };

export interface ConsumedEvent {
  seq: number;
  type: string;
  /** The event as logged (the postback body, JSON). */
  body: string;
  /** Sale events logged since the log kept it: their conversion (else read from the body's `conversion.id`). */
  conversion_id?: string;
  /** Sale events made with tracing on: the traceparent of the request that made them. */
  traceparent?: string;
}

interface Head {
  _id: string;
  last_seq?: number;
  consumed?: Record<string, number>;
  behind?: Record<string, boolean>;
}

/** The `$set` an append adds to the account's head: every consumer is behind. */
export const behindEveryConsumer = (): Record<string, true> => Object.fromEntries(EVENT_CONSUMERS.map((c) => [`behind.${c}`, true]));

/** The consumer's checkpoint on the account (0: it has read nothing). */
export async function consumerCheckpoint(deps: Deps, consumer: EventConsumer, publisherId: string): Promise<number> {
  const head = await own(deps).EventLogHead.findById(publisherId, { consumed: 1 }).lean<Head>();
  return head?.consumed?.[consumer] ?? 0;
}

/** Accounts whose log has events the consumer has not read (at most `limit`). */
export async function accountsBehind(deps: Deps, consumer: EventConsumer, limit = 1000): Promise<string[]> {
  const rows = await own(deps)
    .EventLogHead.find({ [`behind.${consumer}`]: true }, { _id: 1 })
    .limit(limit)
    .lean<Array<{ _id: string }>>();
  return rows.map((r) => r._id);
}

/**
 * Reads the account's events after the consumer's checkpoint, hands them to `handle` in batches in
 * log order, and moves the checkpoint after each batch. Returns how many it handled. With `except`,
 * events whose type matches it are skipped by the query (never handed over, never counted) and the
 * checkpoint still moves past them.
 */
export async function consumeAccountEvents(
  deps: Deps,
  consumer: EventConsumer,
  publisherId: string,
  handle: (events: ConsumedEvent[]) => Promise<void>,
  opts: { batch?: number; except?: RegExp } = {},
): Promise<number> {
  const batch = opts.batch ?? 500;
  let after = await consumerCheckpoint(deps, consumer, publisherId);
  // Skipping types: read up to the head as it is now (the head's number is set after the events it counts).
  const head = opts.except ? ((await own(deps).EventLogHead.findById(publisherId, { last_seq: 1 }).lean<Head>())?.last_seq ?? 0) : Infinity;
  let handled = 0;
  for (;;) {
    const seq = opts.except ? { $gt: after, $lte: head } : { $gt: after };
    const events = await own(deps)
      .SaleEvent.find(
        { publisher_id: publisherId, seq, ...(opts.except ? { type: { $not: opts.except } } : {}) },
        { _id: 0, seq: 1, type: 1, body: 1, conversion_id: 1, traceparent: 1 },
      )
      .sort({ seq: 1 })
      .limit(batch)
      .lean<ConsumedEvent[]>();
    if (events.length) {
      await handle(events);
      handled += events.length;
    }
    const through = events.length < batch && opts.except ? Math.max(after, head) : (events.at(-1)?.seq ?? after);
    if (through > after) {
      after = through;
      await own(deps).EventLogHead.updateOne({ _id: publisherId }, { $max: { [`consumed.${consumer}`]: after } });
    }
    if (events.length < batch) break;
  }
  // Caught up: clear the mark unless an append moved the head past what was read.
  await own(deps).EventLogHead.updateOne(
    { _id: publisherId, $or: [{ last_seq: { $lte: after } }, { last_seq: { $exists: false } }] },
    { $unset: { [`behind.${consumer}`]: '' } },
  );
  return handled;
}

/**
 * At most `limit` of the account's events after the consumer's checkpoint, in log order, and that
 * checkpoint: for a consumer that moves its checkpoint itself (`moveCheckpoint`), between steps of
 * its own (stats: a transaction stored, then applied).
 */
export async function eventsAfterCheckpoint(
  deps: Deps,
  consumer: EventConsumer,
  publisherId: string,
  limit: number,
): Promise<{ after: number; events: ConsumedEvent[] }> {
  const after = await consumerCheckpoint(deps, consumer, publisherId);
  const events = await own(deps)
    .SaleEvent.find({ publisher_id: publisherId, seq: { $gt: after } }, { _id: 0, seq: 1, type: 1, body: 1, conversion_id: 1, traceparent: 1 })
    .sort({ seq: 1 })
    .limit(limit)
    .lean<ConsumedEvent[]>();
  return { after, events };
}

/**
 * Moves the consumer's checkpoint to `through` (never back); `caughtUp` (nothing after it was
 * found): clears the account's mark unless an append moved the head past it.
 */
export async function moveCheckpoint(deps: Deps, consumer: EventConsumer, publisherId: string, through: number, caughtUp: boolean): Promise<void> {
  if (through > 0) await own(deps).EventLogHead.updateOne({ _id: publisherId }, { $max: { [`consumed.${consumer}`]: through } });
  if (caughtUp)
    await own(deps).EventLogHead.updateOne(
      { _id: publisherId, $or: [{ last_seq: { $lte: through } }, { last_seq: { $exists: false } }] },
      { $unset: { [`behind.${consumer}`]: '' } },
    );
}

/**
 * When the oldest event of the account's conversions that the consumer has not read was made (null:
 * none): of those logged after its checkpoint, and of those still waiting to be logged (pushed on a
 * conversion flagged `log_pending`, not in the log yet). Reads only; no lease.
 */
export async function oldestUnreadSaleEvent(deps: Deps, consumer: EventConsumer, publisherId: string): Promise<Date | null> {
  const after = await consumerCheckpoint(deps, consumer, publisherId);
  const [logged] = await own(deps).SaleEvent.aggregate<{ at: Date | null }>([
    { $match: { publisher_id: publisherId, seq: { $gt: after }, type: /^sale\./ } },
    { $group: { _id: null, at: { $min: '$created_at' } } },
  ]);
  const waiting = await own(deps)
    .Conversion.find({ log_pending: true, publisher_id: publisherId }, { 'events._id': 1, 'events.created_at': 1 })
    .lean<Array<{ events: Array<{ _id: string; created_at: Date }> }>>();
  let oldest = logged?.at ? new Date(logged.at) : null;
  const unlogged = waiting.flatMap((c) => c.events);
  if (unlogged.length) {
    const inLog = new Set(
      (
        await own(deps)
          .SaleEvent.find({ publisher_id: publisherId, _id: { $in: unlogged.map((e) => e._id) } }, { _id: 1 })
          .lean()
      ).map((e) => String(e._id)),
    );
    for (const e of unlogged) if (!inLog.has(e._id) && (!oldest || e.created_at < oldest)) oldest = new Date(e.created_at);
  }
  return oldest;
}

/** The lowest checkpoint of any consumer on the account: events after it are still needed. */
export async function lowestCheckpoint(deps: Deps, publisherId: string): Promise<number> {
  const head = await own(deps).EventLogHead.findById(publisherId, { consumed: 1, behind: 1, last_seq: 1 }).lean<Head>();
  return Math.min(
    ...EVENT_CONSUMERS.map((c) =>
      FROM_ITS_START.includes(c) && !head?.behind?.[c] ? Math.max(head?.consumed?.[c] ?? 0, head?.last_seq ?? 0) : (head?.consumed?.[c] ?? 0),
    ),
  );
}
