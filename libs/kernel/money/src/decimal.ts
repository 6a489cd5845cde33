/**
 * Exact decimal money on strings (never floats): parse, add, multiply, round half-even, format.
 * A value is a bigint of units of 10^-scale.
 */
export interface Dec {
  units: bigint;
  scale: number;
}

const PATTERN = /^(-?)(\d+)(?:\.(\d+))?$/;

export function parseDecimal(s: string): Dec {
  const m = PATTERN.exec(String(s).trim());
  if (!m) throw new Error(`not a decimal: ${s}`);
  const frac = m[3] ?? '';
  const units = BigInt(`${m[2]}${frac}`) * (m[1] ? -1n : 1n);
  return { units, scale: frac.length };
}

function rescale(d: Dec, scale: number): bigint {
  return scale >= d.scale ? d.units * 10n ** BigInt(scale - d.scale) : d.units / 10n ** BigInt(d.scale - scale);
}

export function addDecimals(values: Array<string | Dec>): Dec {
  const ds = values.map((v) => (typeof v === 'string' ? parseDecimal(v) : v));
  const scale = Math.max(0, ...ds.map((d) => d.scale));
  return { units: ds.reduce((acc, d) => acc + rescale(d, scale), 0n), scale };
}

export function multiplyDecimals(a: string | Dec, b: string | Dec): Dec {
  const x = typeof a === 'string' ? parseDecimal(a) : a;
  const y = typeof b === 'string' ? parseDecimal(b) : b;
  return { units: x.units * y.units, scale: x.scale + y.scale };
}

/** a / b to `scale` decimals, rounded half to even; exact (no float on the way). */
export function divideDecimals(a: string | Dec, b: string | Dec, scale: number): Dec {
  const x = typeof a === 'string' ? parseDecimal(a) : a;
  const y = typeof b === 'string' ? parseDecimal(b) : b;
  if (y.units === 0n) throw new Error('division by zero');
  // x/y = (x.units / 10^x.scale) / (y.units / 10^y.scale): one integer division at the target
  // scale, then half-even on the exact remainder.
  const num = x.units * 10n ** BigInt(scale + y.scale);
  const den = y.units * 10n ** BigInt(x.scale);
  const neg = num < 0n !== den < 0n;
  const n = num < 0n ? -num : num;
  const d = den < 0n ? -den : den;
  let q = n / d;
  const twice = (n % d) * 2n;
  if (twice > d || (twice === d && q % 2n === 1n)) q += 1n;
  return { units: neg ? -q : q, scale };
}

/** Rounds half to even (banker's rounding) to `scale` decimals. */
export function roundDecimal(d: Dec, scale: number): Dec {
  if (d.scale <= scale) return { units: rescale(d, scale), scale };
  const factor = 10n ** BigInt(d.scale - scale);
  const neg = d.units < 0n;
  const abs = neg ? -d.units : d.units;
  let q = abs / factor;
  const r = abs % factor;
  const twice = r * 2n;
  if (twice > factor || (twice === factor && q % 2n === 1n)) q += 1n;
  return { units: neg ? -q : q, scale };
}

export function formatDecimal(d: Dec, scale = 2): string {
  const r = roundDecimal(d, scale);
  const neg = r.units < 0n;
  let digits = (neg ? -r.units : r.units).toString().padStart(scale + 1, '0');
  if (scale > 0) digits = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return `${neg ? '-' : ''}${digits}`;
}

export function compareDecimals(a: string | Dec, b: string | Dec): number {
  const x = typeof a === 'string' ? parseDecimal(a) : a;
  const y = typeof b === 'string' ? parseDecimal(b) : b;
  const scale = Math.max(x.scale, y.scale);
  const d = rescale(x, scale) - rescale(y, scale);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}
