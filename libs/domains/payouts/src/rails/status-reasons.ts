/**
 * What the banks' status answers mean for a payout: the ISO 20022 transaction and group status
 * codes as paid / failed / pending, and the common ISO external status reason codes
 * (ExternalStatusReason1Code) in words a publisher reads.
 */

export type PaymentStatus = 'paid' | 'failed' | 'pending';

export interface PaymentReason {
  code: string;
  message: string;
}

/** One payout's outcome: `endToEndId` is the payout id (`po_…`). */
export interface PaymentResult {
  endToEndId: string;
  status: PaymentStatus;
  reason?: PaymentReason;
}

/**
 * Settled (ACSC: the debtor's account debited, ACCC: the creditor's credited) is paid; rejected or
 * cancelled is failed; every other answer (accepted for processing, technical validation, in
 * process, pending, received) is still on its way.
 */
const STATUS: Readonly<Record<string, PaymentStatus>> = {
  ACSC: 'paid',
  ACCC: 'paid',
  RJCT: 'failed',
  CANC: 'failed',
  ACCP: 'pending',
  ACSP: 'pending',
  ACTC: 'pending',
  ACWC: 'pending',
  ACWP: 'pending',
  ACFC: 'pending',
  ACIS: 'pending',
  PATC: 'pending',
  PDNG: 'pending',
  PRES: 'pending',
  RCVD: 'pending',
  BLCK: 'pending',
};

/** The payout status an ISO status code means (undefined: not a status code this reads; PART is a group's, never a payment's). */
export function statusOfCode(code: string): PaymentStatus | undefined {
  return Object.hasOwn(STATUS, code) ? STATUS[code] : undefined;
}

const REASONS: Readonly<Record<string, string>> = {
  AC01: 'The account number is incorrect.',
  AC02: "The paying account's number is not valid.",
  AC03: "The beneficiary's account number is not valid.",
  AC04: 'The account is closed.',
  AC06: 'The account is blocked.',
  AC13: 'The account type does not take this payment.',
  AC14: 'The account type does not take this payment.',
  AG01: 'The account does not take this kind of payment.',
  AG02: 'The payment was not in the form the bank expects.',
  AGNT: 'A bank on the way is incorrect.',
  AM01: 'The amount was zero.',
  AM02: 'The amount is more than the bank allows.',
  AM03: 'The currency is not one the bank takes.',
  AM04: 'The paying account had insufficient funds.',
  AM05: 'The payment was a duplicate.',
  AM09: 'The amount is not the one agreed.',
  AM23: 'The amount is over the settlement limit.',
  BE01: "The beneficiary's name does not match the account.",
  BE04: "The beneficiary's address is missing or incorrect.",
  BE05: 'The party that sent the payment is not recognised.',
  CNOR: "The beneficiary's bank is not reachable for this payment.",
  CURR: 'The currency is incorrect.',
  CUST: 'The payment was cancelled at the request of the payer.',
  DNOR: 'The paying bank is not reachable for this payment.',
  DT01: 'The date is not valid.',
  DUPL: 'The payment was a duplicate.',
  ED05: 'The settlement of the payment failed.',
  FF01: 'The file was not in a valid format.',
  FOCR: 'The payment was returned after a cancellation request.',
  MD07: 'The account holder is deceased.',
  MS02: 'The payment was refused for a reason the account holder did not give.',
  MS03: 'The bank rejected the payment for an unspecified reason.',
  NARR: 'The bank gave its reason in words only.',
  RC01: "The bank's identifier (BIC) is incorrect.",
  RR01: "The paying account or its holder's identification is missing.",
  RR02: "The payer's name or address is missing.",
  RR03: "The beneficiary's name or address is missing.",
  RR04: 'The payment was stopped for a regulatory reason.',
  SL01: 'A service of the bank stopped the payment.',
  TM01: "The payment arrived after the bank's cut-off time.",
};

/** The words for a reason code, or a sentence naming the code when it is not a common one. */
export function reasonMessage(code: string): string {
  return Object.hasOwn(REASONS, code) ? REASONS[code]! : `The bank gave reason code ${code}.`;
}

/** Whether `code` is one of the common ISO reason codes this knows in words. */
export function isKnownReason(code: string): boolean {
  return Object.hasOwn(REASONS, code);
}
