import { describe, expect, it } from 'vitest';
import { pdfText } from './pdf-text';
import { pdfPages } from './pdf-text.test-helper';
import { renderStatementPdf } from './render';
import type { StatementSnapshot } from './snapshot';
import { REVERSE_CHARGE_TEXT } from './vat';

const snapshot = (over: Partial<StatementSnapshot> = {}): StatementSnapshot => ({
  number: '2026-000007',
  document: 'self_billing_statement',
  issued_at: '2026-03-02T09:30:00.000Z',
  supersedes: null,
  payout: {
    id: 'po_0123456789abcdef01234567',
    amount: '1261.24',
    currency: 'EUR',
    paid_at: '2026-03-02T09:30:00.000Z',
    method: { type: 'iban', last4: '3000' },
  },
  issuer: {
    legal_name: 'CW Affiliate Network GmbH',
    address: ['Musterstrasse 1', '10115 Berlin', 'Germany'],
    country: 'DE',
    vat_id: 'DE123456789',
    tax_id: '27/123/45678',
  },
  supplier: {
    account_id: 'pub_zoe',
    name: 'Zoë Müller Médias SARL',
    tax_profile: true,
    kind: 'company',
    address: ['12 rue de la Paix', '75002 Paris', 'France'],
    country: 'FR',
    vat_id: 'FR40303265045',
    tin_kind: 'foreign',
    tin_masked: '•••5045',
  },
  period: { from: '2026-02-01T00:00:00.000Z', to: '2026-03-01T00:00:00.000Z' },
  lines: [
    {
      program_id: 7,
      program: 'Trail Shoes EU',
      month: '2026-01',
      currency: 'EUR',
      commission: '1200.00',
      reversals: '-40.00',
      corrections: '0.00',
      amount: '1160.00',
    },
    {
      program_id: null,
      program: 'Network bookings',
      month: '2026-02',
      currency: 'EUR',
      commission: '0.00',
      reversals: '0.00',
      corrections: '25.00',
      amount: '25.00',
    },
    { program_id: 9, program: 'Outdoor UK', month: '2026-02', currency: 'GBP', commission: '64.00', reversals: '0.00', corrections: '0.00', amount: '64.00' },
  ],
  currencies: [
    { currency: 'EUR', lines: '1185.00', brought_forward: '0.00', paid: '1185.00', fx: null, converted: '1185.00' },
    { currency: 'GBP', lines: '64.00', brought_forward: '0.00', paid: '64.00', fx: { to: 'EUR', rate: '1.19125', date: '2026-02-27' }, converted: '76.24' },
  ],
  total: { amount: '1261.24', currency: 'EUR' },
  vat: { treatment: 'reverse_charge', text: REVERSE_CHARGE_TEXT },
  ...over,
});

describe('the statement PDF', () => {
  it('is a PDF whose text names both parties, every line, the rates, the total and the VAT treatment', async () => {
    const pdf = await renderStatementPdf(snapshot());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const [text] = await pdfPages(pdf);
    for (const s of [
      'Self-billing statement',
      '2026-000007',
      'CW Affiliate Network GmbH',
      'DE123456789',
      'Zoë Müller Médias SARL',
      '12 rue de la Paix',
      'FR40303265045',
      'Trail Shoes EU',
      '2026-01',
      '1200.00',
      '-40.00',
      '1160.00',
      'Network bookings',
      'Outdoor UK',
      '1.19125',
      '76.24 EUR',
      '1261.24 EUR',
      'ending 3000',
      'Reverse charge: VAT to be accounted for by the recipient, Art. 196 Directive 2006/112/EC',
    ])
      expect(text).toContain(s);
    expect(text).not.toContain('No tax profile on file');
  });

  it('gives the same bytes for the same snapshot (its creation date is the issue date)', async () => {
    const a = await renderStatementPdf(snapshot());
    const b = await renderStatementPdf(snapshot());
    expect(a.equals(b)).toBe(true);
    expect(a.toString('latin1')).toContain('D:20260302093000Z');
  });

  it('says so when there is no tax profile, and names the statement a correction supersedes', async () => {
    const supplier = {
      ...snapshot().supplier,
      tax_profile: false,
      name: 'Trail Notes',
      kind: null,
      address: [],
      country: null,
      vat_id: null,
      tin_kind: null,
      tin_masked: null,
    };
    const [text] = await pdfPages(await renderStatementPdf(snapshot({ supplier, supersedes: '2026-000003', number: '2026-000009' })));
    expect(text).toContain('No tax profile on file');
    expect(text).toContain('Supersedes statement 2026-000003');
    expect(text).toContain('(correction)');
  });

  it('runs 1,000 lines over pages, each numbered, every line in the text', async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => ({
      program_id: i,
      program: `Program ${i}`,
      month: '2026-02',
      currency: 'EUR',
      commission: `${i}.50`,
      reversals: '0.00',
      corrections: '0.00',
      amount: `${i}.50`,
    }));
    const pages = await pdfPages(await renderStatementPdf(snapshot({ lines })));
    expect(pages.length).toBeGreaterThan(10);
    expect(pages[0]).toContain(`page 1 of ${pages.length}`);
    const all = pages.join('\n');
    expect(all).toContain('Program 0 ');
    expect(all).toContain('Program 999');
    expect(all).toContain('999.50');
  });

  it('writes names outside its font without their diacritics, or "?" (the JSON keeps them)', () => {
    expect(pdfText('Łukasz Wałęsa, Straße 1 €')).toBe('Lukasz Walesa, Straße 1 €');
    expect(pdfText('Ștefan Őrs')).toBe('Stefan Ors');
    expect(pdfText('Αθήνα 東京')).toBe('????? ??');
    expect(pdfText('a\u202Eb\u0000c\nd')).toBe('abc d');
  });
});
