/**
 * Reading a bank's customer payment status report (ISO 20022 `pain.002`: 001.03, the German
 * 003.03, 001.10 and the other versions banks send, with or without a namespace prefix): the
 * group status, each payment block's status and each transaction's `TxSts` with its reasons
 * (`StsRsnInf/Rsn/Cd` or `Prtry`). A transaction's own status wins; a payment not listed takes its
 * block's status, else the group's (a whole file rejected at group level fails every payment).
 */
import { fromSepaReference } from './sepa-charset';
import { child, children, invalidFile, readIsoXml, textOf, type XmlNode } from './iso-xml';
import { plainText } from './rail-values';
import { isKnownReason, reasonMessage, statusOfCode, type PaymentReason, type PaymentResult, type PaymentStatus } from './status-reasons';

export interface StatusReport {
  /** The report's own message id. */
  messageId: string | undefined;
  /** The id of the pain.001 it answers (the platform's message id). */
  originalMessageId: string;
  /** The pain.002 version, from its namespace (`pain.002.001.10`), when it declares one. */
  version: string | undefined;
  /** The status every payment not listed otherwise takes (null: none, or PART: only the listed ones count). */
  group: { status: PaymentStatus | null; reason?: PaymentReason };
  /** The payment blocks' statuses, by their id (the platform writes one block per file). */
  blocks: Array<{ id: string | undefined; status: PaymentStatus | null; reason?: PaymentReason }>;
  /** Each transaction the report names (`endToEndId`: the payout id). */
  payments: PaymentResult[];
}

const REASON_TEXT_MAX = 300;

/** The first reason a `StsRsnInf` list gives: the ISO code in words, or the bank's own words when the code is not a common one. */
function reasonOf(node: XmlNode): PaymentReason | undefined {
  const info = children(node, 'StsRsnInf')[0];
  if (!info) return undefined;
  const rsn = child(info, 'Rsn');
  const raw = textOf(rsn, 'Cd') ?? textOf(rsn, 'Prtry');
  const extra = info['AddtlInf'];
  const words = plainText(Array.isArray(extra) ? extra.filter((t): t is string => typeof t === 'string').join(' ') : '', REASON_TEXT_MAX);
  const code = raw === undefined ? '' : plainText(raw, 35);
  if (!code) return words ? { code: 'NARR', message: words } : undefined;
  return { code, message: !isKnownReason(code) && words ? words : reasonMessage(code) };
}

/** An id as ISO 20022 carries it (Max35Text), in the SEPA set or with the "_" of other senders. */
function isReference(text: string): boolean {
  return /^[A-Za-z0-9/\-?:().,'+ _]{1,35}$/.test(text);
}

function statusOf(code: string | undefined, at: string, group: boolean): PaymentStatus | null {
  if (code === undefined || (group && code === 'PART')) return null;
  const status = statusOfCode(code);
  if (!status) throw invalidFile(`${at}: '${plainText(code, 10)}' is not an ISO 20022 payment status.`);
  return status;
}

/** The report in `xml`, or a 400 (`invalid_parameter`, param `file`) naming what is wrong. */
export function parsePain002(xml: string): StatusReport {
  const root = readIsoXml(xml, 'status report');
  const report = child(child(root, 'Document'), 'CstmrPmtStsRpt');
  if (!report) throw invalidFile('not a pain.002 customer payment status report (Document/CstmrPmtStsRpt is missing).');
  const group = child(report, 'OrgnlGrpInfAndSts');
  if (!group) throw invalidFile('OrgnlGrpInfAndSts is missing.');
  const originalMessageId = textOf(group, 'OrgnlMsgId');
  if (!originalMessageId) throw invalidFile('OrgnlGrpInfAndSts/OrgnlMsgId is missing.');
  if (!isReference(originalMessageId)) throw invalidFile('OrgnlGrpInfAndSts/OrgnlMsgId is not an ISO 20022 reference (at most 35 characters).');
  const version = /xmlns(?::\w+)?="urn:iso:std:iso:20022:tech:xsd:(pain\.002\.\d{3}\.\d{2})"/.exec(xml)?.[1];

  const groupStatus = statusOf(textOf(group, 'GrpSts'), 'OrgnlGrpInfAndSts/GrpSts', true);
  const blocks: StatusReport['blocks'] = [];
  const byId = new Map<string, PaymentResult>();
  children(report, 'OrgnlPmtInfAndSts').forEach((block, b) => {
    const at = `OrgnlPmtInfAndSts[${b}]`;
    const blockStatus = statusOf(textOf(block, 'PmtInfSts'), `${at}/PmtInfSts`, true);
    const blockReason = reasonOf(block);
    blocks.push({ id: textOf(block, 'OrgnlPmtInfId'), status: blockStatus, ...(blockReason ? { reason: blockReason } : {}) });
    children(block, 'TxInfAndSts').forEach((tx, t) => {
      const txAt = `${at}/TxInfAndSts[${t}]`;
      const reference = textOf(tx, 'OrgnlEndToEndId');
      if (!reference) throw invalidFile(`${txAt}: OrgnlEndToEndId is missing.`);
      if (!isReference(reference)) throw invalidFile(`${txAt}: OrgnlEndToEndId is not an ISO 20022 reference (at most 35 characters).`);
      const status = statusOf(textOf(tx, 'TxSts'), `${txAt}/TxSts`, false) ?? blockStatus ?? groupStatus;
      if (!status) throw invalidFile(`${txAt}: TxSts is missing and no block or group status applies.`);
      const own = status === 'paid' ? undefined : reasonOf(tx);
      const reason = own ?? (status === 'failed' ? (blockReason ?? reasonOf(group)) : undefined);
      const endToEndId = fromSepaReference(reference);
      const earlier = byId.get(endToEndId);
      if (earlier && earlier.status !== 'pending' && status !== 'pending' && earlier.status !== status) {
        throw invalidFile(`${txAt}: ${reference} is reported both ${earlier.status} and ${status}.`);
      }
      // A final answer wins over a pending one for the same payment.
      if (!earlier || earlier.status === 'pending') byId.set(endToEndId, { endToEndId, status, ...(reason ? { reason } : {}) });
    });
  });

  const groupReason = reasonOf(group);
  return {
    messageId: textOf(child(report, 'GrpHdr'), 'MsgId'),
    originalMessageId: fromSepaReference(originalMessageId),
    version,
    group: { status: groupStatus, ...(groupReason ? { reason: groupReason } : {}) },
    blocks,
    payments: [...byId.values()],
  };
}

/**
 * The outcome of each payout the answered file carried (`endToEndIds`: the payout ids exported in
 * it): its own transaction status when the report lists it, else the payment block's (the
 * platform writes one block per file), else the group's, else pending (the bank has not said).
 */
export function paymentResults(report: StatusReport, endToEndIds: readonly string[]): PaymentResult[] {
  const listed = new Map(report.payments.map((p) => [p.endToEndId, p]));
  const block = report.blocks.length === 1 && report.blocks[0]!.status ? report.blocks[0]! : undefined;
  const blanket = block ?? (report.group.status ? report.group : undefined);
  return endToEndIds.map((endToEndId) => {
    const own = listed.get(endToEndId);
    if (own) return own;
    if (!blanket?.status) return { endToEndId, status: 'pending' };
    return { endToEndId, status: blanket.status, ...(blanket.reason && blanket.status !== 'paid' ? { reason: blanket.reason } : {}) };
  });
}
