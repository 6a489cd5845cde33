import { describe, expect, it } from 'vitest';
import { FORM_1099_NEC_COLUMNS, form1099NecCsv, form1099Threshold, payoutsByCountryCsv, type Form1099Row } from './year-end';

const PAYER = { name: 'CW Affiliate Network GmbH', tin: '12-3456789', address: 'Musterstrasse 1, 10115 Berlin, Germany' };
const row = (over: Partial<Form1099Row> = {}): Form1099Row => ({
  publisherId: 'pub_1',
  name: 'Dana Q. Whitfield',
  tinKind: 'ssn',
  tin: '078-05-1120',
  address: '742 Evergreen Terrace',
  city: 'Springfield',
  state: 'IL',
  zip: '62704',
  usd: '2000.00',
  payouts: 3,
  currencies: ['EUR', 'USD'],
  paypalUsd: '0.00',
  ...over,
});

describe('the 1099-NEC threshold', () => {
  const t = { '2025': '600.00', '2026': '2000.00' };
  it('is the figure of the latest year listed at or before the tax year', () => {
    expect(form1099Threshold(t, 2025)).toBe('600.00');
    expect(form1099Threshold(t, 2026)).toBe('2000.00');
    expect(form1099Threshold(t, 2030)).toBe('2000.00');
    expect(form1099Threshold(t, 2019)).toBe('600.00');
  });
});

describe('1099-nec-Y.csv', () => {
  it('has one row per US payee, box 1 in USD, flagged at or above the threshold, a missing TIN said', () => {
    const csv = form1099NecCsv(2026, PAYER, '2000.00', [row(), row({ publisherId: 'pub_2', usd: '1999.99', tin: '', tinKind: '' })]);
    const [header, a, b] = csv.trimEnd().split('\r\n');
    expect(header).toBe(FORM_1099_NEC_COLUMNS.join(','));
    expect(a).toBe(
      '2026,CW Affiliate Network GmbH,12-3456789,"Musterstrasse 1, 10115 Berlin, Germany",pub_1,Dana Q. Whitfield,ssn,078-05-1120,742 Evergreen Terrace,Springfield,IL,62704,2000.00,3,EUR USD,0.00,2000.00,yes,no',
    );
    expect(b).toMatch(/,1999\.99,3,EUR USD,0\.00,2000\.00,no,yes$/);
  });

  it('never lets a name or an address run as a spreadsheet formula', () => {
    const csv = form1099NecCsv(2026, PAYER, '2000.00', [row({ name: '=HYPERLINK("http://evil.example")', address: '+1 Main St' })]);
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    expect(csv).toContain(",'+1 Main St,");
  });
});

describe('payouts-by-country-Y.csv', () => {
  it('lists payees, payouts and the total per country and currency', () => {
    expect(
      payoutsByCountryCsv([
        { country: 'DE', currency: 'EUR', payees: 2, payouts: 5, total: '1234.50' },
        { country: 'unknown', currency: 'USD', payees: 1, payouts: 1, total: '25.00' },
      ]),
    ).toBe('country,currency,payees,payouts,total\r\nDE,EUR,2,5,1234.50\r\nunknown,USD,1,1,25.00\r\n');
  });
});
