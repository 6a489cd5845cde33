import { describe, expect, it } from 'vitest';
import { ApiError } from '@cw/errors';
import { payoutsCsv, type RailPayout } from './payouts-csv';

const payout = (over: Partial<RailPayout> = {}): RailPayout => ({
  payoutId: 'po_ach1',
  publisherId: 'pub_123',
  methodType: 'us_ach',
  last4: '6789',
  amount: '250',
  currency: 'USD',
  reference: 'CW commission 2025-06',
  ...over,
});

const refusal = (fn: () => unknown): ApiError => {
  try {
    fn();
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('expected a refusal');
};

describe('payoutsCsv (the other rails)', () => {
  it('writes the header and one row per payout: id, publisher, method type, last 4, amount at the minor unit, currency, reference', () => {
    const csv = payoutsCsv([
      payout(),
      payout({ payoutId: 'po_ach2', publisherId: 'pub_456', last4: '0001', amount: '0.1', reference: 'June, with "bonus"' }),
      payout({ payoutId: 'po_jpy', methodType: 'wire', last4: 'AB12', amount: '1290', currency: 'JPY' }),
      payout({ payoutId: 'po_bhd', amount: '1.25', currency: 'BHD' }),
    ]);
    expect(csv).toBe(
      [
        'payout_id,publisher_id,method_type,last4,amount,currency,reference',
        'po_ach1,pub_123,us_ach,6789,250.00,USD,CW commission 2025-06',
        'po_ach2,pub_456,us_ach,0001,0.10,USD,"June, with ""bonus"""',
        'po_jpy,pub_123,wire,AB12,1290,JPY,CW commission 2025-06',
        'po_bhd,pub_123,us_ach,6789,1.250,BHD,CW commission 2025-06',
        '',
      ].join('\r\n'),
    );
  });

  it('writes a reference that starts like a formula so that a spreadsheet shows it as text', () => {
    expect(payoutsCsv([payout({ reference: '=1+1' })]).split('\r\n')[1]).toBe("po_ach1,pub_123,us_ach,6789,250.00,USD,'=1+1");
    expect(payoutsCsv([payout({ reference: '@SUM(A1)\r\nx' })]).split('\r\n')[1]).toBe("po_ach1,pub_123,us_ach,6789,250.00,USD,'@SUM(A1) x");
  });

  it('refuses a full account number, a bad amount or a payout twice, naming it (400 invalid_parameter)', () => {
    const cases: Array<[string, () => unknown, string]> = [
      ['a full account number as last4', () => payoutsCsv([payout({ last4: '000123456789' })]), 'payouts[0].last4'],
      ['three characters as last4', () => payoutsCsv([payout({ last4: '789' })]), 'payouts[0].last4'],
      ['an amount as a JS number', () => payoutsCsv([payout({ amount: 250 as never })]), 'payouts[0].amount'],
      ['cents in yen', () => payoutsCsv([payout({ amount: '12.5', currency: 'JPY' })]), 'payouts[0].amount'],
      ['an unknown currency', () => payoutsCsv([payout({ currency: 'EURO' })]), 'payouts[0].currency'],
      ['a method type with a formula', () => payoutsCsv([payout({ methodType: '=cmd' })]), 'payouts[0].methodType'],
      ['a payout twice', () => payoutsCsv([payout(), payout()]), 'payouts[1].payoutId'],
      ['no payouts', () => payoutsCsv([]), 'payouts'],
    ];
    for (const [what, fn, param] of cases) {
      const err = refusal(fn);
      expect(err, what).toBeInstanceOf(ApiError);
      expect([err.code, err.errors?.[0]?.param], what).toEqual(['invalid_parameter', param]);
      expect(err.detail, what).not.toContain('000123456789');
    }
  });
});
