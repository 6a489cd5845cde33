/**
 * A stored Decimal128 as its exact decimal string, the same string its own `toString()` gives,
 * without the general algorithm's cost for the values money holds (a coefficient under 2^53 and a
 * plain notation: 12.99, 1290, 0.005). Every other value (large coefficients, exponents that need
 * scientific notation, NaN, Infinity) is answered by `toString()` itself. Structural, so this
 * library needs no BSON package: the driver's and mongoose's Decimal128 both carry `bytes`.
 */
export interface Decimal128Like {
  /** The 16 bytes of IEEE 754-2008 decimal128 (BID), little-endian. */
  readonly bytes: Uint8Array;
  toString(): string;
}

import { parseDecimal, type Dec } from './decimal';

const EXPONENT_BIAS = 6176;

/** The little-endian 32-bit word at byte `at` (no DataView or closure per value: this runs per price of every page). */
function u32(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) + b[at + 3]! * 0x1000000;
}

export function decimal128String(d: Decimal128Like): string {
  const b = d.bytes;
  const top = u32(b, 12); // bits 127..96: sign, combination, exponent, coefficient bits 112..96
  // Combination bits 11: NaN, Infinity or the form with an implied 100 prefix (never money).
  if ((top & 0x60000000) === 0x60000000) return d.toString();
  // Coefficient bits 112..53 must be zero for the coefficient to be a safe integer.
  if ((top & 0x1ffff) !== 0 || u32(b, 8) !== 0 || u32(b, 4) >= 0x200000) return d.toString();
  const exponent = ((top >>> 17) & 0x3fff) - EXPONENT_BIAS;
  const digits = String(u32(b, 4) * 2 ** 32 + u32(b, 0));
  // Plain notation only when the exponent is not positive and the adjusted exponent is >= -6.
  if (exponent > 0 || exponent + digits.length - 1 < -6) return d.toString();
  const sign = top & 0x80000000 ? '-' : '';
  if (exponent === 0) return sign + digits;
  const point = digits.length + exponent;
  return point > 0 ? `${sign}${digits.slice(0, point)}.${digits.slice(point)}` : `${sign}0.${'0'.repeat(-point)}${digits}`;
}

/**
 * A stored Decimal128 as an exact decimal (units of 10^-scale, its own scale kept: 1.50 is 150
 * units at scale 2), read from its bytes with no string in between. NaN and the infinities are
 * not amounts: they throw, as parsing their string does.
 */
export function decimal128Dec(d: Decimal128Like): Dec {
  const b = d.bytes;
  const top = u32(b, 12);
  if ((top & 0x60000000) === 0x60000000) return parseDecimal(d.toString());
  const exponent = ((top >>> 17) & 0x3fff) - EXPONENT_BIAS;
  const high = top & 0x1ffff;
  let units =
    high === 0 && u32(b, 8) === 0 && u32(b, 4) < 0x200000
      ? BigInt(u32(b, 4) * 2 ** 32 + u32(b, 0))
      : (BigInt(high) << 96n) | (BigInt(u32(b, 8)) << 64n) | (BigInt(u32(b, 4)) << 32n) | BigInt(u32(b, 0));
  if (top & 0x80000000) units = -units;
  return exponent > 0 ? { units: units * 10n ** BigInt(exponent), scale: 0 } : { units, scale: exponent === 0 ? 0 : -exponent };
}
