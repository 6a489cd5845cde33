import { describe, expect, it } from 'vitest';
import { ApiError } from '@cw/errors';
import { paypalPayoutsCsv, paypalPayoutsFiles, type PaypalPayout } from './paypal-payouts';

const payout = (over: Partial<PaypalPayout> = {}): PaypalPayout => ({
  payoutId: 'po_a1B2c3D4e5F6',
  email: 'ana@example.com',
  amount: '100.5',
  currency: 'USD',
  note: 'Your commission for June 2025',
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

describe('paypalPayoutsCsv (PayPal Payouts web upload)', () => {
  it('writes one row per payout, no header: e-mail, amount, currency, payout id as customer ID, note, PAYPAL', () => {
    const csv = paypalPayoutsCsv([
      payout(),
      payout({ payoutId: 'po_second', email: 'bo+payouts@example.org', amount: '0.1', note: 'Commission, June; "thanks"' }),
      payout({ payoutId: 'po_third', amount: '9999999.99', note: undefined }),
    ]);
    expect(csv).toBe(
      [
        'ana@example.com,100.50,USD,po_a1B2c3D4e5F6,Your commission for June 2025,PAYPAL',
        'bo+payouts@example.org,0.10,USD,po_second,"Commission, June; ""thanks""",PAYPAL',
        'ana@example.com,9999999.99,USD,po_third,,PAYPAL',
        '',
      ].join('\r\n'),
    );
  });

  it("writes amounts at the currency's unit PayPal takes (JPY, HUF and TWD without decimals), with a decimal comma when asked", () => {
    expect(paypalPayoutsCsv([payout({ amount: '1290', currency: 'JPY' })])).toBe(
      'ana@example.com,1290,JPY,po_a1B2c3D4e5F6,Your commission for June 2025,PAYPAL\r\n',
    );
    expect(paypalPayoutsCsv([payout({ amount: '1290.00', currency: 'HUF' })])).toContain(',1290,HUF,');
    expect(paypalPayoutsCsv([payout({ amount: '100.45', currency: 'EUR' })], { decimalSeparator: ',' })).toBe(
      'ana@example.com,"100,45",EUR,po_a1B2c3D4e5F6,Your commission for June 2025,PAYPAL\r\n',
    );
  });

  it('keeps a note on one line and never starting like a spreadsheet formula', () => {
    const csv = paypalPayoutsCsv([payout({ note: '=HYPERLINK("http://evil.example","click")\nsecond line\u202e' })]);
    expect(csv).toBe('ana@example.com,100.50,USD,po_a1B2c3D4e5F6,"HYPERLINK(""http://evil.example"",""click"") second line",PAYPAL\r\n');
  });

  it('splits a run into one file per currency and at most 5,000 payouts per file', () => {
    const usd = Array.from({ length: 5001 }, (_, i) => payout({ payoutId: `po_usd${i}`, amount: '1.00' }));
    const files = paypalPayoutsFiles([payout({ payoutId: 'po_eur1', currency: 'EUR', amount: '3.00' }), ...usd]);
    expect(files.map((f) => [f.currency, f.part, f.csv.split('\r\n').length - 1])).toEqual([
      ['EUR', 1, 1],
      ['USD', 1, 5000],
      ['USD', 2, 1],
    ]);
  });

  it('refuses what PayPal would refuse or a spreadsheet could run, naming the payout (400 invalid_parameter)', () => {
    const cases: Array<[string, () => unknown, string]> = [
      ['no payouts', () => paypalPayoutsCsv([]), 'payouts'],
      ['two currencies in one file', () => paypalPayoutsCsv([payout(), payout({ payoutId: 'po_b', currency: 'EUR' })]), 'payouts[1].currency'],
      ['a currency PayPal does not pay', () => paypalPayoutsCsv([payout({ currency: 'XAU' })]), 'payouts[0].currency'],
      ['no e-mail', () => paypalPayoutsCsv([payout({ email: '' })]), 'payouts[0].email'],
      ['an e-mail starting like a formula', () => paypalPayoutsCsv([payout({ email: '=cmd|calc@example.com' })]), 'payouts[0].email'],
      ['an e-mail with a comma', () => paypalPayoutsCsv([payout({ email: 'a,b@example.com' })]), 'payouts[0].email'],
      ['a customer ID over 30 characters', () => paypalPayoutsCsv([payout({ payoutId: `po_${'x'.repeat(28)}` })]), 'payouts[0].payoutId'],
      ['a customer ID with a space', () => paypalPayoutsCsv([payout({ payoutId: 'po 1' })]), 'payouts[0].payoutId'],
      ['a payout twice', () => paypalPayoutsCsv([payout(), payout()]), 'payouts[1].payoutId'],
      ['decimals in yen', () => paypalPayoutsCsv([payout({ amount: '12.50', currency: 'JPY' })]), 'payouts[0].amount'],
      ['an amount as a JS number', () => paypalPayoutsCsv([payout({ amount: 100.5 as never })]), 'payouts[0].amount'],
      ['a third decimal', () => paypalPayoutsCsv([payout({ amount: '0.125' })]), 'payouts[0].amount'],
      ['more than 5,000 rows', () => paypalPayoutsCsv(Array.from({ length: 5001 }, (_, i) => payout({ payoutId: `po_${i}` }))), 'payouts'],
      [
        'a bad row in the second file of a split',
        () => paypalPayoutsFiles([payout(), payout({ payoutId: 'po_e', currency: 'EUR', amount: '-1' })]),
        'payouts[1].amount',
      ],
    ];
    for (const [what, fn, param] of cases) {
      const err = refusal(fn);
      expect(err, what).toBeInstanceOf(ApiError);
      expect([err.code, err.errors?.[0]?.param], what).toEqual(['invalid_parameter', param]);
    }
  });
});
