import { describe, expect, it } from 'vitest';
import { Decimal128, Double, Int32, Long } from 'bson';
import { keyString } from './bson-values';

describe('keyString', () => {
  it('gives a safe integer (its fast path) the key of the same number in every numeric type', () => {
    for (const v of [0, -0, 1, -1, 7, 10, 100, 1000, 123456789, -98765, 2 ** 53 - 1, -(2 ** 53 - 1)]) {
      const key = keyString(v);
      expect(keyString(Long.fromNumber(v))).toBe(key);
      expect(keyString(Decimal128.fromString(String(v)))).toBe(key);
      expect(keyString(new Double(v))).toBe(key);
      if (Math.abs(v) < 2 ** 31) expect(keyString(new Int32(v))).toBe(key);
    }
    expect(keyString(10)).not.toBe(keyString(1));
    expect(keyString(1.5)).not.toBe(keyString(1));
  });
});
