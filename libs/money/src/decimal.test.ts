import { describe, expect, it } from 'vitest';
import { divideDecimals, addDecimals, compareDecimals, formatDecimal, money, multiplyDecimals, parseDecimal, roundDecimal } from './decimal';

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

  it('compares exactly and formats money with two decimals', () => {
    expect(compareDecimals('10.5', '10.50')).toBe(0);
    expect(compareDecimals('99999999999.9999', '100000000000')).toBe(-1);
    expect(money('7')).toBe('7.00');
    expect(money({ toString: () => '12.3' })).toBe('12.30');
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
