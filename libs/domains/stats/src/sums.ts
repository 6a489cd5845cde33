/**
 * Exact sums of stored counters (clicks, and per conversion counter `{n, sale, commission}`), shared
 * by the cell reads (./reader.ts) and the roll-ups (./rollups.ts).
 */
import { decimal128Dec, formatDecimal, parseDecimal, type Dec, type Decimal128Like } from '@cw/money';
import type { StoredCounters } from './cells';
import type { Fact } from './facts';

/** Sums of one bucket: clicks, and per conversion counter `{n, sale, commission}`. */
export interface Sums {
  clicks: number;
  keys: Map<string, { n: number; a: Dec; m: Dec }>;
}

export const ZERO: Dec = { units: 0n, scale: 0 };

export const emptySums = (): Sums => ({ clicks: 0, keys: new Map() });

/** A stored amount (a Decimal128 or a decimal string) as a decimal. */
export function storedDec(stored: { toString(): string } | undefined): Dec {
  if (stored === undefined) return ZERO;
  return 'bytes' in stored ? decimal128Dec(stored as Decimal128Like) : parseDecimal(stored.toString());
}

/** a + b, exact. */
export function addDec(a: Dec, b: Dec): Dec {
  if (a.scale === b.scale) return { units: a.units + b.units, scale: a.scale };
  return a.scale > b.scale
    ? { units: a.units + b.units * 10n ** BigInt(a.scale - b.scale), scale: a.scale }
    : { units: a.units * 10n ** BigInt(b.scale - a.scale) + b.units, scale: b.scale };
}

/** a + sign * (a stored amount), exact. */
export function plus(a: Dec, stored: { toString(): string }, sign: 1 | -1): Dec {
  const b = storedDec(stored);
  return addDec(a, sign === 1 ? b : { units: -b.units, scale: b.scale });
}

/** One slot's counters: clicks, and per counter name `{n, a, m}`. */
export interface SlotCounters {
  c?: number;
  s?: Record<string, { n?: number; a?: { toString(): string }; m?: { toString(): string } }>;
}

/** Adds (sign 1) or takes away (-1) one slot's counters. */
export function addCounters(into: Sums, slot: SlotCounters | undefined, sign: 1 | -1): void {
  if (!slot) return;
  if (slot.c) into.clicks += sign * slot.c;
  const keys = slot.s;
  if (!keys) return;
  for (const key in keys) {
    const e = keys[key]!;
    let acc = into.keys.get(key);
    if (!acc) into.keys.set(key, (acc = { n: 0, a: ZERO, m: ZERO }));
    acc.n += sign * (e.n ?? 0);
    if (e.a !== undefined) acc.a = plus(acc.a, e.a, sign);
    if (e.m !== undefined) acc.m = plus(acc.m, e.m, sign);
  }
}

/** Adds (sign 1) or takes away (-1) one slot of a stored cell. */
export function addSlot(into: Sums, cell: StoredCounters, slot: string, sign: 1 | -1): void {
  addCounters(into, { c: cell.c?.[slot], s: cell.s?.[slot] }, sign);
}

/** The facts of one group's sums (zero sums left out). */
export function factsOf(sums: Sums, at: number, dims: Pick<Fact, 'program_id' | 'campaign_id' | 'subid' | 'link_id'>, out: Fact[]): void {
  if (sums.clicks) out.push({ at, ...dims, clicks: sums.clicks });
  for (const [key, e] of sums.keys) {
    if (!e.n && e.a.units === 0n && e.m.units === 0n) continue;
    const [currency, status, source, paid] = key.split('_');
    out.push({
      at,
      ...dims,
      clicks: 0,
      conversion: {
        currency: currency!,
        status: status as 'pending',
        source: source as 'v1',
        paid: paid === '1',
        n: e.n,
        sale: formatDecimal(e.a, e.a.scale),
        commission: formatDecimal(e.m, e.m.scale),
      },
    });
  }
}
