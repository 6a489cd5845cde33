/**
 * Reading the stats read model: the facts (clicks, conversions per currency and state) of one
 * account over a range of instants, at the precision a report needs. The cost follows the cells
 * read: a range's whole UTC months from month cells, the rest from day cells (quarter hours at
 * its two edges), never the account's history row by row.
 */
import type { Models } from '@cw/db';
import { DAY_MS, dayStartOf, monthStartOf, nextMonthStart, QUARTER_MS, type View } from './cells';

type Deps = { models: Models };

export interface StatsQuery {
  publisherId: string;
  /** [from, to) in ms, multiples of a quarter hour; absent: the whole history. */
  from?: number;
  to?: number;
  /** Facts carry their quarter hour (day and week reports); otherwise month cells may be read. */
  byTime: boolean;
  bySubid?: boolean;
  byProgram?: boolean;
  subid?: string;
  programId?: number;
  campaignId?: number;
}

/** One counter of one cell, at the precision read: `at` is a quarter hour, or a month start when `byTime` is false. */
export interface Fact {
  at: number;
  program_id: number | null;
  campaign_id: number | null;
  subid: string | null;
  clicks: number;
  /** Conversions: absent on a click fact. */
  conversion?: { currency: string; status: 'pending' | 'approved' | 'declined'; source: 'v1' | 'ledger'; paid: boolean; n: number; sale: string; commission: string };
}

interface CellRow {
  g: 'd' | 'm';
  t: Date;
  program_id: number | null;
  campaign_id: number | null;
  subid: string | null;
  c?: Record<string, number>;
  s?: Record<string, { n?: number; a?: { toString(): string }; m?: { toString(): string } }>;
}

export const viewFor = (q: Pick<StatsQuery, 'bySubid' | 'byProgram' | 'subid' | 'programId' | 'campaignId'>): View => {
  const subid = q.bySubid || q.subid !== undefined;
  const program = q.byProgram || q.programId !== undefined || q.campaignId !== undefined;
  return subid && program ? 'ps' : subid ? 's' : 'p';
};

/** The cells' periods to read: month ranges and day ranges (t of the cell), each [from, to). */
function plan(q: StatsQuery): { months: Array<[number, number]>; days: Array<[number, number]> } {
  if (q.from === undefined || q.to === undefined) return q.byTime ? { months: [], days: [[-8.64e15, 8.64e15]] } : { months: [[-8.64e15, 8.64e15]], days: [] };
  const firstDay = dayStartOf(q.from);
  if (q.byTime) return { months: [], days: [[firstDay, q.to]] };
  const m0 = monthStartOf(q.from) === q.from ? q.from : nextMonthStart(q.from);
  const m1 = monthStartOf(q.to);
  if (m0 >= m1) return { months: [], days: [[firstDay, q.to]] };
  return { months: [[m0, m1]], days: [[firstDay, m0], [m1, q.to]].filter(([a, b]) => a < b) as Array<[number, number]> };
}

/** Every fact of the query (filters applied, quarter hours outside the range dropped). */
export async function readFacts(deps: Deps, q: StatsQuery): Promise<Fact[]> {
  const v = viewFor(q);
  const { months, days } = plan(q);
  const base: Record<string, unknown> = { publisher_id: q.publisherId, v };
  if (q.subid !== undefined) base.subid = q.subid;
  if (q.programId !== undefined) base.program_id = q.programId;
  if (q.campaignId !== undefined) base.campaign_id = q.campaignId;
  const ranges = [...months.map(([a, b]) => ({ g: 'm' as const, a, b })), ...days.map(([a, b]) => ({ g: 'd' as const, a, b }))];
  const reads = await Promise.all(
    ranges.map(({ g, a, b }) =>
      deps.models.Stat.find({ ...base, g, t: { $gte: new Date(a), $lt: new Date(b) } }, { _id: 0, g: 1, t: 1, program_id: 1, campaign_id: 1, subid: 1, c: 1, s: 1 }).lean<CellRow[]>(),
    ),
  );
  const out: Fact[] = [];
  const inRange = (at: number) => (q.from === undefined || at >= q.from) && (q.to === undefined || at < q.to);
  for (const rows of reads)
    for (const r of rows) {
      const t = r.t.getTime();
      const atOf = (slot: string) => (r.g === 'm' ? t : t + Number(slot.slice(1)) * QUARTER_MS);
      const dims = { program_id: r.program_id ?? null, campaign_id: r.campaign_id ?? null, subid: r.subid ?? null };
      for (const [slot, n] of Object.entries(r.c ?? {})) {
        const at = atOf(slot);
        if (n && (r.g === 'm' || inRange(at))) out.push({ at, ...dims, clicks: n });
      }
      for (const [key, e] of Object.entries(r.s ?? {})) {
        const [slot, currency, status, source, paid] = key.split('_');
        const at = atOf(slot!);
        if (r.g === 'd' && !inRange(at)) continue;
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
  return out;
}

export { DAY_MS };
