/**
 * Attacks on the tax profile's input: numbers echoed back in refusals, fields smuggled in, oversized
 * values, names that would run as spreadsheet formulas in the 1099 file.
 */
import { describe, expect, it } from 'vitest';
import { validateTaxProfile } from './validate-tax-profile';
import { form1099NecCsv } from './year-end';

const W9 = {
  kind: 'individual',
  legal_name: 'Dana Q. Whitfield',
  address: { lines: ['742 Evergreen Terrace'], city: 'Springfield', postal_code: '62704', region: 'IL', country: 'US' },
  country: 'US',
  w9: { tin_kind: 'ssn', tin: '078-05-1120' },
  signature: 'Dana Q. Whitfield',
};

const refusalOf = (input: unknown): { status?: number; message: string; errors: Array<{ param: string; detail: string }> } => {
  try {
    validateTaxProfile(input);
  } catch (e) {
    const err = e as { status?: number; message: string; errors?: Array<{ param: string; detail: string }> };
    return { status: err.status, message: err.message, errors: err.errors ?? [] };
  }
  throw new Error('accepted');
};

describe('tax profile refusals', () => {
  it.each([
    ['an SSN with a zero group', { ...W9, w9: { tin_kind: 'ssn', tin: '987-00-6543' } }, ['987006543', '6543']],
    ['an EIN with an unassigned prefix', { ...W9, w9: { tin_kind: 'ein', tin: '07-7654329' } }, ['7654329']],
    [
      'a VAT id with wrong check digits',
      { ...W9, country: 'DE', w9: undefined, w8: { country: 'DE', foreign_tin: 'X1' }, vat_id: 'DE136695977' },
      ['136695977'],
    ],
    ['a foreign TIN of zeros', { ...W9, country: 'FR', w9: undefined, w8: { country: 'FR', foreign_tin: '0000-0000' } }, ['0000-0000']],
  ])('never repeat the number they refuse (%s)', (_what, input, secrets) => {
    const r = refusalOf(JSON.parse(JSON.stringify(input)));
    expect(r.status).toBe(400);
    for (const s of secrets) expect(JSON.stringify(r)).not.toContain(s);
  });

  it('refuse fields the form does not have, at any depth (nothing is stored that was not checked)', () => {
    expect(refusalOf({ ...W9, tin_verified: true }).status).toBe(400);
    expect(refusalOf({ ...W9, w9: { ...W9.w9, backup_withholding: false } }).status).toBe(400);
    expect(refusalOf(JSON.parse(`{"kind":"individual","__proto__":{"form":"w8ben"}}`)).status).toBe(400);
  });

  it('refuse oversized values and too many address lines with a 400 naming the field', () => {
    expect(refusalOf({ ...W9, legal_name: 'A'.repeat(101), signature: 'A'.repeat(101) }).errors[0]!.param).toMatch(/legal_name|signature/);
    expect(refusalOf({ ...W9, address: { ...W9.address, lines: ['a', 'b', 'c', 'd'] } }).errors[0]!.param).toMatch(/address/);
    expect(refusalOf({ ...W9, w9: { tin_kind: 'ssn', tin: '1'.repeat(10_000) } }).status).toBe(400);
  });
});

describe('the 1099 file', () => {
  it('writes a legal name made to look like a formula as text', () => {
    const name = '=cmd|"/c calc"!A1';
    const p = validateTaxProfile({ ...W9, legal_name: name, signature: name });
    const csv = form1099NecCsv(2026, { name: 'Payer', tin: '', address: '' }, '2000.00', [
      {
        publisherId: 'pub_x',
        name: p.legal_name,
        tinKind: 'ssn',
        tin: p.w9!.tin,
        address: '',
        city: '',
        state: '',
        zip: '',
        usd: '1.00',
        payouts: 1,
        currencies: ['USD'],
        paypalUsd: '0.00',
      },
    ]);
    expect(csv).not.toMatch(/(^|,)=cmd/m);
    expect(csv).toContain(`"'=cmd|""/c calc""!A1"`);
  });
});
