import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { convert } from './convert';
import { parseEcbRates, type EcbRates } from './ecb-rates';

const daily = parseEcbRates(readFileSync(new URL('../../test/fx/eurofxref-daily.xml', import.meta.url), 'utf8'));
const made = (rates: Record<string, string>): EcbRates => ({ date: '2025-06-27', base: 'EUR', rates });

describe('converting money with the ECB reference rates', () => {
  it('converts 100.00 GBP to EUR and to USD exactly, through the euro, rounded to the cent', () => {
    // 100 / 0.85365 = 117.1440285831...; 100 x 1.1702 / 0.85365 = 137.0819422479...
    expect(convert('100.00', 'GBP', 'EUR', daily)).toEqual({
      amount: '117.14',
      currency: 'EUR',
      rate: '1.17144028583',
      date: '2025-06-27',
      ecb: { GBP: '0.85365' },
    });
    expect(convert('100.00', 'GBP', 'USD', daily)).toEqual({
      amount: '137.08',
      currency: 'USD',
      rate: '1.37081942248',
      date: '2025-06-27',
      ecb: { GBP: '0.85365', USD: '1.1702' },
    });
  });

  it("rounds to the target currency's minor unit: JPY has no decimals, BHD three", () => {
    // 100 x 169.21 / 0.85365 = 19821.94...; 10000 / 169.21 = 59.0981...; 1290 x 1.1702 / 169.21 = 8.9212...
    expect(convert('100.00', 'GBP', 'JPY', daily)).toMatchObject({ amount: '19822', rate: '198.219410766' });
    expect(convert('10000', 'JPY', 'EUR', daily)).toMatchObject({ amount: '59.10', rate: '0.00590981620472' });
    expect(convert('1290', 'JPY', 'USD', daily)).toMatchObject({ amount: '8.92' });
    expect(convert('10.00', 'EUR', 'BHD', made({ BHD: '0.4412' }))).toMatchObject({ amount: '4.412' });
  });

  it('gives the published rate itself from the euro, and 1 within a currency', () => {
    expect(convert('100.00', 'EUR', 'USD', daily)).toMatchObject({ amount: '117.02', rate: '1.1702', ecb: { USD: '1.1702' } });
    expect(convert('100.00', 'EUR', 'ISK', daily)).toMatchObject({ amount: '14260', rate: '142.6' });
    expect(convert('12.34', 'USD', 'USD', daily)).toMatchObject({ amount: '12.34', rate: '1' });
    expect(convert('7', 'EUR', 'EUR', daily)).toEqual({ amount: '7.00', currency: 'EUR', rate: '1', date: '2025-06-27', ecb: {} });
  });

  it('rounds a half to the even cent, once, on the exact amount (never a float)', () => {
    // 100.00 EUR x 0.85365 = 85.365 -> 85.36 (6 is even); 0.10 x 1.25 = 0.125 -> 0.12; 0.30 x 1.25 = 0.375 -> 0.38
    expect(convert('100.00', 'EUR', 'GBP', daily).amount).toBe('85.36');
    expect(convert('0.10', 'EUR', 'USD', made({ USD: '1.25' })).amount).toBe('0.12');
    expect(convert('0.30', 'EUR', 'USD', made({ USD: '1.25' })).amount).toBe('0.38');
    expect(convert('1', 'EUR', 'JPY', made({ JPY: '162.5' })).amount).toBe('162');
    expect(convert('1', 'EUR', 'JPY', made({ JPY: '163.5' })).amount).toBe('164');
    expect(convert('0.1', 'USD', 'GBP', made({ USD: '0.1', GBP: '0.3' })).amount).toBe('0.30');
    expect(convert('90071992547409.93', 'EUR', 'USD', made({ USD: '1' })).amount).toBe('90071992547409.93');
  });

  it('converts a negative balance symmetrically', () => {
    expect(convert('-100.00', 'GBP', 'USD', daily).amount).toBe('-137.08');
    expect(convert('-0.30', 'EUR', 'USD', made({ USD: '1.25' })).amount).toBe('-0.38');
  });

  it('gives small rates 12 significant digits', () => {
    expect(convert('1000000', 'IDR', 'EUR', daily)).toMatchObject({ amount: '52.65', rate: '0.0000526508103486' });
  });

  it.each([
    ['an amount that is not a decimal', ['1e3', 'GBP', 'USD'], 'amount'],
    ['an amount with a comma', ['1,00', 'GBP', 'USD'], 'amount'],
    ['an amount of 25 digits', ['1'.repeat(25), 'GBP', 'USD'], 'amount'],
    ['a currency the ECB does not publish', ['100.00', 'ARS', 'EUR'], 'from'],
    ['a code that is no currency', ['100.00', 'EUR', 'XYZ'], 'to'],
    ['a lower-case code', ['100.00', 'EUR', 'usd'], 'to'],
    ['a prototype key as a currency', ['100.00', 'EUR', '__proto__'], 'to'],
  ])('refuses %s with a 400 naming the parameter', (_what, [amount, from, to], param) => {
    expect(() => convert(amount!, from!, to!, daily)).toThrow(
      expect.objectContaining({ status: 400, code: 'invalid_parameter', errors: [expect.objectContaining({ param })] }),
    );
  });
});
