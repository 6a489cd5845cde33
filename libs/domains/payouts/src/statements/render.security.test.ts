/**
 * Attacks on the statement PDF through the names it prints (the tax profile's legal name and
 * address, the account's name, program names): PDF syntax, actions and scripts spelled in a name,
 * control and bidi characters, and names far longer than a form allows. The PDF keeps its
 * structure (the same objects as with a plain name, no action, script or link), every name is
 * drawn as the text it is, and nothing breaks the renderer.
 */
import { describe, expect, it } from 'vitest';
import { pdfPages } from './pdf-text.test-helper';
import { renderStatementPdf } from './render';
import type { StatementSnapshot } from './snapshot';

const base: StatementSnapshot = {
  number: '2026-000001',
  document: 'self_billing_statement',
  issued_at: '2026-03-02T09:30:00.000Z',
  supersedes: null,
  payout: { id: 'po_0123456789abcdef01234567', amount: '10.00', currency: 'EUR', paid_at: '2026-03-02T09:30:00.000Z', method: { type: 'iban', last4: '3000' } },
  issuer: { legal_name: 'CW Affiliate Network GmbH', address: ['Musterstrasse 1'], country: 'DE', vat_id: 'DE123456789', tax_id: '27/123/45678' },
  supplier: {
    account_id: 'pub_x',
    name: 'Plain Name',
    tax_profile: true,
    kind: 'company',
    address: ['1 Main Street'],
    country: 'FR',
    vat_id: 'FR40303265045',
    tin_kind: 'foreign',
    tin_masked: '•••5045',
  },
  period: { from: null, to: '2026-03-01T00:00:00.000Z' },
  lines: [
    {
      program_id: 7,
      program: 'Plain Program',
      month: '2026-02',
      currency: 'EUR',
      commission: '10.00',
      reversals: '0.00',
      corrections: '0.00',
      amount: '10.00',
    },
  ],
  currencies: [{ currency: 'EUR', lines: '10.00', brought_forward: '0.00', paid: '10.00', fx: null, converted: '10.00' }],
  total: { amount: '10.00', currency: 'EUR' },
  vat: { treatment: 'undetermined', text: 'VAT treatment undetermined.' },
};

const withNames = (name: string, address: string, program: string): StatementSnapshot => ({
  ...base,
  supplier: { ...base.supplier, name, address: [address] },
  lines: [{ ...base.lines[0]!, program }],
});

/** The PDF's object numbers and the names of its dictionaries' keys that act (scripts, actions, links, files). */
const structureOf = (pdf: Buffer) => {
  const raw = pdf.toString('latin1');
  return {
    objects: (raw.match(/\d+ 0 obj/g) ?? []).length,
    acting: raw.match(/\/(JavaScript|JS|OpenAction|AA|Launch|URI|SubmitForm|EmbeddedFile|RichMedia)\b/g) ?? [],
  };
};

let attacks = 0;

describe('statement PDFs under attack through names', () => {
  it.each([
    ['PDF string and operator syntax', ') Tj ET BT /F1 99 Tf (owned) Tj ET BT (', '\\) \\\\ ( <4142> >>', 'Shop ) Tj (x'],
    [
      'an action and a script',
      '<< /Type /Action /S /JavaScript /JS (app.alert(1)) >>',
      '/OpenAction << /S /Launch /F (calc.exe) >>',
      '/URI (https://evil.example/)',
    ],
    ['the end of a stream and of the file', 'endstream endobj 99 0 obj << >> stream', '%%EOF\ntrailer << /Root 1 0 R >>', 'xref 0 1'],
  ])('keep their structure and draw the name as text: %s', async (_what, name, address, program) => {
    attacks++;
    const plain = structureOf(await renderStatementPdf(base));
    const pdf = await renderStatementPdf(withNames(name, address, program));
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(structureOf(pdf)).toEqual(plain);
    expect(plain.acting).toEqual([]);
    const text = (await pdfPages(pdf)).join('\n').replace(/\s+/g, ' ');
    expect(text).toContain(name.replace(/\s+/g, ' '));
    expect(text).toContain(address.replace(/\s+/g, ' '));
    expect(text).toContain(program.replace(/\s+/g, ' ').trim());
  });

  it('drop control and bidirectional characters, so a name cannot read backwards or break a line', async () => {
    attacks++;
    const pdf = await renderStatementPdf(withNames('Evil\u202Egnp.exe\u0000 Ltd', 'Line\r\nBreak\u2028Street', 'Prog\u2066ram'));
    const text = (await pdfPages(pdf)).join('\n');
    expect(text).toContain('Evilgnp.exe Ltd');
    expect(text).toMatch(/Line +Break Street/);
    expect(text).toContain('Program');
    // eslint-disable-next-line no-control-regex -- the control characters are what must not be there
    expect(text).not.toMatch(/[\u0000-\u0008\u202a-\u202e\u2066-\u2069]/);
  });

  it('render names far longer than any form allows, across pages, without failing', async () => {
    attacks++;
    const long = 'A'.repeat(20_000);
    const pdf = await renderStatementPdf(withNames(long, `${'Street '.repeat(3000)}1`, long));
    const pages = await pdfPages(pdf);
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.join('')).toContain('Self-billing statement');
    expect(structureOf(pdf).acting).toEqual([]);
    console.log(`security: ${attacks} attacks tried, ${attacks} held`);
  });
});
