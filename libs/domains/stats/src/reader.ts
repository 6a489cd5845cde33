/**
 * Reading the stats read model: the facts (clicks, conversions per currency and state) of one
 * account over a range of instants, per group (program, sub-ID) and per time bucket.
 *
 * The range and the buckets' starts are instants on quarter hours. What a group counted in a UTC
 * month before such an instant is at most 5 Fenwick nodes of its month cell (the days before) and
 * 7 of one day cell (the quarters before, on that day): ./cells.ts. A bucket's sum is the
 * difference of two such prefixes in each month it touches (a whole month is the cell's total).
 * So a read costs one month cell per group and month the range touches, one day cell per group and
 * bucket edge that is not a UTC midnight, and a few nodes of each: never per day of traffic, never
 * row by row.
 */
import { bucketOf, nextDay, type Bucket, type Calendar } from './calendar';
import { DAY_MS, dayStartOf, monthStartOf, nextMonthStart, prefixNodes, QUARTER_MS, type StoredCounters, type View } from './cells';
import { own, type StatsDeps } from './deps';
import { readRollupFacts, rollupsServe } from './rollups';
import type { Fact, StatsQuery } from './facts';
import { addSlot, factsOf, type Sums } from './sums';

export type { Fact, StatsQuery };

type Deps = Pick<StatsDeps, 'data'>;

interface CellRow extends StoredCounters {
  t: Date;
  program_id: number | null;
  campaign_id: number | null;
  subid: string | null;
  link_id?: string | null;
}

export const viewFor = (q: Pick<StatsQuery, 'bySubid' | 'byProgram' | 'subid' | 'programId' | 'merchantId' | 'byLink' | 'linkIds'>): View => {
  if (q.byLink || q.linkIds) return 'l';
  const subid = q.bySubid || q.subid !== undefined;
  const program = q.byProgram || q.programId !== undefined || q.merchantId !== undefined;
  return subid && program ? 'ps' : subid ? 's' : program ? 'p' : 'a';
};

const quarterOf = (t: number) => {
  const q = (t - dayStartOf(t)) / QUARTER_MS;
  if (!Number.isInteger(q)) throw new Error(`a stats read edge at ${new Date(t).toISOString()} is not on a quarter hour`);
  return q;
};

/** The account's span in the model: its first month's start and its last month's end. */
async function accountSpan(deps: Deps, publisherId: string): Promise<[number, number] | null> {
  const first = { publisher_id: publisherId, v: 'a' as const, g: 'm' as const };
  const [a, b] = await Promise.all([
    own(deps).Stat.findOne(first, { t: 1, _id: 0 }).sort({ t: 1 }).lean<{ t: Date }>(),
    own(deps).Stat.findOne(first, { t: 1, _id: 0 }).sort({ t: -1 }).lean<{ t: Date }>(),
  ]);
  return a && b ? [a.t.getTime(), nextMonthStart(b.t.getTime())] : null;
}

/** Where buckets start in (from, to): local midnights of the calendar where the bucket changes. */
function bucketStarts(calendar: Calendar, bucket: Bucket, from: number, to: number): number[] {
  const out: number[] = [];
  let day = calendar.dayOf(from);
  for (;;) {
    const next = nextDay(day);
    const start = calendar.dayStart(next);
    if (start >= to) return out;
    if (start > from && bucketOf(next, bucket) !== bucketOf(day, bucket)) out.push(start);
    day = next;
  }
}

/** Every fact of the query: per group and bucket, filters applied, zero sums left out. */
export async function readFacts(deps: Deps, q: StatsQuery): Promise<Fact[]> {
  let from = q.from;
  let to = q.to;
  if (from === undefined || to === undefined) {
    const span = await accountSpan(deps, q.publisherId);
    if (!span) return [];
    from = Math.max(from ?? span[0], span[0]);
    to = Math.min(to ?? span[1], span[1]);
  }
  if (from >= to) return [];
  // A range's totals per sub-ID, program or link: the roll-ups (a bounded number of documents), unless the query asks for the cells.
  if (!q.cells && rollupsServe(q)) return readRollupFacts(deps, q, from, to);
  // Bucket edges, from and to included.
  const edges = [from, ...(q.calendar ? bucketStarts(q.calendar, q.bucket ?? 'day', from, to) : []), to];
  const firstMonth = monthStartOf(from);
  // Every instant a prefix is read at: the edges and the months' bounds between them.
  const points = new Set(edges);
  for (let m = nextMonthStart(firstMonth); m < to; m = nextMonthStart(m)) points.add(m);
  const sorted = [...points].sort((a, b) => a - b);
  // The nodes to project: days before each point in its month, quarters before it in its day.
  const monthSlots = new Set<string>(['m']);
  const daySlots = new Set<string>();
  const days = new Set<number>();
  for (const p of sorted) {
    const days0 = Math.floor((p - monthStartOf(p)) / DAY_MS);
    for (const n of prefixNodes(days0)) monthSlots.add(`d${n}`);
    const quarter = quarterOf(p);
    if (quarter === 0) continue;
    days.add(dayStartOf(p));
    for (const n of prefixNodes(quarter)) daySlots.add(`f${n}`);
  }
  const base: Record<string, unknown> = { publisher_id: q.publisherId, v: viewFor(q) };
  if (q.subid !== undefined) base.subid = q.subid;
  if (q.programId !== undefined) base.program_id = q.programId;
  if (q.merchantId !== undefined) base.campaign_id = q.merchantId;
  if (q.linkIds) base.link_id = { $in: q.linkIds };
  const projection = (slots: Set<string>) => {
    const p: Record<string, 0 | 1> = { _id: 0, t: 1, program_id: 1, campaign_id: 1, subid: 1, link_id: 1 };
    for (const s of slots) p[`c.${s}`] = p[`s.${s}`] = 1;
    return p;
  };
  const dayList = [...days].sort((a, b) => a - b);
  const [months, dayCells] = await Promise.all([
    own(deps)
      .Stat.find({ ...base, g: 'm', t: { $gte: new Date(firstMonth), $lt: new Date(to) } }, projection(monthSlots))
      .lean<CellRow[]>(),
    dayList.length
      ? own(deps)
          .Stat.find(
            {
              ...base,
              g: 'd',
              // Days apart (a week's or a range's edges): each by key; most days of their span (a
              // zone's every midnight): the span, read once.
              t:
                dayList.length * 2 < (dayList.at(-1)! - dayList[0]!) / DAY_MS + 1
                  ? { $in: dayList.map((d) => new Date(d)) }
                  : { $gte: new Date(dayList[0]!), $lte: new Date(dayList.at(-1)!) },
            },
            projection(daySlots),
          )
          .lean<CellRow[]>()
      : Promise.resolve([] as CellRow[]),
  ]);
  const groupOf = (r: CellRow) => `${r.program_id ?? ''}\u0001${r.campaign_id ?? ''}\u0001${r.subid ?? '\u0000'}\u0001${r.link_id ?? ''}`;
  const dayOfGroup = new Map<string, CellRow>();
  for (const r of dayCells) if (days.has(r.t.getTime())) dayOfGroup.set(`${groupOf(r)}\u0001${r.t.getTime()}`, r);
  const groups = new Map<string, { row: CellRow; buckets: Sums[] }>();
  /** Adds what the group counted in month `m` (its cell `cell`) before instant p (in [m, next month]). */
  const prefix = (into: Sums, group: string, cell: CellRow, m: number, p: number, sign: 1 | -1) => {
    if (p === m) return;
    if (p === nextMonthStart(m)) return addSlot(into, cell, 'm', sign);
    for (const n of prefixNodes(Math.floor((p - m) / DAY_MS))) addSlot(into, cell, `d${n}`, sign);
    const quarter = quarterOf(p);
    if (quarter === 0) return;
    const day = dayOfGroup.get(`${group}\u0001${dayStartOf(p)}`);
    if (day) for (const n of prefixNodes(quarter)) addSlot(into, day, `f${n}`, sign);
  };
  for (const cell of months) {
    const group = groupOf(cell);
    let g = groups.get(group);
    if (!g) groups.set(group, (g = { row: cell, buckets: edges.slice(0, -1).map(() => ({ clicks: 0, keys: new Map() })) }));
    const m = cell.t.getTime();
    const end = nextMonthStart(m);
    // The points in this month's part of the range, and the bucket each interval between two belongs to.
    let i = lowerBound(sorted, Math.max(m, from));
    let bucket = upperBound(edges, sorted[i]!) - 1;
    for (; i + 1 < sorted.length && sorted[i + 1]! <= end; i++) {
      const lo = sorted[i]!;
      const hi = sorted[i + 1]!;
      while (bucket + 1 < edges.length - 1 && edges[bucket + 1]! <= lo) bucket++;
      prefix(g.buckets[bucket]!, group, cell, m, hi, 1);
      prefix(g.buckets[bucket]!, group, cell, m, lo, -1);
    }
  }
  const out: Fact[] = [];
  for (const { row, buckets } of groups.values()) {
    const dims = { program_id: row.program_id ?? null, campaign_id: row.campaign_id ?? null, subid: row.subid ?? null, link_id: row.link_id ?? null };
    buckets.forEach((sums, i) => factsOf(sums, edges[i]!, dims, out));
  }
  return out;
}

/** The first index of a sorted array whose value is >= x. */
function lowerBound(a: number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index of a sorted array whose value is > x. */
function upperBound(a: number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
