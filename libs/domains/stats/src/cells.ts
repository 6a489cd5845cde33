/**
 * The cells of the stats read model and what a click or a conversion adds to them (pure).
 *
 * A fact (a click, or a conversion counted in one state) at instant `at` adds to ten cells: five
 * views (`a`: the account; `p`: program and merchant; `s`: sub-ID; `ps`: both; `l`: the tracked
 * link, with its program and sub-ID; only facts that came through a link) in two grains (`d`: its
 * UTC day; `m`: its UTC month). A day cell counts per quarter hour, in a Fenwick tree
 * over the day's 96 quarters (nodes `f1`..`f96`): the sum of the quarters before any quarter is
 * at most 7 nodes. A month cell holds the month's total (`m`) and counts per day in a Fenwick
 * tree over its 31 days (nodes `d1`..`d31`): the sum of the days before any day is at most 5
 * nodes. So the facts of a month before any quarter-hour instant are at most 5 nodes of the month
 * cell and 7 of one day cell, and every range (a time zone's day, week or month, a report's whole
 * span) costs a few nodes per month it touches, whatever the traffic: every time zone's offset is
 * a whole number of quarter hours.
 */
import { createHash } from 'node:crypto';
import { addDecimals, formatDecimal, parseDecimal, type Dec } from '@cw/money';

export type View = 'a' | 'p' | 's' | 'ps' | 'l';
export type Grain = 'd' | 'm';
export const VIEWS: readonly View[] = ['a', 'p', 's', 'ps', 'l'];

const BASE_VIEWS: readonly View[] = ['a', 'p', 's', 'ps'];

/** Quarter hours in a UTC day: the Fenwick tree's size. */
export const QUARTERS = 96;

export const QUARTER_MS = 15 * 60_000;
export const DAY_MS = 86_400_000;

export const dayStartOf = (t: number) => Math.floor(t / DAY_MS) * DAY_MS;
export const monthStartOf = (t: number) => {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
export const nextMonthStart = (t: number) => {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

/** What a fact is attributed to. */
export interface Attribution {
  publisher_id: string;
  program_id: number | null;
  campaign_id: number | null;
  subid: string;
  /** The tracked link it came through (none: a ledger entry, a sale without a click). */
  link_id?: string | null;
}

/** A cell's identity (stored on insert). */
export interface CellDims {
  publisher_id: string;
  v: View;
  g: Grain;
  t: Date;
  program_id: number | null;
  campaign_id: number | null;
  subid: string | null;
  /** `l` cells only. */
  link_id?: string | null;
}

/** Increments of one cell: counter path to an integer (counts) or a decimal string (money). */
export interface CellInc {
  dims: CellDims;
  counts: Record<string, number>;
  money: Record<string, string>;
}

/** The state a conversion is counted in. */
export interface ConversionFacts {
  status: 'pending' | 'approved' | 'declined';
  paid: boolean;
  source: 'v1' | 'ledger';
  currency: string;
  sale_amount: string;
  commission: string;
}

export const stateKey = (c: { status: string; paid?: boolean | null }) => `${c.status}_${c.paid ? 1 : 0}`;

export function cellId(d: CellDims): string {
  return createHash('sha256')
    .update(
      [
        d.publisher_id,
        d.v,
        d.g,
        d.t.toISOString(),
        d.program_id ?? '',
        d.campaign_id ?? '',
        d.subid ?? '\u0000',
        ...(d.v === 'l' ? [d.link_id ?? ''] : []),
      ].join('\u0001'),
    )
    .digest('base64url')
    .slice(0, 24);
}

function dimsOf(a: Attribution, v: View, g: Grain, at: number): CellDims {
  return {
    publisher_id: a.publisher_id,
    v,
    g,
    t: new Date(g === 'd' ? dayStartOf(at) : monthStartOf(at)),
    program_id: v === 's' || v === 'a' ? null : a.program_id,
    campaign_id: v === 's' || v === 'a' ? null : a.campaign_id,
    subid: v === 'p' || v === 'a' ? null : a.subid,
    ...(v === 'l' ? { link_id: a.link_id ?? null } : {}),
  };
}

/** Days of a month cell's Fenwick tree (every month fits). */
export const MONTH_DAYS = 31;

/** The version of the cells' layout (`fv` of a cell); older cells are rebuilt (./rebuild.ts). */
export const CELL_FORMAT = 3;

/** The Fenwick nodes (of a tree of `size` leaves) a count in leaf `i` (0-based) adds to. */
export function nodesOf(i: number, size = QUARTERS): number[] {
  const out: number[] = [];
  for (let n = i + 1; n <= size; n += n & -n) out.push(n);
  return out;
}

/** The Fenwick nodes whose sum is the count of the leaves before leaf `i` (0..size). */
export function prefixNodes(i: number): number[] {
  const out: number[] = [];
  for (let n = i; n > 0; n -= n & -n) out.push(n);
  return out;
}

/**
 * The slots a fact adds to: its quarter's Fenwick nodes in a day cell; in a month cell, the total
 * `m` and its day's Fenwick nodes.
 */
const slotsOf = (g: Grain, at: number) =>
  g === 'd'
    ? nodesOf(Math.floor((at - dayStartOf(at)) / QUARTER_MS)).map((n) => `f${n}`)
    : ['m', ...nodesOf(Math.floor((at - monthStartOf(at)) / DAY_MS), MONTH_DAYS).map((n) => `d${n}`)];

/** Counter name of conversions in one currency and state. */
export const conversionCounter = (c: Pick<ConversionFacts, 'currency' | 'status' | 'paid' | 'source'>) =>
  `${c.currency}_${c.status}_${c.source}_${c.paid ? 1 : 0}`;

/** A stored cell's counters: clicks per slot, and per slot and counter name `{n, a, m}`. */
export interface StoredCounters {
  c?: Record<string, number>;
  s?: Record<string, Record<string, { n?: number; a?: { toString(): string }; m?: { toString(): string } }>>;
}

/** Accumulates increments per cell; adding and then removing the same fact leaves zeros. */
export class Increments {
  readonly cells = new Map<string, CellInc>();
  /**
   * The cell of each (attribution, view, grain, period) already met, by a plain key: a tracker
   * batch's clicks mostly share their cells, so each cell's id (a SHA-256) is computed once per
   * batch rather than ten times per click.
   */
  private readonly byKey = new Map<string, CellInc>();

  private cell(a: Attribution, v: View, g: Grain, at: number): CellInc {
    const key = `${a.publisher_id}\u0001${v}${g}${g === 'd' ? dayStartOf(at) : monthStartOf(at)}\u0001${a.program_id ?? ''}\u0001${a.campaign_id ?? ''}\u0001${a.subid ?? '\u0000'}\u0001${a.link_id ?? ''}`;
    let c = this.byKey.get(key);
    if (c) return c;
    const dims = dimsOf(a, v, g, at);
    const id = cellId(dims);
    c = this.cells.get(id);
    if (!c) this.cells.set(id, (c = { dims, counts: {}, money: {} }));
    this.byKey.set(key, c);
    return c;
  }

  /** The views a fact adds to: the link's only when it came through one. */
  private static viewsOf(a: Attribution): readonly View[] {
    return a.link_id ? VIEWS : BASE_VIEWS;
  }

  clicks(a: Attribution, at: number, n = 1): void {
    for (const v of Increments.viewsOf(a))
      for (const g of ['d', 'm'] as const) {
        const c = this.cell(a, v, g, at);
        for (const slot of slotsOf(g, at)) c.counts[`c.${slot}`] = (c.counts[`c.${slot}`] ?? 0) + n;
      }
  }

  /** A conversion counted (sign 1) or no longer counted (sign -1) in the given state. */
  conversion(a: Attribution, at: number, f: ConversionFacts, sign: 1 | -1): void {
    const neg = (s: string): Dec => {
      const d = parseDecimal(s);
      return sign === 1 ? d : { units: -d.units, scale: d.scale };
    };
    for (const v of Increments.viewsOf(a))
      for (const g of ['d', 'm'] as const) {
        const c = this.cell(a, v, g, at);
        for (const slot of slotsOf(g, at)) {
          const base = `s.${slot}.${conversionCounter(f)}`;
          c.counts[`${base}.n`] = (c.counts[`${base}.n`] ?? 0) + sign;
          for (const [field, amount] of [
            ['a', f.sale_amount],
            ['m', f.commission],
          ] as const) {
            const path = `${base}.${field}`;
            const sum = addDecimals([...(c.money[path] ? [c.money[path]] : []), neg(amount)]);
            c.money[path] = formatDecimal(sum, sum.scale);
          }
        }
      }
  }

  /** A stored cell's counters, taken away (sign -1) or added (sign 1) as they are. */
  storedCell(id: string, dims: CellDims, counters: StoredCounters, sign: 1 | -1): void {
    let c = this.cells.get(id);
    if (!c) this.cells.set(id, (c = { dims, counts: {}, money: {} }));
    for (const [slot, n] of Object.entries(counters.c ?? {})) c.counts[`c.${slot}`] = (c.counts[`c.${slot}`] ?? 0) + sign * n;
    for (const [slot, keys] of Object.entries(counters.s ?? {}))
      for (const [key, e] of Object.entries(keys)) {
        const base = `s.${slot}.${key}`;
        c.counts[`${base}.n`] = (c.counts[`${base}.n`] ?? 0) + sign * (e.n ?? 0);
        for (const field of ['a', 'm'] as const) {
          const v = e[field];
          if (v === undefined) continue;
          const d = parseDecimal(v.toString());
          const sum = addDecimals([
            ...(c.money[`${base}.${field}`] ? [c.money[`${base}.${field}`]!] : []),
            sign === 1 ? d : { units: -d.units, scale: d.scale },
          ]);
          c.money[`${base}.${field}`] = formatDecimal(sum, sum.scale);
        }
      }
  }

  /** Cells with any non-zero increment, in a stable order. */
  nonZero(): Array<[string, CellInc]> {
    const out: Array<[string, CellInc]> = [];
    for (const [id, c] of this.cells) {
      for (const k of Object.keys(c.counts)) if (c.counts[k] === 0) delete c.counts[k];
      for (const k of Object.keys(c.money)) if (parseDecimal(c.money[k]!).units === 0n) delete c.money[k];
      if (Object.keys(c.counts).length || Object.keys(c.money).length) out.push([id, c]);
    }
    return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}
