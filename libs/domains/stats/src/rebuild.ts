/**
 * `stats:rebuild`: recomputes the stats read model of accounts from their raw rows (conversions
 * and clicks), month by month: cells not stored yet are inserted whole, stored ones get the
 * difference in transactions (finished like any other after a crash); then the month's roll-ups
 * are built again from its cells (./rollups.ts). A rebuild that stopped
 * part-way leaves months it did not reach as they were: run it again (a rerun is harmless), or go on
 * where it was (`after`: the `resume` its last progress reported; months done are not redone).
 * Conversion counting pauses for the account while it runs (it holds the account's stats lease);
 * a click batch that completes while its month is being recomputed may be counted once more or
 * missed, so rebuild a month the tracker still writes to when traffic is quiet (or again).
 */
import { Types } from 'mongoose';
import { insertManyTolerant } from '@cw/db';
import { CELL_FORMAT, Increments, monthStartOf, nextMonthStart, stateKey, type CellDims } from './cells';
import { COUNTED_FIELDS, finishConversions, moveConversion, recoverAccount, STATS_STEPS } from './counting';
import { newTxnId, storedIncs, TXN_LEASE_MS } from './writer';
import { withAccountLease } from '@cw/events-feed';
import { accountsWithCells, accountsWithRows } from './accounts';
import { own, type StatsDeps } from './deps';
import { buildMonthRollups } from './rollups';

type Deps = Pick<StatsDeps, 'data'>;

export interface RebuildProgress {
  publisher: string;
  month: string;
  /** Months of this account done, of `total`. */
  done: number;
  total: number;
  /** Raw rows (conversions and clicks) read so far by this run, and cells changed. */
  rows: number;
  cells_changed: number;
  /** This run's throughput so far: rows per second, and seconds per million rows. */
  rows_per_s: number;
  s_per_million_rows: number;
  /** Where a run stopped after this month goes on from: `--after <resume>` (`after: parseRebuildAfter(resume)`). */
  resume: string;
}

export interface RebuildResult {
  accounts: number;
  months: number;
  /** Cells whose counters the rebuild changed (0: the model was exact). */
  cells_changed: number;
  /** Raw rows read (conversions and clicks), the run's time, and its throughput. */
  rows: number;
  seconds: number;
  rows_per_s: number;
  s_per_million_rows: number;
}

/** Where a rebuild goes on from: after this account (every month of it done), or after this month of it. */
export interface RebuildAfter {
  publisherId: string;
  /** The UTC month's start (ms): this account's months up to and including it are done. */
  month?: number;
}

/** `<account>` or `<account>@YYYY-MM` (what a progress line reports as `resume`); undefined if malformed. */
export function parseRebuildAfter(s: string): RebuildAfter | undefined {
  const m = /^([^@\s]+)(?:@(\d{4})-(\d{2}))?$/.exec(s);
  if (!m) return undefined;
  if (!m[2]) return { publisherId: m[1]! };
  const month = Number(m[3]);
  if (month < 1 || month > 12) return undefined;
  return { publisherId: m[1]!, month: Date.UTC(Number(m[2]), month - 1, 1) };
}

const throughput = (rows: number, ms: number) => ({
  rows_per_s: ms > 0 ? Math.round((rows * 1000) / ms) : 0,
  s_per_million_rows: rows > 0 ? Math.round((ms / rows) * 1000 * 10) / 10 : 0,
});

const LEASE_MS = 10 * 60_000;

/** Cells per repair transaction (a transaction is one document: it stays far below 16 MB). */
const CHUNK = 2000;

/**
 * Rebuilds one month of one account; answers how many cells changed. The model's invariant is
 * that its cells hold every conversion in the state it is marked counted in (`stats_key`) and
 * every click whose batch was counted: the month is recomputed that way (a conversion changed
 * since is counted by the applier after the rebuild, a click batch still open by its writer),
 * and the difference applied in transactions of CHUNK cells.
 */
async function rebuildMonth(deps: Deps, publisherId: string, month: number): Promise<{ cells: number; rows: number }> {
  const end = nextMonthStart(month);
  const expected = new Increments();
  let rows = 0;
  const conversions = own(deps)
    .Conversion.find({ publisher_id: publisherId, occurred_at: { $gte: new Date(month), $lt: new Date(end) }, stats_key: { $exists: true } }, COUNTED_FIELDS)
    .maxTimeMS(0)
    .lean()
    .cursor({ batchSize: 1000 });
  for await (const raw of conversions) {
    const c = raw as unknown as Parameters<typeof moveConversion>[1];
    moveConversion(expected, c, null, c.stats_key ?? null);
    rows++;
  }
  const open = new Set((await own(deps).StatTxn.find({ kind: 'clicks' }, { _id: 1 }).lean()).map((t) => String(t._id)));
  const clicks = deps.data.links.humanClicks(publisherId, new Date(month), new Date(end));
  for await (const k of clicks) {
    rows++;
    if (!k.stats_txn || !open.has(k.stats_txn))
      expected.clicks(
        { publisher_id: publisherId, program_id: k.program_id ?? null, campaign_id: k.campaign_id ?? null, subid: k.subid ?? '', link_id: k.link_id ?? null },
        k.created_at.getTime(),
      );
  }
  const stored = own(deps)
    .Stat.find({ publisher_id: publisherId, t: { $gte: new Date(month), $lt: new Date(end) } })
    .maxTimeMS(0)
    .lean()
    .cursor({ batchSize: 2000 });
  const existing = new Set<string>();
  for await (const s of stored) {
    existing.add(String(s._id));
    const dims: CellDims = {
      publisher_id: publisherId,
      v: s.v,
      g: s.g,
      t: s.t,
      program_id: s.program_id ?? null,
      campaign_id: s.campaign_id ?? null,
      subid: s.subid ?? null,
      ...(s.v === 'l' ? { link_id: (s as { link_id?: string | null }).link_id ?? null } : {}),
    };
    expected.storedCell(String(s._id), dims, { c: s.c, s: s.s }, -1);
  }
  const diff = storedIncs(expected.nonZero());
  // Cells not stored yet are inserted whole (an insert is its own guard: a second one meets the
  // _id); a cell another writer created meanwhile, and every stored cell, get guarded increments.
  const fresh = diff.filter((c) => !existing.has(c.id));
  const increments = diff.filter((c) => existing.has(c.id));
  for (let i = 0; i < fresh.length; i += CHUNK) {
    const chunk = fresh.slice(i, i + CHUNK);
    const { inserted } = await insertManyTolerant(own(deps).Stat.collection, chunk.map(cellDocument));
    increments.push(...chunk.filter((_, j) => !inserted.has(j)));
  }
  for (let i = 0; i < increments.length; i += CHUNK) {
    const chunk = increments.slice(i, i + CHUNK);
    const txnId = newTxnId();
    const now = new Date();
    await own(deps).StatTxn.create({
      _id: txnId,
      kind: 'conversions',
      publisher_id: publisherId,
      incs: chunk,
      conversions: [],
      lease_until: new Date(now.getTime() + TXN_LEASE_MS),
      created_at: now,
    });
    await finishConversions(deps, txnId, [], chunk);
  }
  return { cells: diff.length, rows };
}

/** A whole cell document from its increments (counters nested as the model stores them). */
function cellDocument(c: ReturnType<typeof storedIncs>[number]): Record<string, unknown> {
  const doc: Record<string, unknown> = { _id: c.id, ...c.dims, fv: CELL_FORMAT, c: {}, s: {} };
  const put = (path: string, value: unknown) => {
    const parts = path.split('.');
    let at = doc as Record<string, unknown>;
    for (const p of parts.slice(0, -1)) at = (at[p] ??= {}) as Record<string, unknown>;
    at[parts.at(-1)!] = value;
  };
  for (const [path, n] of Object.entries(c.counts)) put(path, n);
  for (const [path, v] of Object.entries(c.money)) put(path, Types.Decimal128.fromString(v));
  return doc;
}

/** Months (UTC) an account has rows or cells in, from `from` on. */
async function monthsOf(deps: Deps, publisherId: string, from?: Date): Promise<number[]> {
  const since = from ? { $gte: new Date(monthStartOf(from.getTime())) } : { $exists: true };
  const [c0, c1, clickSpan, s0, s1] = await Promise.all([
    own(deps).Conversion.findOne({ publisher_id: publisherId, occurred_at: since }, { occurred_at: 1 }).sort({ occurred_at: 1 }).lean(),
    own(deps).Conversion.findOne({ publisher_id: publisherId, occurred_at: since }, { occurred_at: 1 }).sort({ occurred_at: -1 }).lean(),
    deps.data.links.clickSpan(publisherId, from ? new Date(monthStartOf(from.getTime())) : undefined),
    own(deps).Stat.findOne({ publisher_id: publisherId, v: 'p', g: 'm', t: since }, { t: 1 }).sort({ t: 1 }).lean(),
    own(deps).Stat.findOne({ publisher_id: publisherId, v: 'p', g: 'm', t: since }, { t: 1 }).sort({ t: -1 }).lean(),
  ]);
  const times = [c0?.occurred_at, c1?.occurred_at, ...clickSpan, s0?.t, s1?.t].filter((d): d is Date => d instanceof Date).map((d) => d.getTime());
  if (!times.length) return [];
  const out: number[] = [];
  for (let m = monthStartOf(Math.min(...times)); m <= Math.max(...times); m = nextMonthStart(m)) out.push(m);
  return out;
}

/**
 * Rebuilds the given account (or every account with conversions or clicks, in id order) from `from`
 * (its month) on; `after`: goes on where a stopped run was (the `resume` of its last progress):
 * accounts before that one are skipped, and that account's months up to the one named. Each month
 * is reported as done (`onProgress`) with the run's throughput, once its cells and roll-ups are.
 */
export async function rebuildStats(
  deps: Deps,
  opts: { publisherId?: string; from?: Date; after?: RebuildAfter; onProgress?: (p: RebuildProgress) => void; listingPageSize?: number } = {},
): Promise<RebuildResult> {
  const started = Date.now();
  const after = opts.after;
  // Every account with conversions or clicks, in id order, page by page (./accounts.ts), after the
  // `after` account (that account first when a month of it is named: its months after that one).
  const accounts = opts.publisherId
    ? [opts.publisherId]
    : (async function* () {
        if (after?.month !== undefined) yield after.publisherId;
        yield* accountsWithRows(deps, { pageSize: opts.listingPageSize, after: after?.publisherId });
      })();
  const result: RebuildResult = { accounts: 0, months: 0, cells_changed: 0, rows: 0, seconds: 0, rows_per_s: 0, s_per_million_rows: 0 };
  for await (const publisherId of accounts) {
    if (after && !(publisherId > after.publisherId || (publisherId === after.publisherId && after.month !== undefined))) continue;
    const doneThrough = after?.publisherId === publisherId ? after.month : undefined;
    // The account's stats lease (the worker's counting waits meanwhile); up to a minute for a count in progress.
    const done = await withAccountLease(
      deps,
      publisherId,
      'stats',
      LEASE_MS,
      async (lease) => {
        // Transactions a crashed applier left are finished first (they are part of what is stored).
        // Conversions never counted (rows written outside the lifecycle: an import; changes whose
        // events the stats have not read) are marked counted in their state, which the months
        // below then count; an event of theirs read later moves nothing, or a later change.
        await recoverAccount(deps, publisherId);
        for (const status of ['pending', 'approved', 'declined'] as const)
          for (const paid of [false, true])
            await own(deps).Conversion.updateMany(
              { publisher_id: publisherId, stats_key: { $exists: false }, status, paid: paid ? true : { $ne: true } },
              { $set: { stats_key: stateKey({ status, paid }) } },
            );
        const all = await monthsOf(deps, publisherId, opts.from);
        const months = all.filter((m) => doneThrough === undefined || m > doneThrough);
        for (const m of months) {
          const month = await rebuildMonth(deps, publisherId, m);
          result.cells_changed += month.cells;
          result.rows += month.rows;
          // The month's roll-ups, from its cells as they now are (./rollups.ts).
          await buildMonthRollups(deps, publisherId, m);
          result.months++;
          const ym = new Date(m).toISOString().slice(0, 7);
          opts.onProgress?.({
            publisher: publisherId,
            month: ym,
            done: all.indexOf(m) + 1,
            total: all.length,
            rows: result.rows,
            cells_changed: result.cells_changed,
            ...throughput(result.rows, Date.now() - started),
            resume: `${publisherId}@${ym}`,
          });
          if (!(await lease.renew())) throw new Error(`stats:rebuild lost the stats lease of ${publisherId}`);
        }
        // Changes made meanwhile (their events in the log) are counted as the applier counts them.
        while (await STATS_STEPS.countStep(deps, publisherId).then((r) => r.more));
        return true;
      },
      { waitMs: 60_000 },
    );
    if (!done) throw new Error(`stats:rebuild: the stats lease of ${publisherId} stayed taken for a minute`);
    result.accounts++;
  }
  const ms = Date.now() - started;
  return { ...result, seconds: Math.round(ms / 100) / 10, ...throughput(result.rows, ms) };
}

/**
 * Brings cells of an older layout (no `fv`, or a lower one) to the current one: each account that
 * has such month cells is rebuilt (which adds what the new layout keeps), then its cells are
 * marked. The worker runs it once at start; a rerun finds nothing. Answers the accounts rebuilt.
 */
export async function upgradeStatsCells(deps: Deps, onAccount?: (publisherId: string) => void): Promise<number> {
  const stale = { g: 'm' as const, $or: [{ fv: { $exists: false } }, { fv: { $lt: CELL_FORMAT } }] };
  let n = 0;
  for await (const publisherId of accountsWithCells(deps, {}, stale)) {
    onAccount?.(publisherId);
    await rebuildStats(deps, { publisherId });
    await own(deps).Stat.updateMany({ publisher_id: publisherId, ...stale }, { $set: { fv: CELL_FORMAT } });
    n++;
  }
  return n;
}
