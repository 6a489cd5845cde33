import { describe, expect, it } from 'vitest';
import { commissionFor, conversionId } from './lifecycle';

describe('commission from program terms', () => {
  it('takes a rate of the sale, exact, rounded half to even at the currency minor unit', () => {
    expect(commissionFor({ commission_rate: '0.08' }, '123.45', 'EUR')).toBe('9.88');
    expect(commissionFor({ commission_rate: '0.05' }, '0.10', 'EUR')).toBe('0.00'); // 0.005 -> even 0.00
    expect(commissionFor({ commission_rate: '0.05' }, '0.30', 'EUR')).toBe('0.02'); // 0.015 -> even 0.02
    expect(commissionFor({ commission_rate: '0.05' }, '0.50', 'EUR')).toBe('0.02'); // 0.025 -> even 0.02
    expect(commissionFor({ commission_rate: '0.1' }, '0.1', 'EUR')).toBe('0.01');
    expect(commissionFor({ commission_rate: '0.07' }, '1015', 'JPY')).toBe('71'); // 71.05 -> 71, no decimals in JPY
    expect(commissionFor({ commission_rate: '0.075' }, '10.000', 'BHD')).toBe('0.750');
  });

  it('pays a fixed amount per sale in the program currency, and refuses a sale in another currency', () => {
    expect(commissionFor({ commission_fixed: '5', currency: 'EUR' }, '80.00', 'EUR')).toBe('5.00');
    expect(() => commissionFor({ commission_fixed: '5', currency: 'EUR' }, '80.00', 'GBP')).toThrow(/program's currency/);
  });

  it('pays nothing on terms without a rate', () => {
    expect(commissionFor({}, '80.00', 'EUR')).toBe('0.00');
  });

  it("maps one merchant's order to one conversion id, different for another merchant", () => {
    expect(conversionId(501, 'A-1')).toBe(conversionId(501, 'A-1'));
    expect(conversionId(501, 'A-1')).not.toBe(conversionId(502, 'A-1'));
    expect(conversionId(501, 'A-1')).toMatch(/^cnv_[A-Za-z0-9_-]{22}$/);
  });
});
