/**
 * Reading the stats read model: the facts (clicks, conversions per currency and state) of one
 * account over a range of instants, split where the report's time buckets begin. The cost follows
 * the cells read and the nodes projected from them: a range's whole UTC months from month cells,
 * the rest from day cells, each day read as the few Fenwick nodes (./cells.ts) that give its sums
 * before and after each cut (a local midnight, the range's edges), never per quarter hour and
 * never row by row.
 */
import { addDecimals, formatDecimal, parseDecimal, type Dec } from '@cw/money';
import type { Calendar } from './calendar';
import { DAY_MS, dayStartOf, monthStartOf, nextMonthStart, prefixNodes, QUARTER_MS, QUARTERS, type StoredCounters, type View } from './cells';
import { own, type ConversionsDeps } from '../deps';

type Deps = Pick<ConversionsDeps, 'data'>;

export interface StatsQuery {
  publisherId: string;
  /** [from, to) in ms, multiples of a quarter hour; absent: the whole history. */
  from?: number;
  to?: number;
  /**
   * Time buckets are this calendar's days: facts are split at its local midnights and carry the
   * instant their part starts. Without it, month cells may be read (facts carry a month start).
   */
  calendar?: Calendar;
  bySubid?: boolean;
  byProgram?: boolean;
  subid?: string;
  programId?: number;
  merchantId?: number;
}

/** One counter of one cell's part: `at` is where the part starts (a month start for a month cell). */
export interface Fact {
  at: number;
  program_id: number | null;
  campaign_id: number | null;
  subid: string | null;
  clicks: number;
  /** Conversions: absent on a click fact. */
  conversion?: {
    currency: string;
    status: 'pending' | 'approved' | 'declined';
    source: 'v1' | 'ledger';
    paid: boolean;
    n: number;
    sale: string;
    commission: string;
  };
}

interface CellRow extends StoredCounters {
  g: 'd' | 'm';
  t: Date;
  program_id: number | null;
  campaign_id: number | null;
  subid: string | null;
}

export const viewFor = (q: Pick<StatsQuery, 'bySubid' | 'byProgram' | 'subid' | 'programId' | 'merchantId'>): View => {
  const subid = q.bySubid || q.subid !== undefined;
  const program = q.byProgram || q.programId !== undefined || q.merchantId !== undefined;
  return subid && program ? 'ps' : subid ? 's' : program ? 'p' : 'a';
};

const FAR = 8.64e15;

/** The cells' periods to read: month ranges and day ranges (t of the cell), each [from, to). */
function plan(q: StatsQuery): { months: Array<[number, number]>; days: Array<[number, number]> } {
  if (q.from === undefined || q.to === undefined) return q.calendar ? { months: [], days: [[-FAR, FAR]] } : { months: [[-FAR, FAR]], days: [] };
  const firstDay = dayStartOf(q.from);
  if (q.calendar) return { months: [], days: [[firstDay, q.to]] };
  const m0 = monthStartOf(q.from) === q.from ? q.from : nextMonthStart(q.from);
  const m1 = monthStartOf(q.to);
  if (m0 >= m1) return { months: [], days: [[firstDay, q.to]] };
  return {
    months: [[m0, m1]],
    days: (
      [
        [firstDay, m0],
        [m1, q.to],
      ] as Array<[number, number]>
    ).filter(([a, b]) => a < b),
  };
}

/** Where, in the UTC day starting at `t`, parts begin (quarter indices, 0 and 96 included). */
function cutsOf(t: number, q: StatsQuery): number[] {
  const start = Math.max(t, q.from ?? -FAR);
  const end = Math.min(t + DAY_MS, q.to ?? FAR);
  const cuts = new Set<number>([start, end]);
  if (q.calendar) {
    // Local days starting inside the UTC day (one, two on a day a zone skips, none when aligned).
    for (let day = q.calendar.dayOf(start), s = q.calendar.dayStart(day); s < end;) {
      if (s > start) cuts.add(s);
      const next = new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
      day = next;
      s = q.calendar.dayStart(next);
    }
  }
  return [...cuts]
    .sort((a, b) => a - b)
    .map((c) => {
      const quarter = (c - t) / QUARTER_MS;
      if (!Number.isInteger(quarter)) throw new Error(`a stats read cut at ${new Date(c).toISOString()} is not on a quarter hour`);
      return quarter;
    });
}

const ZERO: Dec = { units: 0n, scale: 0 };
const isZero = (d: Dec) => d.units === 0n;
const minus = (a: Dec, b: Dec) => addDecimals([a, { units: -b.units, scale: b.scale }]);

/** Every fact of the query (filters applied; parts outside the range dropped). */
export async function readFacts(deps: Deps, q: StatsQuery): Promise<Fact[]> {
  const v = viewFor(q);
  const { months, days } = plan(q);
  const base: Record<string, unknown> = { publisher_id: q.publisherId, v };
  if (q.subid !== undefined) base.subid = q.subid;
  if (q.programId !== undefined) base.program_id = q.programId;
  if (q.merchantId !== undefined) base.campaign_id = q.merchantId;
  // The Fenwick nodes the day cells' cuts need (every day when the range is bounded).
  let dayProjection: Record<string, 1> | undefined;
  // (An open-ended range, e.g. only date_from, reads whole day cells: its days cannot be listed.)
  const spanDays = days.reduce((n, [a, b]) => n + (b - a) / DAY_MS, 0);
  if (q.from !== undefined && q.to !== undefined && days.length && spanDays <= 1000) {
    const nodes = new Set<number>();
    for (const [a, b] of days) for (let t = a; t < b; t += DAY_MS) for (const c of cutsOf(t, q)) for (const n of prefixNodes(c)) nodes.add(n);
    dayProjection = {};
    for (const n of nodes) {
      dayProjection[`c.f${n}`] = 1;
      dayProjection[`s.f${n}`] = 1;
    }
  }
  const dims = { _id: 0, g: 1, t: 1, program_id: 1, campaign_id: 1, subid: 1 } as const;
  const reads = await Promise.all([
    ...months.map(([a, b]) =>
      own(deps)
        .Stat.find({ ...base, g: 'm', t: { $gte: new Date(a), $lt: new Date(b) } }, { ...dims, c: 1, s: 1 })
        .lean<CellRow[]>(),
    ),
    ...days.map(([a, b]) =>
      own(deps)
        .Stat.find({ ...base, g: 'd', t: { $gte: new Date(a), $lt: new Date(b) } }, { ...dims, ...(dayProjection ?? { c: 1, s: 1 }) })
        .lean<CellRow[]>(),
    ),
  ]);
  const out: Fact[] = [];
  for (const rows of reads)
    for (const r of rows) {
      const t = r.t.getTime();
      const cellDims = { program_id: r.program_id ?? null, campaign_id: r.campaign_id ?? null, subid: r.subid ?? null };
      if (r.g === 'm') {
        emit(out, t, cellDims, r.c?.m ?? 0, r.s?.m ?? {});
        continue;
      }
      // A day: the sums before each cut, from the nodes; each part is the difference of two.
      const cuts = cutsOf(t, q);
      const before = cuts.map((c) => prefix(r, c));
      for (let i = 0; i + 1 < cuts.length; i++) {
        const lo = before[i]!;
        const hi = before[i + 1]!;
        const keys: Record<string, { n: number; a: string; m: string }> = {};
        for (const key of new Set([...Object.keys(hi.s), ...Object.keys(lo.s)])) {
          const h = hi.s[key] ?? { n: 0, a: ZERO, m: ZERO };
          const l = lo.s[key] ?? { n: 0, a: ZERO, m: ZERO };
          const a = minus(h.a, l.a);
          const m = minus(h.m, l.m);
          if (h.n - l.n === 0 && isZero(a) && isZero(m)) continue;
          keys[key] = { n: h.n - l.n, a: formatDecimal(a, a.scale), m: formatDecimal(m, m.scale) };
        }
        emit(out, t + cuts[i]! * QUARTER_MS, cellDims, hi.clicks - lo.clicks, keys);
      }
    }
  return out;
}

/** Clicks and conversion sums of the quarters before quarter `q` of a day cell. */
function prefix(r: CellRow, q: number): { clicks: number; s: Record<string, { n: number; a: Dec; m: Dec }> } {
  let clicks = 0;
  const s: Record<string, { n: number; a: Dec; m: Dec }> = {};
  if (q === 0) return { clicks, s };
  for (const node of prefixNodes(Math.min(q, QUARTERS))) {
    clicks += r.c?.[`f${node}`] ?? 0;
    for (const [key, e] of Object.entries(r.s?.[`f${node}`] ?? {})) {
      const acc = (s[key] ??= { n: 0, a: ZERO, m: ZERO });
      acc.n += e.n ?? 0;
      if (e.a !== undefined) acc.a = addDecimals([acc.a, parseDecimal(e.a.toString())]);
      if (e.m !== undefined) acc.m = addDecimals([acc.m, parseDecimal(e.m.toString())]);
    }
  }
  return { clicks, s };
}

function emit(
  out: Fact[],
  at: number,
  dims: Pick<Fact, 'program_id' | 'campaign_id' | 'subid'>,
  clicks: number,
  keys: Record<string, { n?: number; a?: { toString(): string }; m?: { toString(): string } }>,
): void {
  if (clicks) out.push({ at, ...dims, clicks });
  for (const [key, e] of Object.entries(keys)) {
    const [currency, status, source, paid] = key.split('_');
    const n = e.n ?? 0;
    const sale = e.a?.toString() ?? '0';
    const commission = e.m?.toString() ?? '0';
    if (!n && /^-?0(\.0*)?$/.test(sale) && /^-?0(\.0*)?$/.test(commission)) continue;
    out.push({
      at,
      ...dims,
      clicks: 0,
      conversion: { currency: currency!, status: status as 'pending', source: source as 'v1', paid: paid === '1', n, sale, commission },
    });
  }
}
