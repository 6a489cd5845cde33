import { describe, expect, it } from 'vitest';
import { ApiError } from '@cw/errors';
import { parsePain002, paymentResults } from './pain002';
import { sandboxBankReport } from './sandbox-bank';
import { sepaCreditTransfer, type SepaPayment } from './sepa-credit-transfer';

const payment = (id: string, name: string, amount: string): SepaPayment => ({
  endToEndId: id,
  amount,
  creditor: { name, iban: 'DE89370400440532013000' },
  remittance: `Commission ${id}`,
});

const exported = (payments: SepaPayment[]) =>
  sepaCreditTransfer({
    messageId: 'run_7Yx2_EUR',
    createdAt: '2025-06-30T09:30:00Z',
    debtor: { name: 'CW Affiliate Network', iban: 'NL91ABNA0417164300', bic: 'ABNANL2A' },
    executionDate: '2025-07-01',
    payments,
  });

describe('sandboxBankReport (the local platform bank)', () => {
  it('answers an exported file with a status report that pays every payout through the same import as a real bank', () => {
    const pain001 = exported([payment('po_a1', 'Ana Publishing', '0.10'), payment('po_b2', 'Bø Media', '9999999.99')]);
    const report = parsePain002(sandboxBankReport(pain001, { createdAt: new Date('2025-07-01T06:00:00Z') }));
    expect(report).toMatchObject({ originalMessageId: 'run_7Yx2_EUR', version: 'pain.002.001.10', group: { status: 'paid' } });
    expect(paymentResults(report, ['po_a1', 'po_b2'])).toEqual([
      { endToEndId: 'po_a1', status: 'paid' },
      { endToEndId: 'po_b2', status: 'paid' },
    ]);
  });

  it('rejects a creditor whose name contains FAIL with AC04 (account closed), and pays the others', () => {
    const pain001 = exported([payment('po_a1', 'Ana Publishing', '10.00'), payment('po_f1', 'FAIL Test GmbH', '20.00'), payment('po_c3', 'Cé Media', '30.00')]);
    const xml = sandboxBankReport(pain001, { createdAt: '2025-07-01T06:00:00Z' });
    expect(xml).toContain('<GrpSts>PART</GrpSts>');
    expect(xml).toContain('<OrgnlCtrlSum>60.00</OrgnlCtrlSum>');
    expect(paymentResults(parsePain002(xml), ['po_a1', 'po_f1', 'po_c3'])).toEqual([
      { endToEndId: 'po_a1', status: 'paid' },
      { endToEndId: 'po_f1', status: 'failed', reason: { code: 'AC04', message: 'The account is closed.' } },
      { endToEndId: 'po_c3', status: 'paid' },
    ]);
    // Asked to pay everything, it does.
    const all = parsePain002(sandboxBankReport(pain001, { createdAt: '2025-07-01T06:00:00Z', failMarkedCreditors: false }));
    expect(all.payments.map((p) => p.status)).toEqual(['paid', 'paid', 'paid']);
  });

  it('refuses a file that is not a pain.001 the platform exported (400 invalid_parameter)', () => {
    for (const [what, xml] of [
      ['a status report', sandboxBankReport(exported([payment('po_a1', 'Ana', '1.00')]), { createdAt: '2025-07-01T06:00:00Z' })],
      ['not XML', 'po_a1,1.00'],
      ['no transactions', exported([payment('po_a1', 'Ana', '1.00')]).replace(/<CdtTrfTxInf>[\s\S]*<\/CdtTrfTxInf>/, '')],
      ['an amount that is no amount', exported([payment('po_a1', 'Ana', '1.00')]).replace('>1.00</InstdAmt>', '>1e2</InstdAmt>')],
    ] as const) {
      let err: unknown;
      try {
        sandboxBankReport(xml, { createdAt: '2025-07-01T06:00:00Z' });
      } catch (e) {
        err = e;
      }
      expect(err, what).toBeInstanceOf(ApiError);
      expect((err as ApiError).code, what).toBe('invalid_parameter');
    }
  });
});
