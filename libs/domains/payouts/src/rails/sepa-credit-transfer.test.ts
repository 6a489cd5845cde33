import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@cw/errors';
import { pain001SchemaErrors } from '../../test/schema';
import { sepaCreditTransfer, type SepaCreditTransferInput, type SepaPayment } from './sepa-credit-transfer';

const CREDITOR_IBANS = ['DE89370400440532013000', 'FR1420041010050500013M02606', 'NL91ABNA0417164300', 'BE68539007547034', 'AT611904300234573201'];

const payment = (i: number, over: Partial<SepaPayment> = {}): SepaPayment => ({
  endToEndId: `po_${String(i).padStart(6, '0')}`,
  amount: '12.34',
  creditor: { name: `Publisher ${i} GmbH`, iban: CREDITOR_IBANS[i % CREDITOR_IBANS.length]!, ...(i % 2 ? { bic: 'COBADEFFXXX' } : {}) },
  remittance: `Commission payout po_${i} statement 2025-0${(i % 9) + 1}`,
  ...over,
});

const file = (payments: SepaPayment[], over: Partial<SepaCreditTransferInput> = {}): SepaCreditTransferInput => ({
  messageId: 'run_2025-06_eur',
  createdAt: new Date('2025-06-30T09:30:00.123Z'),
  debtor: { name: 'CW Affiliate Network B.V.', iban: 'NL91 ABNA 0417 1643 00', bic: 'ABNANL2A' },
  executionDate: '2025-07-01',
  payments,
  ...over,
});

const parse = (xml: string) =>
  new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false, isArray: (n) => n === 'CdtTrfTxInf' }).parse(xml) as {
    Document: {
      '@_xmlns': string;
      CstmrCdtTrfInitn: {
        GrpHdr: { MsgId: string; CreDtTm: string; NbOfTxs: string; CtrlSum: string };
        PmtInf: {
          NbOfTxs: string;
          CtrlSum: string;
          DbtrAcct: { Id: { IBAN: string } };
          CdtTrfTxInf: Array<{
            PmtId: { EndToEndId: string };
            Amt: { InstdAmt: { '#text': string; '@_Ccy': string } };
            Cdtr: { Nm: string };
            RmtInf?: { Ustrd: string };
          }>;
        };
      };
    };
  };

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('expected the builder to refuse the input');
};

describe('sepaCreditTransfer (pain.001.001.09, EPC SCT)', () => {
  it('writes a file the EPC schema accepts, for 1, 2 and 500 payments', async () => {
    for (const n of [1, 2, 500]) {
      const xml = sepaCreditTransfer(file(Array.from({ length: n }, (_, i) => payment(i))));
      expect(await pain001SchemaErrors(xml), `${n} payments`).toEqual([]);
      const doc = parse(xml).Document;
      expect(doc['@_xmlns']).toBe('urn:iso:std:iso:20022:tech:xsd:pain.001.001.09');
      expect(doc.CstmrCdtTrfInitn.GrpHdr.NbOfTxs).toBe(String(n));
      expect(doc.CstmrCdtTrfInitn.PmtInf.CdtTrfTxInf).toHaveLength(n);
    }
    // The check itself sees a file the EPC would refuse (charges not shared, a third decimal).
    const xml = sepaCreditTransfer(file([payment(1)]));
    expect(await pain001SchemaErrors(xml.replace('<ChrgBr>SLEV</ChrgBr>', '<ChrgBr>SHAR</ChrgBr>'))).not.toEqual([]);
    expect(await pain001SchemaErrors(xml.replace('>12.34</InstdAmt>', '>12.345</InstdAmt>'))).not.toEqual([]);
  });

  it('brings names and remittance into the SEPA character set, names at most 70 characters, and the schema still accepts the file', async () => {
    const xml = sepaCreditTransfer(
      file([
        payment(1, {
          creditor: { name: 'Jürgen Groß & Søn Æbleskiver — «Łódź» Ørsted Straße_Ünïcödé Çà Marché 東京 ' + 'x'.repeat(80), iban: 'DE89370400440532013000' },
          remittance: 'Provision “Juni” für Müller & Co.\n<script>alert(1)</script>\t' + 'é'.repeat(200),
        }),
      ]),
    );
    expect(await pain001SchemaErrors(xml)).toEqual([]);
    const tx = parse(xml).Document.CstmrCdtTrfInitn.PmtInf.CdtTrfTxInf[0]!;
    const name = tx.Cdtr.Nm;
    const remittance = tx.RmtInf!.Ustrd;
    expect(name).toBe('Jurgen Gross + Son AEbleskiver - .Lodz. Orsted Strasse-Unicode Ca Marc');
    expect(name).toHaveLength(70);
    expect(remittance).toBe(`Provision 'Juni' fur Muller + Co. .script.alert(1)./script. ${'e'.repeat(80)}`);
    expect(remittance).toHaveLength(140);
    for (const text of [name, remittance]) expect(text).toMatch(/^[A-Za-z0-9/\-?:().,'+ ]+$/);
    expect(xml).not.toContain('<script>');
  });

  it('writes the payout id as the EndToEndId in the SEPA set ("_" as "."), the amount with two decimals in EUR', () => {
    const tx = parse(sepaCreditTransfer(file([payment(7, { amount: '5' })]))).Document.CstmrCdtTrfInitn.PmtInf.CdtTrfTxInf[0]!;
    expect(tx.PmtId.EndToEndId).toBe('po.000007');
    expect(tx.Amt.InstdAmt).toEqual({ '#text': '5.00', '@_Ccy': 'EUR' });
  });

  it('counts the transactions and sums the amounts exactly in the group header and the payment block (0.10 + 0.20, 9999999.99 x 3)', () => {
    const cases: Array<[string[], string]> = [
      [['0.10', '0.20'], '0.30'],
      [['9999999.99', '9999999.99', '9999999.99'], '29999999.97'],
      [['0.1', '0.2', '0.3'], '0.60'],
      [['999999999.99', '0.01'], '1000000000.00'],
    ];
    for (const [amounts, sum] of cases) {
      const doc = parse(sepaCreditTransfer(file(amounts.map((amount, i) => payment(i, { amount }))))).Document.CstmrCdtTrfInitn;
      expect([doc.GrpHdr.CtrlSum, doc.PmtInf.CtrlSum], amounts.join('+')).toEqual([sum, sum]);
      expect([doc.GrpHdr.NbOfTxs, doc.PmtInf.NbOfTxs]).toEqual([String(amounts.length), String(amounts.length)]);
    }
  });

  it('writes the debtor IBAN in its electronic form and the creation time to the second', () => {
    const doc = parse(sepaCreditTransfer(file([payment(1)]))).Document.CstmrCdtTrfInitn;
    expect(doc.PmtInf.DbtrAcct.Id.IBAN).toBe('NL91ABNA0417164300');
    expect(doc.GrpHdr.CreDtTm).toBe('2025-06-30T09:30:00Z');
    expect(doc.GrpHdr.MsgId).toBe('run.2025-06.eur');
  });

  it('refuses a file it cannot make correctly before writing any XML, naming the bad value (400 invalid_parameter)', () => {
    const cases: Array<[string, () => unknown, string]> = [
      ['no payments', () => sepaCreditTransfer(file([])), 'payments'],
      ['a creditor IBAN missing', () => sepaCreditTransfer(file([payment(1), payment(2, { creditor: { name: 'X', iban: '' } })])), 'payments[1].creditor.iban'],
      [
        'a wrong check digit',
        () => sepaCreditTransfer(file([payment(1, { creditor: { name: 'X', iban: 'DE88370400440532013000' } })])),
        'payments[0].creditor.iban',
      ],
      [
        'the debtor IBAN missing',
        () => sepaCreditTransfer(file([payment(1)], { debtor: { name: 'CW', iban: undefined as never, bic: 'ABNANL2A' } })),
        'debtor.iban',
      ],
      [
        'a bad BIC',
        () => sepaCreditTransfer(file([payment(1, { creditor: { name: 'X', iban: 'DE89370400440532013000', bic: 'NOPE' } })])),
        'payments[0].creditor.bic',
      ],
      ['an amount as a JS number', () => sepaCreditTransfer(file([payment(1, { amount: 0.3 as never })])), 'payments[0].amount'],
      ['an amount with three decimals', () => sepaCreditTransfer(file([payment(1, { amount: '10.005' })])), 'payments[0].amount'],
      ['a zero amount', () => sepaCreditTransfer(file([payment(1, { amount: '0.00' })])), 'payments[0].amount'],
      ['a negative amount', () => sepaCreditTransfer(file([payment(1, { amount: '-5.00' })])), 'payments[0].amount'],
      ['an amount over the SEPA maximum', () => sepaCreditTransfer(file([payment(1, { amount: '1000000000.00' })])), 'payments[0].amount'],
      ['an amount in exponent notation', () => sepaCreditTransfer(file([payment(1, { amount: '1e3' })])), 'payments[0].amount'],
      ['a payout paid twice', () => sepaCreditTransfer(file([payment(1), payment(1)])), 'payments[1].endToEndId'],
      ['a payout id longer than 35', () => sepaCreditTransfer(file([payment(1, { endToEndId: `po_${'a'.repeat(40)}` })])), 'payments[0].endToEndId'],
      [
        'a name with no Latin letter',
        () => sepaCreditTransfer(file([payment(1, { creditor: { name: '東京', iban: 'DE89370400440532013000' } })])),
        'payments[0].creditor.name',
      ],
      ['an execution date that does not exist', () => sepaCreditTransfer(file([payment(1)], { executionDate: '2025-02-30' })), 'executionDate'],
      ['a creation time that is no time', () => sepaCreditTransfer(file([payment(1)], { createdAt: 'yesterday' })), 'createdAt'],
    ];
    for (const [what, fn, param] of cases) {
      const err = refusal(fn);
      expect(err, what).toBeInstanceOf(ApiError);
      expect([err.status, err.code, err.errors?.[0]?.param], what).toEqual([400, 'invalid_parameter', param]);
      expect(err.detail, what).not.toMatch(/DE\d{20}/);
    }
  });
});
