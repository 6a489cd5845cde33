/**
 * The local platform's bank: given a pain.001 the platform exported, the `pain.002.001.10` status
 * report a bank would send once it has paid it, so `payout-run:settle --sandbox` goes through the
 * same import as a real bank's answer. Every transaction is settled (ACSC), except, when asked
 * (the default), those whose creditor name contains "FAIL": rejected with AC04 (account closed).
 */
import { XMLBuilder } from 'fast-xml-parser';
import { addDecimals, formatDecimal } from '@cw/money';
import { PAIN_001_NAMESPACE } from './sepa-credit-transfer';
import { child, children, invalidFile, readIsoXml, textOf } from './iso-xml';
import { exactAmount, validDateTime } from './rail-values';

export const PAIN_002_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.002.001.10';

export interface SandboxBankOptions {
  /** When the bank answers. */
  createdAt: Date | string;
  /** Reject creditors whose name contains "FAIL" with AC04 (default true). */
  failMarkedCreditors?: boolean;
}

function amountOf(text: string | undefined, at: string) {
  try {
    return exactAmount(text, 2, at);
  } catch {
    throw invalidFile(`${at} is not an amount with 2 decimals.`);
  }
}

/** The pain.002 paying (or rejecting) every transaction of `pain001`, or a 400 when it is not a pain.001 the platform makes. */
export function sandboxBankReport(pain001: string, options: SandboxBankOptions): string {
  const createdAt = validDateTime(options.createdAt, 'createdAt');
  const initiation = child(child(readIsoXml(pain001, 'credit transfer file'), 'Document'), 'CstmrCdtTrfInitn');
  if (!initiation || !pain001.includes(PAIN_001_NAMESPACE)) throw invalidFile('not a pain.001.001.09 credit transfer initiation (Document/CstmrCdtTrfInitn).');
  const messageId = textOf(child(initiation, 'GrpHdr'), 'MsgId');
  if (!messageId) throw invalidFile('GrpHdr/MsgId is missing.');
  const failMarked = options.failMarkedCreditors ?? true;

  const statuses = { paid: 0, failed: 0 };
  const blocks = children(initiation, 'PmtInf').map((block, b) => {
    const txs = children(block, 'CdtTrfTxInf').map((tx, t) => {
      const at = `PmtInf[${b}]/CdtTrfTxInf[${t}]`;
      const endToEndId = textOf(child(tx, 'PmtId'), 'EndToEndId');
      if (!endToEndId) throw invalidFile(`${at}: PmtId/EndToEndId is missing.`);
      const instructed = child(child(tx, 'Amt'), 'InstdAmt');
      const amount = amountOf(textOf(child(tx, 'Amt'), 'InstdAmt'), `${at}/Amt/InstdAmt`);
      const currency = typeof instructed?.['@_Ccy'] === 'string' ? instructed['@_Ccy'] : 'EUR';
      const fails = failMarked && (textOf(child(tx, 'Cdtr'), 'Nm') ?? '').includes('FAIL');
      statuses[fails ? 'failed' : 'paid'] += 1;
      return {
        amount: amount.dec,
        xml: {
          StsId: `${t + 1}`,
          OrgnlEndToEndId: endToEndId,
          TxSts: fails ? 'RJCT' : 'ACSC',
          ...(fails ? { StsRsnInf: { Rsn: { Cd: 'AC04' } } } : {}),
          OrgnlTxRef: { Amt: { InstdAmt: { '@_Ccy': currency, '#text': amount.text } } },
        },
      };
    });
    if (!txs.length) throw invalidFile(`PmtInf[${b}] has no CdtTrfTxInf.`);
    return {
      amounts: txs.map((t) => t.amount),
      xml: {
        OrgnlPmtInfId: textOf(block, 'PmtInfId') ?? messageId,
        OrgnlNbOfTxs: String(txs.length),
        OrgnlCtrlSum: formatDecimal(addDecimals(txs.map((t) => t.amount)), 2),
        TxInfAndSts: txs.map((t) => t.xml),
      },
    };
  });
  if (!blocks.length) throw invalidFile('the credit transfer file has no PmtInf.');
  const all = blocks.flatMap((b) => b.amounts);

  return new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', format: true, indentBy: '  ' }).build({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    Document: {
      '@_xmlns': PAIN_002_NAMESPACE,
      CstmrPmtStsRpt: {
        GrpHdr: { MsgId: `SANDBOX-${messageId}`.slice(0, 35), CreDtTm: createdAt },
        OrgnlGrpInfAndSts: {
          OrgnlMsgId: messageId,
          OrgnlMsgNmId: 'pain.001.001.09',
          OrgnlNbOfTxs: String(all.length),
          OrgnlCtrlSum: formatDecimal(addDecimals(all), 2),
          GrpSts: statuses.failed === 0 ? 'ACSC' : statuses.paid === 0 ? 'RJCT' : 'PART',
        },
        OrgnlPmtInfAndSts: blocks.map((b) => b.xml),
      },
    },
  }) as string;
}
