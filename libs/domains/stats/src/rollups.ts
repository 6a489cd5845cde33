/**
 * The roll-ups of the stats read model (decision record 0065): per account, view (`s`, `p`, `ps`,
 * `l`), UTC day and UTC month, ONE document holding every key's totals of that period. A top list
 * or a report by sub-ID, program or link over any range then reads month documents for the whole
 * UTC months inside it, day documents for the other whole UTC days, and for the (at most two)
 * partial UTC days at its edges the day cells of that view (quarter precision): a bounded number of
 * documents, however many keys and days the account has. Merged exactly per key, before any top-K.
 *
 * Kept exactly once with the cells: `applyRollups` runs inside the writer's `applyIncrements`,
 * after the cells, from the same stored increments (a cell's total slots: `f64` + `f96` of a day,
 * `m` of a month), guarded by the same transaction ids; `pullRollups` beside the cells' pull.
 *
 * A document is read only when `ok` (checked against the cells by `buildRollup`: a document a
 * writer created may lack what the period counted before it) and not `over` (its size bound, `nb`,
 * would pass ROLLUP_LIMITS.bytes): otherwise that period is read from its cells, as before.
 */
import { createHash } from 'node:crypto';
import { Types } from 'mongoose';
import { addDecimals, formatDecimal, parseDecimal, type Dec } from '@cw/money';
import { DAY_MS, dayStartOf, monthStartOf, nextMonthStart, prefixNodes, QUARTER_MS, QUARTERS, type CellInc, type Grain, type View } from './cells';
import { accountsWithCells, type AccountListing } from './accounts';
import { own, type StatsDeps } from './deps';
import type { Fact, StatsQuery } from './facts';
import { addDec, addSlot, emptySums, factsOf, storedDec, ZERO, type SlotCounters, type Sums } from './sums';

type Deps = Pick<StatsDeps, 'data'>;

/** The views rolled up: the ones a range is grouped by (the account view `a` is a few cells already). */
export type RolledView = Exclude<View, 'a'>;
export const ROLLUP_VIEWS: readonly RolledView[] = ['s', 'p', 'ps', 'l'];
const ROLLED = new Set<View>(ROLLUP_VIEWS);

/**
 * The size bound of a roll-up document, in bytes as `keyBytes`/`counterBytes` count them (at least
 * twice the BSON size): 12 MiB counted is at most ~6 MiB stored, far below MongoDB's 16 MB. About
 * 20,000 keys of three counters each. Tests lower it.
 */
export const ROLLUP_LIMITS = { bytes: 12 * 1024 * 1024 };

/** The slots of a cell that hold its period's total: a day's quarters 1-64 and 65-96; a month's `m`. */
const TOTAL_SLOTS: Record<Grain, readonly string[]> = { d: ['f64', 'f96'], m: ['m'] };

/** A group's dimensions, as a cell stores them. */
type Dims = Pick<Fact, 'program_id' | 'campaign_id' | 'subid' | 'link_id'>;

/** The characters a key escapes as `%xx`: the escape itself, the key's separator, and what a field name may not hold. */
const ESCAPED = new Set(['%', '.', '~', '$', '\u0000']);
const escape = (s: string) => [...s].map((c) => (ESCAPED.has(c) ? `%${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c)).join('');
const unescape = (s: string) => s.replace(/%(25|2e|7e|24|00)/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
const str = (s: string | null | undefined) => (s === null || s === undefined ? '' : `=${escape(s)}`);
const unstr = (s: string) => (s === '' ? null : unescape(s.slice(1)));

/** A group's key in a roll-up document: a field name (no dot, no `$`; `%`, `~` and NUL escaped too). */
export const rollupKey = (d: { program_id?: number | null; campaign_id?: number | null; subid?: string | null; link_id?: string | null }) =>
  `${d.program_id ?? ''}~${d.campaign_id ?? ''}~${str(d.subid)}~${str(d.link_id)}`;

export function dimsOfKey(key: string): Dims {
  const [p, c, s, l] = key.split('~') as [string, string, string, string];
  return { program_id: p === '' ? null : Number(p), campaign_id: c === '' ? null : Number(c), subid: unstr(s), link_id: unstr(l) };
}

export function rollupId(publisherId: string, v: View, g: Grain, t: number): string {
  return createHash('sha256')
    .update(`${publisherId}\u0001r\u0001${v}\u0001${g}\u0001${new Date(t).toISOString()}`)
    .digest('base64url')
    .slice(0, 24);
}

/** Bytes counted for a key and for one of its counters: above their BSON size (UTF-8 at most 3 bytes per UTF-16 unit). */
const keyBytes = (key: string) => 64 + 3 * key.length;
const counterBytes = (name: string) => 96 + 3 * name.length;

interface StoredInc {
  id: string;
  dims: CellInc['dims'];
  counts: Record<string, number>;
  money: Record<string, string>;
}

/** A roll-up document's increments (paths under `k`), and the bytes its keys and counters count. */
export interface RollupInc {
  id: string;
  publisher_id: string;
  v: View;
  g: Grain;
  t: number;
  counts: Record<string, number>;
  money: Record<string, string>;
  bytes: number;
}

/** What stored cell increments add to the roll-ups: each rolled-up cell's total, under its key. */
export function rollupIncs(incs: StoredInc[]): RollupInc[] {
  const docs = new Map<string, RollupInc & { money_: Map<string, string[]>; seen: Set<string> }>();
  for (const c of incs) {
    const { v, g } = c.dims;
    if (!ROLLED.has(v)) continue;
    const t = new Date(c.dims.t).getTime();
    const id = rollupId(c.dims.publisher_id, v, g, t);
    let doc = docs.get(id);
    if (!doc) docs.set(id, (doc = { id, publisher_id: c.dims.publisher_id, v, g, t, counts: {}, money: {}, bytes: 0, money_: new Map(), seen: new Set() }));
    const key = rollupKey(c.dims);
    const totals = TOTAL_SLOTS[g];
    const count = (sub: string, n: number) => {
      const path = `k.${key}.${sub}`;
      doc.counts[path] = (doc.counts[path] ?? 0) + n;
    };
    for (const [path, n] of Object.entries(c.counts)) {
      const [kind, slot, counter, field] = path.split('.');
      if (!totals.includes(slot!)) continue;
      if (kind === 'c') count('c', n);
      else count(`s.${counter}.${field}`, n);
    }
    for (const [path, amount] of Object.entries(c.money)) {
      const [, slot, counter, field] = path.split('.');
      if (!totals.includes(slot!)) continue;
      const p = `k.${key}.s.${counter}.${field}`;
      doc.money_.set(p, [...(doc.money_.get(p) ?? []), amount]);
    }
  }
  const out: RollupInc[] = [];
  for (const { money_, seen, ...doc } of docs.values()) {
    for (const [path, amounts] of money_) {
      const sum = addDecimals(amounts.map((a) => parseDecimal(a)));
      if (sum.units !== 0n) doc.money[path] = formatDecimal(sum, sum.scale);
    }
    for (const path of Object.keys(doc.counts)) if (doc.counts[path] === 0) delete doc.counts[path];
    // The bytes of every key and counter it names (an upper bound of what it adds to the document).
    for (const path of [...Object.keys(doc.counts), ...Object.keys(doc.money)]) {
      const [, key, kind, counter] = path.split('.') as [string, string, string, string | undefined];
      if (!seen.has(key)) {
        seen.add(key);
        doc.bytes += keyBytes(key);
      }
      if (kind === 's' && !seen.has(`${key}.${counter}`)) {
        seen.add(`${key}.${counter}`);
        doc.bytes += counterBytes(counter!);
      }
    }
    if (doc.bytes) out.push(doc);
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The bytes a stored document's keys and counters count (what `nb` bounds). */
function storedBytes(k: Record<string, SlotCounters> | undefined): number {
  let n = 0;
  for (const [key, e] of Object.entries(k ?? {})) {
    n += keyBytes(key);
    for (const counter of Object.keys(e.s ?? {})) n += counterBytes(counter);
  }
  return n;
}

const guardOf = (ids: string[]) => (ids.length === 1 ? { $ne: ids[0] } : { $nin: ids });

function incOp(r: RollupInc, ids: string[]) {
  const inc: Record<string, number | Types.Decimal128> = { ...r.counts, nb: r.bytes, w: 1 };
  for (const [path, v] of Object.entries(r.money)) inc[path] = Types.Decimal128.fromString(v);
  return {
    filter: { _id: r.id, publisher_id: r.publisher_id, txns: guardOf(ids), over: { $ne: true }, nb: { $lte: ROLLUP_LIMITS.bytes - r.bytes } },
    update: {
      $inc: inc,
      $push: { txns: ids.length === 1 ? ids[0] : { $each: ids } },
      $setOnInsert: { v: r.v, g: r.g, t: new Date(r.t), ok: false },
    },
  };
}

const isDuplicate = (e: unknown) => (e as { code?: number }).code === 11000;

/**
 * Applies the roll-ups' increments of these transactions unless they already reached a document
 * (its `txns`), in one bulk write; a document whose size bound would pass the limit is resolved
 * alone (`settleOne`).
 */
export async function applyRollups(deps: Deps, txnIds: string | string[], incs: StoredInc[]): Promise<void> {
  const ids = typeof txnIds === 'string' ? [txnIds] : txnIds;
  const rollups = rollupIncs(incs);
  if (!rollups.length) return;
  const Rollup = own(deps).StatRollup.collection;
  const fits = rollups.filter((r) => r.bytes <= ROLLUP_LIMITS.bytes);
  let missed: RollupInc[] = rollups.filter((r) => r.bytes > ROLLUP_LIMITS.bytes);
  try {
    await Rollup.bulkWrite(fits.map((r) => ({ updateOne: { ...incOp(r, ids), upsert: true } })) as never, { ordered: false });
  } catch (e) {
    // A document whose filter missed (it holds the ids, is over, or its bound is near the limit): the upsert met its _id.
    const err = e as { code?: number; writeErrors?: Array<{ code?: number; index: number; err?: { code: number; index?: number } }> };
    const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [];
    const codeOf = (w: (typeof errors)[number]) => w.code ?? w.err?.code;
    if (!errors.length || !errors.every((w) => codeOf(w) === 11000)) throw e;
    missed = [...missed, ...errors.map((w) => fits[w.index ?? w.err?.index ?? -1]!).filter(Boolean)];
  }
  for (const r of missed) await settleOne(deps, ids, r);
}

/**
 * A document the guarded increment missed: nothing to do if it holds the ids or is over already;
 * otherwise its size bound is recounted from what it holds (if no write came between) and the
 * increment tried again, or, if it would not fit, the document is marked `over` (reads take the
 * cells for its period from then on).
 */
async function settleOne(deps: Deps, ids: string[], r: RollupInc): Promise<void> {
  const Rollup = own(deps).StatRollup.collection;
  for (let attempt = 0; attempt < 20; attempt++) {
    const doc = (await Rollup.findOne({ _id: r.id as never, publisher_id: r.publisher_id }, { projection: { txns: 1, over: 1, nb: 1, w: 1, k: 1 } })) as {
      txns?: string[];
      over?: boolean;
      nb?: number;
      w?: number;
      k?: Record<string, SlotCounters>;
    } | null;
    if (!doc) {
      if (r.bytes > ROLLUP_LIMITS.bytes) {
        try {
          await Rollup.insertOne({ _id: r.id as never, publisher_id: r.publisher_id, v: r.v, g: r.g, t: new Date(r.t), ok: false, over: true, nb: 0, w: 1 });
          return;
        } catch (e) {
          if (!isDuplicate(e)) throw e;
          continue;
        }
      }
      const op = incOp(r, ids);
      try {
        await Rollup.updateOne(op.filter as never, op.update as never, { upsert: true });
        return;
      } catch (e) {
        if (!isDuplicate(e)) throw e;
        continue;
      }
    }
    if (doc.over || ids.some((id) => doc.txns?.includes(id))) return;
    const bytes = storedBytes(doc.k);
    if (bytes + r.bytes > ROLLUP_LIMITS.bytes) {
      const res = await Rollup.updateOne({ _id: r.id as never, publisher_id: r.publisher_id, w: doc.w, txns: guardOf(ids) } as never, {
        $set: { over: true, nb: 0 },
        $unset: { k: '' },
        $inc: { w: 1 },
      });
      if (res.modifiedCount) return;
      continue;
    }
    if (bytes !== doc.nb)
      await Rollup.updateOne({ _id: r.id as never, publisher_id: r.publisher_id, w: doc.w } as never, { $set: { nb: bytes }, $inc: { w: 1 } });
    const op = incOp(r, ids);
    const res = await Rollup.updateOne(op.filter as never, op.update as never);
    if (res.modifiedCount) return;
  }
  throw new Error(`stats roll-up ${r.id}: the guarded increment kept missing`);
}

/** The end of the transactions on the roll-ups: their ids pulled from the documents they touched. */
export async function pullRollups(deps: Deps, txnIds: string[], incs: StoredInc[]): Promise<void> {
  const byPublisher = new Map<string, Set<string>>();
  for (const c of incs) {
    if (!ROLLED.has(c.dims.v)) continue;
    const id = rollupId(c.dims.publisher_id, c.dims.v, c.dims.g, new Date(c.dims.t).getTime());
    const docs = byPublisher.get(c.dims.publisher_id);
    if (docs) docs.add(id);
    else byPublisher.set(c.dims.publisher_id, new Set([id]));
  }
  const pull = txnIds.length === 1 ? { $pull: { txns: txnIds[0] } } : { $pullAll: { txns: txnIds } };
  for (const [publisherId, docs] of byPublisher) await own(deps).StatRollup.updateMany({ publisher_id: publisherId, _id: { $in: [...docs] } }, pull);
}

interface CellRow {
  program_id?: number | null;
  campaign_id?: number | null;
  subid?: string | null;
  link_id?: string | null;
  t?: Date;
  txns?: string[];
  c?: Record<string, number>;
  s?: Record<string, Record<string, { n?: number; a?: { toString(): string }; m?: { toString(): string } }>>;
}

const cellProjection = (slots: readonly string[]) => {
  const p: Record<string, 0 | 1> = { _id: 0, t: 1, program_id: 1, campaign_id: 1, subid: 1, link_id: 1 };
  for (const s of slots) p[`c.${s}`] = p[`s.${s}`] = 1;
  return p;
};

/** A roll-up document built from its period's cells (their total slots), `ok`, write count `w`. */
function builtDocument(publisherId: string, v: View, g: Grain, t: number, cells: CellRow[], w: number) {
  const k: Record<string, { c?: number; s?: Record<string, { n: number; a: Types.Decimal128; m: Types.Decimal128 }> }> = {};
  for (const cell of cells) {
    const sums = emptySums();
    for (const slot of TOTAL_SLOTS[g]) addSlot(sums, cell, slot, 1);
    const e: (typeof k)[string] = {};
    if (sums.clicks) e.c = sums.clicks;
    for (const [counter, x] of sums.keys) {
      if (!x.n && x.a.units === 0n && x.m.units === 0n) continue;
      (e.s ??= {})[counter] = {
        n: x.n,
        a: Types.Decimal128.fromString(formatDecimal(x.a, x.a.scale)),
        m: Types.Decimal128.fromString(formatDecimal(x.m, x.m.scale)),
      };
    }
    if (e.c || e.s) k[rollupKey(cell)] = e;
  }
  const bytes = storedBytes(k as Record<string, SlotCounters>);
  const over = bytes > ROLLUP_LIMITS.bytes;
  // `b`: this build's token; with `w`, what a reader's cache knows a built document's content by (./rollups.ts `readRollupFacts`).
  return {
    publisher_id: publisherId,
    v,
    g,
    t: new Date(t),
    ok: true,
    w,
    b: newBuildToken(),
    ...(over ? { over: true, nb: 0 } : { over: false, nb: bytes, k }),
  };
}

export type BuildOutcome = 'built' | 'over' | 'busy';

/**
 * Builds one roll-up document from its period's cells and marks it `ok`: replaced only if no write
 * reached it since it was read (`w`), and only from cells that no transaction is applying (no
 * id in `txns` of a transaction still stored): a transaction then either reached all the cells
 * read and the document before (or the replace misses and is tried again), or reaches the new
 * document after. 'busy': cells
 * kept being written: the document is marked not built, for the worker's pass (reads take the
 * cells meanwhile).
 */
export async function buildRollup(deps: Deps, publisherId: string, v: View, g: Grain, t: number): Promise<BuildOutcome> {
  const id = rollupId(publisherId, v, g, t);
  const Rollup = own(deps).StatRollup.collection;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, 20 * attempt));
    const prev = (await Rollup.findOne({ _id: id as never, publisher_id: publisherId }, { projection: { w: 1 } })) as { w?: number } | null;
    const cells = await own(deps)
      .Stat.find({ publisher_id: publisherId, v, g, t: new Date(t) }, { ...cellProjection(TOTAL_SLOTS[g]), txns: 1 })
      .maxTimeMS(0)
      .lean<CellRow[]>();
    // Ids of transactions still stored (being applied); an id a finished one left behind (its pull never ran) is not.
    const held = [...new Set(cells.flatMap((c) => c.txns ?? []))];
    if (held.length && (await own(deps).StatTxn.exists({ _id: { $in: held } }))) continue;
    const doc = builtDocument(publisherId, v, g, t, cells, (prev?.w ?? 0) + 1);
    const over = doc.over === true;
    if (prev) {
      const res = await Rollup.replaceOne({ _id: id as never, publisher_id: publisherId, w: prev.w } as never, doc);
      if (res.matchedCount) return over ? 'over' : 'built';
    } else {
      try {
        await Rollup.insertOne({ _id: id as never, ...doc });
        return over ? 'over' : 'built';
      } catch (e) {
        if (!isDuplicate(e)) throw e;
      }
    }
  }
  // Left to the worker's pass (reads take the cells meanwhile).
  await Rollup.updateOne(
    { _id: id as never, publisher_id: publisherId },
    { $set: { ok: false }, $inc: { w: 1 }, $setOnInsert: { v, g, t: new Date(t), nb: 0 } },
    { upsert: true },
  );
  return 'busy';
}

/** Builds the documents writers created that are not checked yet (the worker's pass); answers how many it built. */
export async function buildPendingRollups(deps: Deps, opts: { limit?: number } = {}): Promise<number> {
  const pending = await own(deps)
    .StatRollup.find({ ok: false }, { _id: 0, publisher_id: 1, v: 1, g: 1, t: 1 })
    .limit(opts.limit ?? 200)
    .lean<Array<{ publisher_id: string; v: View; g: Grain; t: Date }>>();
  let built = 0;
  for (const r of pending) if ((await buildRollup(deps, r.publisher_id, r.v, r.g, r.t.getTime())) !== 'busy') built++;
  return built;
}

/**
 * Builds the roll-ups of one account's UTC month from its cells: the month's document and its
 * days' of every rolled-up view. `missingOnly`: leaves documents already `ok` as they are (a
 * build that stopped part-way goes on where it was). Answers how many it built (one whose cells
 * kept being written is left to the worker's pass).
 */
export async function buildMonthRollups(deps: Deps, publisherId: string, month: number, opts: { missingOnly?: boolean } = {}): Promise<number> {
  const end = nextMonthStart(month);
  const Rollup = own(deps).StatRollup.collection;
  let built = 0;
  for (const v of ROLLUP_VIEWS) {
    // The documents as they are, the month's cells of the view, then one bulk write of the
    // documents built from them (marked with this build's token `b`); a period whose cells a
    // transaction still stored holds, or whose document was written meanwhile, is built alone
    // (buildRollup).
    // The documents first, then the cells: a write that reached the documents after this read bumped their `w`.
    const stored = await own(deps)
      .StatRollup.find({ publisher_id: publisherId, v, t: { $gte: new Date(month), $lt: new Date(end) } }, { _id: 1, w: 1, ok: 1 })
      .lean<Array<{ _id: string; w?: number; ok?: boolean }>>();
    // The periods to build: all of the month's, or (missingOnly) those without a built document,
    // found from the cells' index alone (their days), so a rerun over built months reads no cell.
    let periodsFilter: Array<Record<string, unknown>> = [
      { g: 'm', t: new Date(month) },
      { g: 'd', t: { $gte: new Date(month), $lt: new Date(end) } },
    ];
    if (opts.missingOnly) {
      const ok = new Set(stored.filter((r) => r.ok).map((r) => r._id));
      const days = (
        (await own(deps)
          .Stat.distinct('t', { publisher_id: publisherId, v, g: 'd', t: { $gte: new Date(month), $lt: new Date(end) } })
          .maxTimeMS(0)) as Date[]
      ).filter((d) => !ok.has(rollupId(publisherId, v, 'd', d.getTime())));
      periodsFilter = [
        ...(ok.has(rollupId(publisherId, v, 'm', month)) ? [] : [{ g: 'm', t: new Date(month) }]),
        ...(days.length ? [{ g: 'd', t: { $in: days } }] : []),
      ];
      if (!periodsFilter.length) continue;
    }
    const cells = await own(deps)
      .Stat.find({ publisher_id: publisherId, v, $or: periodsFilter }, { ...cellProjection([...TOTAL_SLOTS.d, ...TOTAL_SLOTS.m]), g: 1, txns: 1 })
      .maxTimeMS(0)
      .lean<Array<CellRow & { g: Grain }>>();
    const prev = new Map(stored.map((r) => [r._id, r]));
    const periods = new Map<string, { g: Grain; t: number; cells: CellRow[] }>();
    for (const c of cells) {
      const t = c.t!.getTime();
      const id = rollupId(publisherId, v, c.g, t);
      let p = periods.get(id);
      if (!p) periods.set(id, (p = { g: c.g, t, cells: [] }));
      p.cells.push(c);
    }
    const heldIds = [...new Set(cells.flatMap((c) => c.txns ?? []))];
    const live = new Set(
      heldIds.length
        ? (
            await own(deps)
              .StatTxn.find({ _id: { $in: heldIds } }, { _id: 1 })
              .lean()
          ).map((x) => String(x._id))
        : [],
    );
    const token = newBuildToken();
    const ops: unknown[] = [];
    const attempted = new Set<string>();
    const alone: Array<[Grain, number]> = [];
    for (const [id, p] of periods) {
      const was = prev.get(id);
      if (opts.missingOnly && was?.ok) continue;
      if (p.cells.some((c) => c.txns?.some((x) => live.has(x)))) {
        alone.push([p.g, p.t]);
        continue;
      }
      attempted.add(id);
      const doc = { ...builtDocument(publisherId, v, p.g, p.t, p.cells, (was?.w ?? 0) + 1), b: token };
      ops.push(
        was ? { replaceOne: { filter: { _id: id, publisher_id: publisherId, w: was.w }, replacement: doc } } : { insertOne: { document: { _id: id, ...doc } } },
      );
    }
    if (ops.length) {
      try {
        await Rollup.bulkWrite(ops as never, { ordered: false });
      } catch (e) {
        if (!(e as { writeErrors?: Array<{ code?: number }> }).writeErrors?.every((w) => w.code === 11000)) throw e;
      }
      // What a write came between (a replace that matched nothing, an insert that met a document) is built alone.
      const done = new Set(
        (
          await own(deps)
            .StatRollup.find({ publisher_id: publisherId, v, t: { $gte: new Date(month), $lt: new Date(end) }, b: token }, { _id: 1 })
            .lean()
        ).map((x) => String(x._id)),
      );
      built += done.size;
      for (const id of attempted) if (!done.has(id)) alone.push([periods.get(id)!.g, periods.get(id)!.t]);
    }
    for (const [g, t] of alone) if ((await buildRollup(deps, publisherId, v, g, t)) !== 'busy') built++;
  }
  return built;
}

const newBuildToken = () => `b_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`;

export interface RollupBuildProgress {
  publisher: string;
  month: string;
  done: number;
  total: number;
  built: number;
}

/**
 * `stats:rollups`: builds the roll-ups of the given account (or of every account with cells, listed
 * page by page: ./accounts.ts) from
 * the cells, month by month from `from` (its month) on, leaving documents already built as they are:
 * resumable, a rerun builds what is missing. Answers the accounts, months and documents.
 */
export async function buildStatsRollups(
  deps: Deps,
  opts: { publisherId?: string; from?: Date; onProgress?: (p: RollupBuildProgress) => void; listing?: AccountListing } = {},
): Promise<{ accounts: number; months: number; built: number }> {
  // Every account with cells, in id order, page by page (./accounts.ts; `listing.after`: those after one).
  const accounts = opts.publisherId ? [opts.publisherId] : accountsWithCells(deps, opts.listing);
  const out = { accounts: 0, months: 0, built: 0 };
  for await (const publisherId of accounts) {
    const months = (
      await own(deps)
        .Stat.find(
          { publisher_id: publisherId, v: 'a', g: 'm', ...(opts.from ? { t: { $gte: new Date(monthStartOf(opts.from.getTime())) } } : {}) },
          { _id: 0, t: 1 },
        )
        .sort({ t: 1 })
        .lean<Array<{ t: Date }>>()
    ).map((r) => r.t.getTime());
    for (const [i, m] of [...new Set(months)].entries()) {
      const built = await buildMonthRollups(deps, publisherId, m, { missingOnly: true });
      out.built += built;
      out.months++;
      opts.onProgress?.({ publisher: publisherId, month: new Date(m).toISOString().slice(0, 7), done: i + 1, total: months.length, built });
    }
    out.accounts++;
  }
  return out;
}

/** Whether the roll-ups answer this query: one bucket per sub-ID, program or link, no filter. */
export const rollupsServe = (q: StatsQuery): boolean =>
  !q.calendar &&
  q.subid === undefined &&
  q.programId === undefined &&
  q.merchantId === undefined &&
  !q.linkIds &&
  (q.bySubid === true || q.byProgram === true || q.byLink === true);

const viewOf = (q: StatsQuery): View => (q.byLink ? 'l' : q.bySubid && q.byProgram ? 'ps' : q.bySubid ? 's' : 'p');

const quarterIn = (t: number) => (t - dayStartOf(t)) / QUARTER_MS;

/**
 * The facts of [from, to) per group of the query's view, from the roll-ups: whole UTC months from
 * month documents, other whole UTC days from day documents (a period whose document is absent,
 * not built or over: from its cells), the partial UTC days at the edges from the day cells' quarter
 * nodes. Every group's sums are exact; the facts are those `readFacts` answers from the cells.
 */
export async function readRollupFacts(deps: Deps, q: StatsQuery, from: number, to: number): Promise<Fact[]> {
  const v = viewOf(q);
  const publisherId = q.publisherId;
  if (!Number.isInteger(quarterIn(from)) || !Number.isInteger(quarterIn(to)))
    throw new Error(`a stats read edge at ${new Date(from).toISOString()} or ${new Date(to).toISOString()} is not on a quarter hour`);
  // The partial days at the edges: [lo, hi) quarters of a UTC day.
  const edges: Array<{ day: number; lo: number; hi: number }> = [];
  let d0 = from === dayStartOf(from) ? from : dayStartOf(from) + DAY_MS;
  const d1 = dayStartOf(to);
  if (d0 > d1) edges.push({ day: dayStartOf(from), lo: quarterIn(from), hi: quarterIn(to) });
  else {
    if (from < d0) edges.push({ day: dayStartOf(from), lo: quarterIn(from), hi: QUARTERS });
    if (to > d1) edges.push({ day: d1, lo: 0, hi: quarterIn(to) });
  }
  // The whole days [d0, d1): whole months as months, the rest as days.
  const periods: Array<[Grain, number]> = [];
  while (d0 < d1) {
    const m = monthStartOf(d0);
    if (m === d0 && nextMonthStart(m) <= d1) {
      periods.push(['m', m]);
      d0 = nextMonthStart(m);
    } else {
      periods.push(['d', d0]);
      d0 += DAY_MS;
    }
  }
  const Stat = own(deps).Stat;
  const ids = periods.map(([g, t]) => rollupId(publisherId, v, g, t));
  const edgeSlots = new Set<string>();
  for (const e of edges) for (const n of [...prefixNodes(e.hi), ...prefixNodes(e.lo)]) edgeSlots.add(`f${n}`);
  const [usable, edgeCells] = await Promise.all([
    ids.length ? readDocuments(deps, publisherId, ids) : Promise.resolve(new Map<string, ParsedDocument>()),
    edges.length
      ? Stat.find({ publisher_id: publisherId, v, g: 'd', t: { $in: edges.map((e) => new Date(e.day)) } }, cellProjection([...edgeSlots])).lean<CellRow[]>()
      : Promise.resolve([] as CellRow[]),
  ]);
  const groups = new Map<string, Sums>();
  const sumsOf = (key: string) => {
    let s = groups.get(key);
    if (!s) groups.set(key, (s = emptySums()));
    return s;
  };
  const missing: Record<Grain, Date[]> = { d: [], m: [] };
  periods.forEach(([g, t], i) => {
    const doc = usable.get(ids[i]!);
    if (!doc) return missing[g].push(new Date(t));
    for (const e of doc.entries) addParsed(sumsOf(e.key), e);
  });
  // Periods without a usable document: their cells' totals.
  const fallback = await Promise.all(
    (['d', 'm'] as const).map((g) =>
      missing[g].length ? Stat.find({ publisher_id: publisherId, v, g, t: { $in: missing[g] } }, cellProjection(TOTAL_SLOTS[g])).lean<CellRow[]>() : [],
    ),
  );
  (['d', 'm'] as const).forEach((g, i) => {
    for (const cell of fallback[i]!) {
      const sums = sumsOf(rollupKey(cell));
      for (const slot of TOTAL_SLOTS[g]) addSlot(sums, cell, slot, 1);
    }
  });
  for (const cell of edgeCells) {
    const t = cell.t!.getTime();
    for (const e of edges) {
      if (e.day !== t) continue;
      const sums = sumsOf(rollupKey(cell));
      for (const n of prefixNodes(e.hi)) addSlot(sums, cell, `f${n}`, 1);
      for (const n of prefixNodes(e.lo)) addSlot(sums, cell, `f${n}`, -1);
    }
  }
  const out: Fact[] = [];
  for (const [key, sums] of groups) factsOf(sums, from, dimsOfKey(key), out);
  return out;
}

/** A built roll-up document as a read merges it: every key's clicks and counters, amounts parsed once. */
interface ParsedEntry {
  key: string;
  c: number;
  s: Array<{ name: string; n: number; a: Dec; m: Dec }>;
}
interface ParsedDocument {
  b?: string;
  w?: number;
  entries: ParsedEntry[];
}

/**
 * The decoded content of built roll-up documents this process read, by `_id`, known by their build
 * token `b` and write count `w`: every write bumps `w` and every build draws a new `b`, so a document
 * whose `b` and `w` are those cached holds exactly what is cached. A read asks the engine for the
 * `b` and `w` of its documents first (a few bytes each), and for the content of those it has not
 * cached (or that changed) only: a past month's document, read by every top list and report of a
 * range over it, is decoded once. Bounded by `ROLLUP_CACHE.keys` keys in all (least recently used
 * first out; the heap it holds per key, measured by bench/stats-rollups-read.bench.ts over a year of
 * one account's 5,000 links and 1,000 sub-IDs, is in bench/README.md); `keys: 0` turns it off.
 */
export const ROLLUP_CACHE = { keys: 100_000 };
const cache = new Map<string, ParsedDocument>();
let cachedKeys = 0;

function remember(id: string, doc: ParsedDocument): void {
  forget(id);
  if (!doc.b || doc.entries.length > ROLLUP_CACHE.keys) return;
  cache.set(id, doc);
  cachedKeys += doc.entries.length;
  for (const [old, d] of cache) {
    if (cachedKeys <= ROLLUP_CACHE.keys) break;
    cache.delete(old);
    cachedKeys -= d.entries.length;
  }
}

function forget(id: string): void {
  const had = cache.get(id);
  if (!had) return;
  cache.delete(id);
  cachedKeys -= had.entries.length;
}

function parseDocument(d: { b?: string; w?: number; k?: Record<string, SlotCounters> }): ParsedDocument {
  const entries: ParsedEntry[] = [];
  for (const key in d.k ?? {}) {
    const e = d.k![key]!;
    const s: ParsedEntry['s'] = [];
    for (const name in e.s ?? {}) {
      const x = e.s![name]!;
      s.push({ name, n: x.n ?? 0, a: storedDec(x.a), m: storedDec(x.m) });
    }
    entries.push({ key, c: e.c ?? 0, s });
  }
  return { b: d.b, w: d.w, entries };
}

/** The usable (built, not over) documents of these ids, decoded: from the cache where their `b` and `w` are the cached ones. */
async function readDocuments(deps: Deps, publisherId: string, ids: string[]): Promise<Map<string, ParsedDocument>> {
  const Rollup = own(deps).StatRollup;
  const out = new Map<string, ParsedDocument>();
  let need = ids;
  if (ROLLUP_CACHE.keys > 0) {
    const heads = await Rollup.find({ publisher_id: publisherId, _id: { $in: ids } }, { _id: 1, ok: 1, over: 1, w: 1, b: 1 }).lean<
      Array<{ _id: string; ok?: boolean; over?: boolean; w?: number; b?: string }>
    >();
    need = [];
    for (const h of heads) {
      if (!h.ok || h.over) continue;
      const hit = cache.get(h._id);
      if (hit && h.b && hit.b === h.b && hit.w === h.w) {
        // Most recently used last.
        cache.delete(h._id);
        cache.set(h._id, hit);
        out.set(h._id, hit);
      } else need.push(h._id);
    }
    if (!need.length) return out;
  }
  const docs = await Rollup.find({ publisher_id: publisherId, _id: { $in: need } }, { _id: 1, ok: 1, over: 1, w: 1, b: 1, k: 1 }).lean<
    Array<{ _id: string; ok?: boolean; over?: boolean; w?: number; b?: string; k?: Record<string, SlotCounters> }>
  >();
  for (const d of docs) {
    if (!d.ok || d.over) continue;
    const parsed = parseDocument(d);
    if (ROLLUP_CACHE.keys > 0) remember(d._id, parsed);
    out.set(d._id, parsed);
  }
  return out;
}

/** Adds a decoded document's key to a group's sums. */
function addParsed(into: Sums, e: ParsedEntry): void {
  into.clicks += e.c;
  for (const x of e.s) {
    let acc = into.keys.get(x.name);
    if (!acc) into.keys.set(x.name, (acc = { n: 0, a: ZERO, m: ZERO }));
    acc.n += x.n;
    acc.a = addDec(acc.a, x.a);
    acc.m = addDec(acc.m, x.m);
  }
}
