import { describe, expect, it } from 'vitest';
import { divideDecimals, addDecimals, compareDecimals, formatDecimal, multiplyDecimals, parseDecimal, roundDecimal } from './decimal';
import { minorUnits, moneyIn, priceWithCurrency } from './currency';

describe('decimal money', () => {
  it('adds without float error', () => {
    expect(formatDecimal(addDecimals(['0.10', '0.20']))).toBe('0.30');
    expect(formatDecimal(addDecimals(Array(10).fill('0.1')), 1)).toBe('1.0');
  });

  it('multiplies by a rate and rounds half to even', () => {
    expect(formatDecimal(multiplyDecimals('10.005', '1'), 2)).toBe('10.00');
    expect(formatDecimal(multiplyDecimals('10.015', '1'), 2)).toBe('10.02');
    expect(formatDecimal(multiplyDecimals('100.00', '1.08'))).toBe('108.00');
    expect(formatDecimal(roundDecimal(parseDecimal('-2.675'), 2))).toBe('-2.68');
  });

  it('compares exactly', () => {
    expect(compareDecimals('10.5', '10.50')).toBe(0);
    expect(compareDecimals('99999999999.9999', '100000000000')).toBe(-1);
  });

  it("formats money at the currency's minor unit (ISO 4217), half to even, never through a float", () => {
    expect([minorUnits('EUR'), minorUnits('JPY'), minorUnits('BHD'), minorUnits('CLF')]).toEqual([2, 0, 3, 4]);
    expect(moneyIn('7', 'EUR')).toBe('7.00');
    expect(moneyIn({ toString: () => '12.3' }, 'EUR')).toBe('12.30');
    expect(moneyIn('-3', 'EUR')).toBe('-3.00');
    expect(moneyIn('1290', 'JPY')).toBe('1290');
    expect(moneyIn('1290.5', 'JPY')).toBe('1290');
    expect(moneyIn('1.25', 'BHD')).toBe('1.250');
    // 0.1 + 0.2 and 1.005 are where floats go wrong.
    expect(moneyIn(addDecimals(['0.1', '0.2']), 'USD')).toBe('0.30');
    expect(moneyIn('1.005', 'USD')).toBe('1.00');
    expect(moneyIn('1.015', 'USD')).toBe('1.02');
    expect(moneyIn('90071992547409.93', 'USD')).toBe('90071992547409.93');
    expect(priceWithCurrency('12.9', 'EUR')).toBe('12.90 EUR');
    expect(priceWithCurrency('1290', 'JPY')).toBe('1290 JPY');
  });

  it('divides exactly with half-even rounding at the asked scale', () => {
    expect(formatDecimal(divideDecimals('10.00', '3', 6), 6)).toBe('3.333333');
    expect(formatDecimal(divideDecimals('100', '1.08', 6), 6)).toBe('92.592593');
    expect(formatDecimal(divideDecimals('0.125', '1', 2), 2)).toBe('0.12');
    expect(formatDecimal(divideDecimals('0.135', '1', 2), 2)).toBe('0.14');
    expect(formatDecimal(divideDecimals('-1', '8', 2), 2)).toBe('-0.12');
    expect(() => divideDecimals('1', '0', 2)).toThrow(/zero/);
  });
});
