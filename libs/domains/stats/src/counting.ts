/**
 * Keeping the stats read model current: conversion changes (per account, serially, under the
 * account's stats lease) and clicks (tracker batches, counted by the worker several at a time).
 * Both go through ./writer.ts, so each change is counted exactly once across retries and crashes.
 *
 * Conversion changes are read from the events log (@cw/events-feed), as one of its consumers
 * (checkpoint `stats`): no write path flags a conversion for the stats. A batch of the account's
 * sale events after the checkpoint names conversions; the applier moves each from the state it
 * is counted in (`stats_key`) to its current state (a conversion already counted in its current
 * state moves nothing, so an event read twice counts nothing twice), one transaction per batch,
 * then moves the checkpoint. Network bookings (`source: ledger`, approved at once, no sale event)
 * are the conversions without a `stats_key` among them (their own partial index). It runs right
 * after the write (`countWrittenChanges`, the lifecycle's port: the account's events appended,
 * then counted) and in the worker's pass for what is left (`countPendingChanges`); never on a read
 * (docs/decisions/0046-stats-read-contract.md, 0070-sale-event-consumers.md).
 */
import type { ClickCount, ClickRow } from '@cw/links';
import { Increments, QUARTER_MS, stateKey, type Attribution, type ConversionFacts } from './cells';
import { applyIncrements, closeTxn, newTxnId, storedIncs, TXN_LEASE_MS } from './writer';
import {
  accountsBehind,
  appendAccountEvents,
  appendPendingEvents,
  eventsAfterCheckpoint,
  moveCheckpoint,
  withAccountLease,
  type ConsumedEvent,
} from '@cw/events-feed';
import { own, type StatsDeps } from './deps';
import { buildPendingRollups } from './rollups';

type Deps = Pick<StatsDeps, 'data'>;

const ACCOUNT_LEASE_MS = 10_000;
/** Events read per step (a step's transaction holds at most this many conversions). */
const BATCH = 1000;

/** Network bookings the read model has not counted yet (the partial index on `source: ledger`). */
const UNCOUNTED_BOOKINGS = { source: 'ledger', stats_key: { $exists: false } } as const;

interface PendingConversion {
  _id: string;
  publisher_id: string;
  link_id?: string | null;
  program_id?: number | null;
  campaign_id?: number | null;
  subid?: string | null;
  status: ConversionFacts['status'];
  paid?: boolean;
  source?: 'v1' | 'ledger';
  currency: string;
  sale_amount: { toString(): string };
  commission: { toString(): string };
  occurred_at: Date;
  stats_key?: string;
}

interface TxnConversion {
  id: string;
  key: string;
  status: string;
  paid: boolean;
}

const attributionOf = (c: PendingConversion): Attribution => ({
  publisher_id: c.publisher_id,
  program_id: c.program_id ?? null,
  campaign_id: c.campaign_id ?? null,
  subid: c.subid ?? '',
  link_id: c.link_id ?? null,
});

const factsIn = (c: PendingConversion, key: string): ConversionFacts => {
  const [status, paid] = key.split('_');
  return {
    status: status as ConversionFacts['status'],
    paid: paid === '1',
    source: c.source ?? 'v1',
    currency: c.currency,
    sale_amount: c.sale_amount.toString(),
    commission: c.commission.toString(),
  };
};

/** Adds to `incs` the move of a conversion from one counted state to another (null: not counted). */
export function moveConversion(incs: Increments, c: PendingConversion, from: string | null, to: string | null): void {
  if (from === to) return;
  const at = c.occurred_at.getTime();
  if (from) incs.conversion(attributionOf(c), at, factsIn(c, from), -1);
  if (to) incs.conversion(attributionOf(c), at, factsIn(c, to), 1);
}

/** Marks the conversions counted in their transaction's states and ends the transaction. */
export async function finishConversions(deps: Deps, txnId: string, conversions: TxnConversion[], incs: ReturnType<typeof storedIncs>) {
  await applyIncrements(deps, txnId, incs);
  if (conversions.length) {
    // A change made since the read has its own event after this batch's: the next step moves it on.
    await own(deps).Conversion.bulkWrite(conversions.map((c) => ({ updateOne: { filter: { _id: c.id }, update: { $set: { stats_key: c.key } } } })) as never, {
      ordered: false,
    });
  }
  await closeTxn(deps, txnId, incs);
}

/** Finishes the account's conversion transactions a crashed applier left. */
export async function recoverAccount(deps: Deps, publisherId: string): Promise<void> {
  const left = await own(deps)
    .StatTxn.find({ publisher_id: publisherId, kind: 'conversions' })
    .lean<Array<{ _id: string; incs: ReturnType<typeof storedIncs>; conversions: TxnConversion[] }>>();
  for (const t of left) await finishConversions(deps, t._id, t.conversions, t.incs);
}

/** A stored transaction of conversion changes, not applied yet, and where the stats checkpoint moves once it is. */
export interface PreparedCount {
  txnId: string;
  conversions: TxnConversion[];
  incs: ReturnType<typeof storedIncs>;
  /** The last event this batch read (the checkpoint's next place). */
  through: number;
  /** Fewer events than a batch were left: the account is caught up once this one is applied. */
  caughtUp: boolean;
}

/** The conversion a logged event is about (none: not a sale event). */
function conversionOf(e: ConsumedEvent): string | undefined {
  if (e.conversion_id) return e.conversion_id;
  if (!e.type.startsWith('sale.')) return undefined;
  return (JSON.parse(e.body) as { conversion?: { id?: string } }).conversion?.id;
}

/** What counting reads of a conversion (its attribution, state and amounts). */
export const COUNTED_FIELDS = {
  publisher_id: 1,
  link_id: 1,
  program_id: 1,
  campaign_id: 1,
  subid: 1,
  status: 1,
  paid: 1,
  source: 1,
  currency: 1,
  sale_amount: 1,
  commission: 1,
  occurred_at: 1,
  stats_key: 1,
} as const;

/**
 * Reads a batch of the account's events after the stats checkpoint, and its network bookings not
 * counted yet, and stores the transaction that moves their conversions to their current states
 * (step one of counting them). Null when there is nothing to move (`through`: where the
 * checkpoint may go all the same).
 */
export async function prepareCount(deps: Deps, publisherId: string): Promise<PreparedCount | null> {
  const { after, events } = await eventsAfterCheckpoint(deps, 'stats', publisherId, BATCH);
  const through = events.at(-1)?.seq ?? after;
  const ids = [...new Set(events.flatMap((e) => conversionOf(e) ?? []))];
  const bookings = await own(deps)
    .Conversion.find({ ...UNCOUNTED_BOOKINGS, publisher_id: publisherId }, COUNTED_FIELDS)
    .limit(BATCH)
    .lean<PendingConversion[]>();
  const named = ids.length
    ? await own(deps)
        .Conversion.find({ _id: { $in: ids }, publisher_id: publisherId }, COUNTED_FIELDS)
        .lean<PendingConversion[]>()
    : [];
  const rows = [...named, ...bookings];
  const caughtUp = events.length < BATCH && bookings.length < BATCH;
  // Already counted in their current state: nothing to store (the checkpoint moves past their events).
  const moving = rows.filter((c) => c.stats_key !== stateKey(c));
  if (!moving.length) {
    if (through > after) await moveCheckpoint(deps, 'stats', publisherId, through, false);
    return null;
  }
  return { ...(await storeMoves(deps, publisherId, moving)), through, caughtUp };
}

/** Stores the transaction that moves these conversions from their counted states to their current ones. */
async function storeMoves(deps: Deps, publisherId: string, moving: PendingConversion[]): Promise<Omit<PreparedCount, 'through' | 'caughtUp'>> {
  const incs = new Increments();
  const conversions: TxnConversion[] = moving.map((c) => {
    const key = stateKey(c);
    moveConversion(incs, c, c.stats_key ?? null, key);
    return { id: c._id, key, status: c.status, paid: !!c.paid };
  });
  const stored = storedIncs(incs.nonZero());
  const txnId = newTxnId();
  const now = new Date();
  await own(deps).StatTxn.create({
    _id: txnId,
    kind: 'conversions',
    publisher_id: publisherId,
    incs: stored,
    conversions,
    lease_until: new Date(now.getTime() + TXN_LEASE_MS),
    created_at: now,
  });
  return { txnId, conversions, incs: stored };
}

/** One batch counted: its transaction stored and applied, then the checkpoint moved past its events. */
async function countStep(deps: Deps, publisherId: string): Promise<{ counted: number; more: boolean }> {
  const prepared = await prepareCount(deps, publisherId);
  if (!prepared) {
    // Nothing to move (or only events of conversions counted in their current state): caught up when none is left.
    const { after, events } = await eventsAfterCheckpoint(deps, 'stats', publisherId, 1);
    if (!events.length) await moveCheckpoint(deps, 'stats', publisherId, after, true);
    return { counted: 0, more: events.length > 0 };
  }
  await finishConversions(deps, prepared.txnId, prepared.conversions, prepared.incs);
  await moveCheckpoint(deps, 'stats', publisherId, prepared.through, prepared.caughtUp);
  return { counted: prepared.conversions.length, more: !prepared.caughtUp };
}

/**
 * How long a write waits for the account's stats lease when another process holds it (the worker,
 * or another write of the account, counting): that holder usually counts this write's change
 * meanwhile, and the write then finds nothing left. After that the change is left to the holder
 * (which looks again after it lets go) or the worker's pass.
 */
const WRITE_WAIT_MS = 500;

/**
 * Counts the account's pending conversion changes under its stats lease (finishing first what a
 * dead applier left). Returns how many conversions it counted. `batches` bounds the work (a write
 * counts one batch of a thousand events; a bigger backlog is the worker's); `waitMs` is how long it waits for a
 * lease another process holds (0: at once none, that holder counts them). A holder that counted
 * everything looks again after letting go: a write that found the lease held meanwhile left its
 * change to it (docs/decisions/0046-stats-read-contract.md).
 */
export async function countAccountChanges(deps: Deps, publisherId: string, opts: { waitMs?: number; batches?: number } = {}): Promise<number> {
  // The account's changes not in the log yet join it first (the log's own lease; 0 when another process appends them).
  await appendAccountEvents(deps, publisherId);
  let counted = 0;
  for (let round = 0, waitMs = opts.waitMs ?? 0; round < 3; round++, waitMs = 0) {
    const pass = await withAccountLease(
      deps,
      publisherId,
      'stats',
      ACCOUNT_LEASE_MS,
      async (lease) => {
        await recoverAccount(deps, publisherId);
        let n = 0;
        for (let batch = 1; ; batch++) {
          const step = await countStep(deps, publisherId);
          n += step.counted;
          if (!step.more) return { n, drained: true };
          if (batch >= (opts.batches ?? Infinity) || !(await lease.renew())) return { n, drained: false };
        }
      },
      { waitMs },
    );
    if (!pass) return counted; // another holder: its own
    counted += pass.n;
    if (!pass.drained || !(await pendingIn(deps, publisherId))) return counted;
  }
  return counted;
}

/** The account has changes not counted: events after the stats checkpoint, or network bookings. */
async function pendingIn(deps: Deps, publisherId: string): Promise<boolean> {
  if ((await eventsAfterCheckpoint(deps, 'stats', publisherId, 1)).events.length) return true;
  return !!(await own(deps).Conversion.exists({ ...UNCOUNTED_BOOKINGS, publisher_id: publisherId }));
}

/**
 * The write path's counter (the lifecycle's `ConversionCounter`, wired by the composition root):
 * right after a conversion change commits, its account's events are appended to the log and
 * counted, so a report read next shows it. Waits at most WRITE_WAIT_MS for a lease held
 * elsewhere, counts at most one batch; whatever it leaves is the worker's (`countPendingChanges`).
 */
export async function countWrittenChanges(deps: Deps, publisherId: string): Promise<number> {
  return countAccountChanges(deps, publisherId, { waitMs: WRITE_WAIT_MS, batches: 1 });
}

/**
 * The worker's pass: changes appended to the log, every account whose log the stats have not read
 * (or with network bookings not counted, or a transaction whose applier died), the stored click
 * batches, click batches whose writer died, then new roll-up documents.
 */
export async function countPendingChanges(deps: Deps, opts: { accounts?: number } = {}): Promise<number> {
  await appendPendingEvents(deps, opts);
  const limit = opts.accounts ?? 1000;
  const accounts = [
    ...new Set([
      ...(await accountsBehind(deps, 'stats', limit)),
      ...((await own(deps).Conversion.distinct('publisher_id', UNCOUNTED_BOOKINGS)) as string[]),
      ...((await own(deps).StatTxn.distinct('publisher_id', { kind: 'conversions', lease_until: { $lte: new Date() } })) as string[]),
    ]),
  ].slice(0, limit);
  for (let i = accounts.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [accounts[i], accounts[j]] = [accounts[j]!, accounts[i]!];
  }
  let counted = 0;
  for (const a of accounts) counted += await countAccountChanges(deps, a);
  counted += (await countStoredClicks(deps)) + (await recoverClickBatches(deps));
  // Roll-up documents writers created since the last pass, checked against their cells (reads take the cells until then).
  await buildPendingRollups(deps);
  return counted;
}

/**
 * What a batch of stored clicks adds: each click not flagged as a bot, once; `counted`: clicks
 * already counted per target and slot (a batch stored as buckets, `humanClickCounts`). Clicks of one
 * attribution in one quarter hour add to the same cells and slots (a slot is a quarter of a day or
 * a day of a month), so they are counted together: a tracker batch is a few links' clicks, a few
 * groups rather than a thousand clicks' worth of cell lookups.
 */
export function clickIncrements(
  clicks: Array<Pick<ClickRow, 'publisher_id' | 'link_id' | 'program_id' | 'campaign_id' | 'subid' | 'created_at' | 'is_bot'>>,
  counted: ClickCount[] = [],
) {
  const groups = new Map<string, { a: Attribution; at: number; n: number }>();
  const add = (c: Pick<ClickRow, 'publisher_id' | 'link_id' | 'program_id' | 'campaign_id' | 'subid'>, at: number, n: number) => {
    const key = `${c.publisher_id}\u0001${c.program_id ?? '\u0000'}\u0001${c.campaign_id ?? '\u0000'}\u0001${c.subid ?? ''}\u0001${c.link_id ?? '\u0000'}\u0001${Math.floor(at / QUARTER_MS)}`;
    const group = groups.get(key);
    if (group) group.n += n;
    else {
      const a = {
        publisher_id: c.publisher_id,
        program_id: c.program_id ?? null,
        campaign_id: c.campaign_id ?? null,
        subid: c.subid ?? '',
        link_id: c.link_id ?? null,
      };
      groups.set(key, { a, at, n });
    }
  };
  for (const c of clicks) if (!c.is_bot) add(c, new Date(c.created_at).getTime(), 1);
  for (const c of counted) add(c, c.at, c.n);
  const incs = new Increments();
  for (const g of groups.values()) incs.clicks(g.a, g.at, g.n);
  return storedIncs(incs.nonZero());
}

/** A stored click batch's transaction, as counting reads it. */
type ClickTxn = { _id: string; click_ids: string[]; buckets?: boolean };
const CLICK_TXN = { _id: 1, click_ids: 1, buckets: 1 } as const;

/**
 * What these stored click batches add, and how many clicks they hold: a batch stored as buckets is
 * counted from its buckets' columns; one of an earlier version from its clicks, found by id.
 */
async function batchIncrements(deps: Deps, txns: ClickTxn[]) {
  const read = await Promise.all(
    txns.map(async (t) =>
      t.buckets
        ? { rows: [], ...(await deps.data.links.clickCountsOfBatch(t.click_ids, t._id, QUARTER_MS)) }
        : { rows: await deps.data.links.clicksOfBatch(t.click_ids, t._id), counts: [], clicks: 0 },
    ),
  );
  return {
    clicks: read.reduce((n, r) => n + r.clicks + r.rows.length, 0),
    incs: clickIncrements(
      read.flatMap((r) => r.rows),
      read.flatMap((r) => r.counts),
    ),
  };
}

/**
 * Stores a tracker batch of clicks for counting: the transaction (with the ids its stored clicks
 * are found by, its buckets') is stored first, each click carries its id, then the transaction is
 * marked `stored` and the worker counts it (`countStoredClicks`), together with the other batches
 * stored meanwhile. A click an earlier attempt stored is counted by that attempt's transaction
 * (finished by a pass once its lease has passed when its writer died), never twice. The
 * redirect's process only writes; counting a batch costs more than storing it, and many batches
 * counted together share their cells
 * (docs/decisions/0049-clicks-counted-by-the-worker.md). Returns how many it stored, and the
 * transaction.
 */
export async function storeClicks(deps: Deps, clicks: ClickRow[], insert: InsertBatch, ids?: BatchIds): Promise<{ stored: number; txnId?: string }> {
  const batch = await storeBatch(deps, clicks, insert, ids);
  if (!batch) return { stored: 0 };
  await own(deps).StatTxn.collection.updateOne({ _id: batch.txnId as never }, { $set: { stored: true } });
  return { stored: batch.stored.size, txnId: batch.txnId };
}

/**
 * What a batch's transaction names its stored clicks by, for counting and recovery
 * (`clicksOfBatch`): by default the ids of the buckets insertClickRows makes of it; a writer of
 * another layout (one row per click, as versions before the buckets) names every click.
 */
export type BatchIds = (rows: ClickRow[]) => string[];

/**
 * Stores a batch's clicks under the batch's stats transaction `txn`, which it must store with them
 * (`insertClickRows(rows, txn)`): the worker finds the clicks to count by it. The rows do not carry
 * it (a batch of a thousand clicks is not copied to add one field). Answers the indexes of the
 * clicks it stored.
 */
export type InsertBatch = (rows: ClickRow[], txn: string) => Promise<Set<number>>;

/** The transaction (with its buckets' ids, under a lease), then the clicks, stored under it. */
async function storeBatch(deps: Deps, clicks: ClickRow[], insert: InsertBatch, ids?: BatchIds) {
  if (!clicks.length) return undefined;
  const txnId = newTxnId();
  const now = new Date();
  // Through the driver (the document as the schema has it, nothing to cast): once per batch, on the tracker's thread.
  await own(deps).StatTxn.collection.insertOne({
    _id: txnId as never,
    kind: 'clicks',
    // What the batch's stored clicks are found by, for counting and recovery: its buckets' ids.
    click_ids: (ids ?? ((r) => deps.data.links.batchIds(r)))(clicks),
    // Stored as insertClickRows stores a batch: counted from its buckets' columns.
    ...(ids ? {} : { buckets: true }),
    lease_until: new Date(now.getTime() + TXN_LEASE_MS),
    created_at: now,
  });
  return { txnId, stored: await insert(clicks, txnId) };
}

/** How many stored click batches one counting round takes together. */
const CLICK_BATCHES_PER_ROUND = 100;

/**
 * Counts stored click batches nobody has taken yet (`txnIds`: only those), several together: they
 * are claimed first (`owner`, a new lease), so no other round or recovery takes them meanwhile; their
 * increments are summed and applied in one bulk write guarded by all their ids, then they are closed.
 * Rounds of at most `batches` batches go on until none is left (at most `rounds`). Returns how many
 * clicks it counted.
 */
export async function countStoredClicks(deps: Deps, opts: { txnIds?: string[]; rounds?: number; batches?: number } = {}): Promise<number> {
  const perRound = opts.batches ?? CLICK_BATCHES_PER_ROUND;
  const Txn = own(deps).StatTxn;
  let counted = 0;
  for (let round = 0; round < (opts.rounds ?? 20); round++) {
    const owner = newTxnId();
    // Only batches within their lease: one past it is the recovery's alone (counted by itself), so
    // no batch is ever both in a group and recovered alone at the same time.
    const free = {
      kind: 'clicks' as const,
      stored: true,
      owner: { $exists: false },
      lease_until: { $gt: new Date() },
      ...(opts.txnIds ? { _id: { $in: opts.txnIds } } : {}),
    };
    const ids = (await Txn.find(free, { _id: 1 }).limit(perRound).lean()).map((t) => String(t._id));
    if (!ids.length) break;
    await Txn.updateMany(
      { ...free, lease_until: { $gt: new Date() }, _id: { $in: ids } }, // the lease checked again, now
      { $set: { owner, lease_until: new Date(Date.now() + TXN_LEASE_MS) } },
    );
    const mine = await Txn.find({ _id: { $in: ids }, owner }, CLICK_TXN).lean<ClickTxn[]>();
    if (!mine.length) continue;
    const { clicks, incs } = await batchIncrements(deps, mine);
    const group = mine.map((t) => t._id);
    await applyIncrements(deps, group, incs);
    await closeTxn(deps, group, incs);
    counted += clicks;
    if (ids.length < perRound) break;
  }
  return counted;
}

/**
 * Stores a batch of clicks and counts it in the same call, from the clicks in hand (nothing is read
 * back): the demo data and tests that read counts at once. The transaction is never marked stored,
 * so no round groups it; a writer that dies leaves it to the recovery. Returns how many it stored.
 */
export async function storeCountedClicks(deps: Deps, clicks: ClickRow[], insert: InsertBatch, ids?: BatchIds): Promise<number> {
  const batch = await storeBatch(deps, clicks, insert, ids);
  if (!batch) return 0;
  const incs = clickIncrements(clicks.filter((_, i) => batch.stored.has(i)));
  await applyIncrements(deps, batch.txnId, incs);
  await closeTxn(deps, batch.txnId, incs);
  return batch.stored.size;
}

/**
 * Click batches whose writer died mid-way (or whose group's did): each is claimed, then the clicks
 * stored under it are counted alone, once.
 */
export async function recoverClickBatches(deps: Deps, now = new Date()): Promise<number> {
  const Txn = own(deps).StatTxn;
  const left = await Txn.find({ kind: 'clicks', lease_until: { $lte: now } }, CLICK_TXN)
    .limit(100)
    .lean<ClickTxn[]>();
  let n = 0;
  const owner = newTxnId();
  for (const t of left) {
    const claim = await Txn.updateOne({ _id: t._id, lease_until: { $lte: now } }, { $set: { owner, lease_until: new Date(now.getTime() + TXN_LEASE_MS) } });
    if (!claim.modifiedCount) continue;
    const { clicks, incs } = await batchIncrements(deps, [t]);
    await applyIncrements(deps, t._id, incs);
    await closeTxn(deps, t._id, incs);
    n += clicks;
  }
  return n;
}

/**
 * From a version before the stats read the events log (docs/decisions/0070-sale-event-consumers.md):
 * conversions still flagged `stats_pending` (changes written then and not counted when the new
 * version started; a field the schema no longer has, read through the driver) are counted once,
 * each moved from the state it is counted in to its current one under its account's stats lease
 * (one counted already in its current state moves nothing), then unflagged. The worker runs it at
 * start; safe to repeat and to run on several workers at once. Answers the conversions it unflagged.
 */
export async function migrateStatsFlags(deps: Deps): Promise<number> {
  const flagged = { stats_pending: { $exists: true } };
  const Conversion = own(deps).Conversion;
  let done = 0;
  for (;;) {
    const accounts = ((await Conversion.collection.distinct('publisher_id', flagged)) as string[]).slice(0, 100);
    if (!accounts.length) return done;
    let moved = 0;
    for (const publisherId of accounts)
      moved +=
        (await withAccountLease(
          deps,
          publisherId,
          'stats',
          ACCOUNT_LEASE_MS,
          async () => {
            await recoverAccount(deps, publisherId);
            let n = 0;
            for (;;) {
              const ids = (
                await Conversion.collection
                  .find({ ...flagged, publisher_id: publisherId }, { projection: { _id: 1 } })
                  .limit(BATCH)
                  .toArray()
              ).map((r) => String(r._id));
              if (!ids.length) return n;
              const rows = await Conversion.find({ _id: { $in: ids } }, COUNTED_FIELDS).lean<PendingConversion[]>();
              const moving = rows.filter((c) => c.stats_key !== stateKey(c));
              if (moving.length) {
                const txn = await storeMoves(deps, publisherId, moving);
                await finishConversions(deps, txn.txnId, txn.conversions, txn.incs);
              }
              // Counted in their current state now: unflagged (a change since has its event in the log).
              await Conversion.collection.updateMany({ _id: { $in: ids as never[] } }, { $unset: { stats_pending: '' } });
              n += ids.length;
            }
          },
          { waitMs: 60_000 },
        )) ?? 0;
    done += moved;
    // Every account's lease stayed taken: the next start (or pass) goes on.
    if (!moved) return done;
  }
}

/** The applier's steps one by one, for what composes them differently (the crash tests, the rebuild). */
export const STATS_STEPS = { recoverAccount, prepareCount, applyIncrements, finishConversions, countStep };
