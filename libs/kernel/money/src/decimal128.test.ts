import { Decimal128 } from 'bson';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimal128Dec, decimal128String } from './decimal128';

describe('decimal128String', () => {
  it('gives the string Decimal128 itself gives, for money and for every other value', () => {
    const plain = fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: -30, max: 12 }))
      .map(([neg, units, exp]) => `${neg ? '-' : ''}${units}E${exp}`);
    const money = fc.tuple(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 3 })).map(([units, scale]) => {
      const s = String(units).padStart(scale + 1, '0');
      return scale ? `${s.slice(0, -scale)}.${s.slice(-scale)}` : s;
    });
    const special = fc.constantFrom(
      'NaN',
      'Infinity',
      '-Infinity',
      '0',
      '-0',
      '0.00',
      '-0.000',
      '9007199254740991',
      '9007199254740992',
      '1E+3',
      '0.0000001',
      '0.000001',
    );
    fc.assert(
      fc.property(fc.oneof(plain, money, special), (text) => {
        const d = Decimal128.fromString(text);
        expect(decimal128String(d)).toBe(d.toString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('reads prices as stored: 12.99, 1290, 0.005', () => {
    expect(['12.99', '1290', '0.005', '-3.10'].map((s) => decimal128String(Decimal128.fromString(s)))).toEqual(['12.99', '1290', '0.005', '-3.10']);
  });
});

describe('decimal128Dec', () => {
  it('reads the exact units and scale of every finite value, money or not', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 34n - 1n }), fc.integer({ min: -40, max: 12 }), (neg, units, exp) => {
        const d = decimal128Dec(Decimal128.fromString(`${neg ? '-' : ''}${units}E${exp}`));
        const signed = neg ? -units : units;
        expect(d).toEqual(exp > 0 ? { units: signed * 10n ** BigInt(exp), scale: 0 } : { units: signed, scale: exp === 0 ? 0 : -exp });
      }),
      { numRuns: 20_000 },
    );
    expect(['12.99', '1290', '0.005', '-3.10'].map((s) => decimal128Dec(Decimal128.fromString(s)))).toEqual([
      { units: 1299n, scale: 2 },
      { units: 1290n, scale: 0 },
      { units: 5n, scale: 3 },
      { units: -310n, scale: 2 },
    ]);
    expect(() => decimal128Dec(Decimal128.fromString('NaN'))).toThrow();
  });
});
