/** Exact arithmetic on the API's decimal strings (money never goes through floats). */

function parse(s: string): { units: bigint; scale: number } {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(s.trim());
  if (!m) throw new Error(`not a decimal: ${s}`);
  const frac = m[3] ?? '';
  const units = BigInt(`${m[2]}${frac}`);
  return { units: m[1] ? -units : units, scale: frac.length };
}

const at = (d: { units: bigint; scale: number }, scale: number) => d.units * 10n ** BigInt(scale - d.scale);

/**
 * The change from `previous` to `current` as a ratio, a decimal string to 4 places (0.1250 is
 * +12.5%), rounded half away from zero; null when `previous` is zero.
 */
export function relativeChange(current: string | number, previous: string | number): string | null {
  const a = parse(String(current));
  const b = parse(String(previous));
  const scale = Math.max(a.scale, b.scale);
  const x = at(a, scale);
  const y = at(b, scale);
  if (y === 0n) return null;
  const num = (x - y) * 100_000n;
  let q = num / (y < 0n ? -y : y);
  q = q >= 0n ? (q + 5n) / 10n : (q - 5n) / 10n;
  const neg = q < 0n;
  const abs = (neg ? -q : q).toString().padStart(5, '0');
  return `${neg ? '-' : ''}${abs.slice(0, -4)}.${abs.slice(-4)}`;
}

/** Whether a decimal string is zero. */
export const isZero = (s: string) => parse(s).units === 0n;
