import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@cw/errors';
import { parsePain002, paymentResults } from './pain002';

const fixture = (name: string) => readFileSync(resolve(import.meta.dirname, '../../test/fixtures/pain002', name), 'utf8');

const refusal = (fn: () => unknown): ApiError => {
  try {
    fn();
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('expected a refusal');
};

describe('parsePain002 (a bank status report)', () => {
  it('reads an accepted report (pain.002.001.10, namespace prefix): settled is paid, in process is pending, and names the payout ids', () => {
    const report = parsePain002(fixture('pain.002.001.10-accepted.xml'));
    expect(report).toMatchObject({
      messageId: 'STS-20250701-0001',
      originalMessageId: 'run_2025-06_eur',
      version: 'pain.002.001.10',
      group: { status: 'pending' },
    });
    expect(report.payments).toEqual([
      { endToEndId: 'po_000001', status: 'paid' },
      { endToEndId: 'po_000002', status: 'pending' },
    ]);
    // A payment the bank does not list takes the group's status: accepted, still pending.
    expect(paymentResults(report, ['po_000001', 'po_000002', 'po_000003'])).toEqual([
      { endToEndId: 'po_000001', status: 'paid' },
      { endToEndId: 'po_000002', status: 'pending' },
      { endToEndId: 'po_000003', status: 'pending' },
    ]);
  });

  it("reads rejections with their reason codes in words (AC01, AM04, AC04, MS03), and a proprietary reason in the bank's words (pain.002.001.03)", () => {
    const report = parsePain002(fixture('pain.002.001.03-rejected.xml'));
    expect(report.version).toBe('pain.002.001.03');
    expect(report.group).toEqual({ status: null });
    expect(report.payments).toEqual([
      { endToEndId: 'po_000001', status: 'failed', reason: { code: 'AC01', message: 'The account number is incorrect.' } },
      { endToEndId: 'po_000002', status: 'failed', reason: { code: 'AM04', message: 'The paying account had insufficient funds.' } },
      { endToEndId: 'po_000003', status: 'failed', reason: { code: 'AC04', message: 'The account is closed.' } },
      { endToEndId: 'po_000004', status: 'failed', reason: { code: 'MS03', message: 'The bank rejected the payment for an unspecified reason.' } },
      { endToEndId: 'po_000005', status: 'failed', reason: { code: 'X99', message: 'Beneficiary bank unreachable retry next day' } },
      { endToEndId: 'po_000006', status: 'pending' },
    ]);
    // Partly accepted: a payment not listed is not decided by the group.
    expect(paymentResults(report, ['po_000007'])).toEqual([{ endToEndId: 'po_000007', status: 'pending' }]);
  });

  it('fails every payment of a file the bank rejected at group level, with the group reason (pain.002.003.03)', () => {
    const report = parsePain002(fixture('pain.002.003.03-group-rejected.xml'));
    expect(report).toMatchObject({ originalMessageId: 'run_2025-06_eur', version: 'pain.002.003.03', payments: [] });
    expect(report.group).toEqual({ status: 'failed', reason: { code: 'AM04', message: 'The paying account had insufficient funds.' } });
    expect(paymentResults(report, ['po_000001', 'po_000002'])).toEqual([
      { endToEndId: 'po_000001', status: 'failed', reason: { code: 'AM04', message: 'The paying account had insufficient funds.' } },
      { endToEndId: 'po_000002', status: 'failed', reason: { code: 'AM04', message: 'The paying account had insufficient funds.' } },
    ]);
  });

  it('names an unusual reason code it has no words for', () => {
    const xml = fixture('pain.002.001.03-rejected.xml').replace('<Cd>AC01</Cd>', '<Cd>ZZ42</Cd>');
    expect(parsePain002(xml).payments[0]).toEqual({
      endToEndId: 'po_000001',
      status: 'failed',
      reason: { code: 'ZZ42', message: 'The bank gave reason code ZZ42.' },
    });
  });

  it('refuses a file that is not a status report, naming what is wrong (400 invalid_parameter, never a crash)', () => {
    const accepted = fixture('pain.002.001.10-accepted.xml');
    const cases: Array<[string, unknown, RegExp]> = [
      ['an empty file', '', /empty/],
      ['not XML', 'payout_id,status\npo_1,paid\n', /not well-formed XML/],
      ['a cut-off file', accepted.slice(0, 400), /not well-formed XML/],
      ['a pain.001 instead', '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><CstmrCdtTrfInitn/></Document>', /CstmrPmtStsRpt is missing/],
      ['no original message id', accepted.replace(/<ns2:OrgnlMsgId>.*?<\/ns2:OrgnlMsgId>/, ''), /OrgnlMsgId is missing/],
      [
        'a transaction without its end-to-end id',
        accepted.replace('<ns2:OrgnlEndToEndId>po.000002</ns2:OrgnlEndToEndId>', ''),
        /TxInfAndSts\[1\]: OrgnlEndToEndId is missing/,
      ],
      ['an unknown status code', accepted.replace('<ns2:TxSts>ACSC</ns2:TxSts>', '<ns2:TxSts>PAID</ns2:TxSts>'), /'PAID' is not an ISO 20022 payment status/],
      [
        'a transaction without status and no group status',
        accepted.replace('<ns2:GrpSts>ACCP</ns2:GrpSts>', '').replace('<ns2:TxSts>ACSP</ns2:TxSts>', ''),
        /TxSts is missing/,
      ],
      [
        'one payment both paid and failed',
        accepted.replace('po.000002', 'po.000001').replace('<ns2:TxSts>ACSP</ns2:TxSts>', '<ns2:TxSts>RJCT</ns2:TxSts>'),
        /reported both paid and failed/,
      ],
      ['a number, not text', 42, /empty/],
      [
        'an end-to-end id that is no reference',
        accepted.replace('po.000002', `po.${'x'.repeat(40)}`),
        /TxInfAndSts\[1\]: OrgnlEndToEndId is not an ISO 20022 reference/,
      ],
      ['markup smuggled into an id', accepted.replace('po.000002', 'po&lt;script&gt;'), /OrgnlEndToEndId is not an ISO 20022 reference/],
    ];
    for (const [what, xml, detail] of cases) {
      const err = refusal(() => parsePain002(xml as string));
      expect(err, what).toBeInstanceOf(ApiError);
      expect([err.status, err.code, err.errors?.[0]?.param], what).toEqual([400, 'invalid_parameter', 'file']);
      expect(err.detail, what).toMatch(detail);
    }
  });
});
