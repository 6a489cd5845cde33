/**
 * The generic payouts CSV, for the rails without a file format of their own (US ACH through the
 * bank's portal, and the rest): a header row, then one row per payout. It names the method by
 * its type and last 4 characters only; a full account number is never written (and refused).
 */
import { stringify } from 'csv-stringify/sync';
import { errors } from '@cw/errors';
import { isCurrency, minorUnits } from '@cw/money';
import { exactAmount, plainText, validId } from './rail-values';

export const PAYOUTS_CSV_COLUMNS = ['payout_id', 'publisher_id', 'method_type', 'last4', 'amount', 'currency', 'reference'] as const;

export interface RailPayout {
  payoutId: string;
  publisherId: string;
  /** The payout method's type (`us_ach`, …). */
  methodType: string;
  /** The last 4 characters of the account: never more. */
  last4: string;
  /** A decimal string at the currency's minor unit. */
  amount: string;
  currency: string;
  /** What the payment says to the publisher (at most 140 characters). */
  reference: string;
}

const REFERENCE_MAX = 140;

/** The CSV of `payouts` (RFC 4180, CRLF), or a 400 naming the first bad value. */
export function payoutsCsv(payouts: readonly RailPayout[]): string {
  if (!Array.isArray(payouts) || payouts.length === 0) throw errors.invalidParameter('payouts', 'at least one payout is required.');
  const seen = new Set<string>();
  const rows = payouts.map((p, i) => {
    const at = `payouts[${i}]`;
    const payoutId = validId(p?.payoutId, `${at}.payoutId`);
    if (seen.has(payoutId)) throw errors.invalidParameter(`${at}.payoutId`, `${payoutId} is paid twice in this file.`);
    seen.add(payoutId);
    const publisherId = validId(p.publisherId, `${at}.publisherId`);
    if (typeof p.methodType !== 'string' || !/^[a-z][a-z0-9_]{0,31}$/.test(p.methodType))
      throw errors.invalidParameter(`${at}.methodType`, 'must be a method type such as "us_ach".');
    if (typeof p.last4 !== 'string' || !/^[A-Za-z0-9]{4}$/.test(p.last4)) {
      throw errors.invalidParameter(`${at}.last4`, 'must be exactly the last 4 characters of the account (a full account number is never written).');
    }
    if (typeof p.currency !== 'string' || !isCurrency(p.currency)) throw errors.invalidParameter(`${at}.currency`, 'must be an ISO 4217 currency code.');
    const amount = exactAmount(p.amount, minorUnits(p.currency), `${at}.amount`).text;
    return [payoutId, publisherId, p.methodType, p.last4, amount, p.currency, plainText(p.reference, REFERENCE_MAX)];
  });
  return stringify(rows, { header: true, columns: [...PAYOUTS_CSV_COLUMNS], record_delimiter: 'windows', escape_formulas: true });
}
