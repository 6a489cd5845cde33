/**
 * SEPA credit transfer initiation, ISO 20022 `pain.001.001.09` as the EPC's SCT customer-to-PSP
 * implementation guidelines restrict it (EPC132-08, 2023 v1.0): one payment information block
 * (service level SEPA, charges shared, one execution date, one debtor account), one transaction
 * per payout. Amounts are decimal strings added exactly (`@cw/money`); NbOfTxs and CtrlSum are
 * written from them, never through a float. Every input is checked before any XML is made.
 */
import { XMLBuilder } from 'fast-xml-parser';
import { errors } from '@cw/errors';
import { addDecimals, compareDecimals, formatDecimal, type Dec } from '@cw/money';
import { exactAmount, validBic, validDate, validDateTime, validIban } from './rail-values';
import { toSepaReference, toSepaText } from './sepa-charset';

export const PAIN_001_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09';

export interface SepaPayment {
  /** The payout id (`po_…`), written as the EndToEndId the bank's status report names again. */
  endToEndId: string;
  /** EUR, a decimal string with at most 2 decimals, 0.01 to 999999999.99. */
  amount: string;
  creditor: { name: string; iban: string; bic?: string };
  /** Unstructured remittance information (cut to 140 characters of the SEPA set). */
  remittance: string;
}

export interface SepaCreditTransferInput {
  messageId: string;
  createdAt: Date | string;
  debtor: { name: string; iban: string; bic: string };
  /** The requested execution date, YYYY-MM-DD. */
  executionDate: string;
  payments: readonly SepaPayment[];
}

const MAX_AMOUNT = '999999999.99';
/** DecimalNumber: 18 digits, 2 of them decimals. */
const MAX_CONTROL_SUM = '9999999999999999.99';
const NAME_MAX = 70;
const REMITTANCE_MAX = 140;

function sepaName(value: unknown, param: string): string {
  const name = typeof value === 'string' ? toSepaText(value, NAME_MAX) : '';
  if (!/[A-Za-z0-9]/.test(name)) throw errors.invalidParameter(param, 'a name with at least one Latin letter or digit is required.');
  return name;
}

/** The pain.001.001.09 XML (UTF-8) paying every payment from the debtor's account, or a 400 naming the first bad value. */
export function sepaCreditTransfer(input: SepaCreditTransferInput): string {
  const messageId = toSepaReference(input.messageId, 'messageId');
  const createdAt = validDateTime(input.createdAt, 'createdAt');
  const executionDate = validDate(input.executionDate, 'executionDate');
  const debtor = {
    name: sepaName(input.debtor?.name, 'debtor.name'),
    iban: validIban(input.debtor?.iban, 'debtor.iban'),
    bic: validBic(input.debtor?.bic, 'debtor.bic'),
  };
  if (!Array.isArray(input.payments) || input.payments.length === 0) throw errors.invalidParameter('payments', 'at least one payment is required.');

  const seen = new Set<string>();
  const amounts: Dec[] = [];
  const transactions = input.payments.map((p, i) => {
    const at = `payments[${i}]`;
    const endToEndId = toSepaReference(p?.endToEndId, `${at}.endToEndId`);
    if (seen.has(endToEndId)) throw errors.invalidParameter(`${at}.endToEndId`, `${p.endToEndId} is paid twice in this file.`);
    seen.add(endToEndId);
    const amount = exactAmount(p.amount, 2, `${at}.amount`);
    if (compareDecimals(amount.dec, MAX_AMOUNT) > 0) throw errors.invalidParameter(`${at}.amount`, `must be at most ${MAX_AMOUNT} EUR.`);
    amounts.push(amount.dec);
    const name = sepaName(p.creditor?.name, `${at}.creditor.name`);
    const iban = validIban(p.creditor?.iban, `${at}.creditor.iban`);
    const bic = p.creditor?.bic ? validBic(p.creditor.bic, `${at}.creditor.bic`) : undefined;
    const remittance = typeof p.remittance === 'string' ? toSepaText(p.remittance, REMITTANCE_MAX) : '';
    return {
      PmtId: { EndToEndId: endToEndId },
      Amt: { InstdAmt: { '@_Ccy': 'EUR', '#text': amount.text } },
      ...(bic ? { CdtrAgt: { FinInstnId: { BICFI: bic } } } : {}),
      Cdtr: { Nm: name },
      CdtrAcct: { Id: { IBAN: iban } },
      ...(remittance ? { RmtInf: { Ustrd: remittance } } : {}),
    };
  });

  const sum = addDecimals(amounts);
  if (compareDecimals(sum, MAX_CONTROL_SUM) > 0) throw errors.invalidParameter('payments', 'the sum of the amounts is too large for one file.');
  const controlSum = formatDecimal(sum, 2);
  const count = String(transactions.length);

  return new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', format: true, indentBy: '  ' }).build({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    Document: {
      '@_xmlns': PAIN_001_NAMESPACE,
      CstmrCdtTrfInitn: {
        GrpHdr: { MsgId: messageId, CreDtTm: createdAt, NbOfTxs: count, CtrlSum: controlSum, InitgPty: { Nm: debtor.name } },
        PmtInf: {
          PmtInfId: messageId,
          PmtMtd: 'TRF',
          NbOfTxs: count,
          CtrlSum: controlSum,
          PmtTpInf: { SvcLvl: { Cd: 'SEPA' } },
          ReqdExctnDt: { Dt: executionDate },
          Dbtr: { Nm: debtor.name },
          DbtrAcct: { Id: { IBAN: debtor.iban } },
          DbtrAgt: { FinInstnId: { BICFI: debtor.bic } },
          ChrgBr: 'SLEV',
          CdtTrfTxInf: transactions,
        },
      },
    },
  }) as string;
}
