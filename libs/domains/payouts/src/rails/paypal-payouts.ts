/**
 * The PayPal Payouts batch file: the CSV a PayPal business account uploads in its Payouts web page
 * (PayPal Developer, "Payouts Web" / "Send payouts using the web UI"). One row per payout, no
 * header, columns from left to right: recipient identifier (the PayPal e-mail), payment amount,
 * currency (one per file), customer ID (a unique id of at most 30 characters without spaces: the
 * payout id), note to the recipient (at most 400 characters), recipient wallet (`PAYPAL`).
 * At most 5,000 rows per file. Amounts are decimal strings, never floats.
 */
import { stringify } from 'csv-stringify/sync';
import { errors } from '@cw/errors';
import { minorUnits } from '@cw/money';
import { exactAmount, plainText, validId } from './rail-values';

export interface PaypalPayout {
  /** The payout id (`po_…`): the file's customer ID, so PayPal's results name it again. */
  payoutId: string;
  /** The publisher's PayPal e-mail. */
  email: string;
  /** A decimal string at the currency's unit ("12.50"; JPY "1290"). */
  amount: string;
  currency: string;
  note?: string;
}

export interface PaypalFileOptions {
  /**
   * The decimal separator PayPal's upload expects for the sending account ("." by default;
   * "," for accounts whose locale writes "100,45": such amounts are quoted).
   */
  decimalSeparator?: '.' | ',';
}

/** PayPal's currencies for payouts, and those it takes without decimals (PayPal currency codes reference). */
export const PAYPAL_CURRENCIES: readonly string[] = [
  'AUD',
  'BRL',
  'CAD',
  'CHF',
  'CNY',
  'CZK',
  'DKK',
  'EUR',
  'GBP',
  'HKD',
  'HUF',
  'ILS',
  'JPY',
  'MXN',
  'MYR',
  'NOK',
  'NZD',
  'PHP',
  'PLN',
  'SEK',
  'SGD',
  'THB',
  'TWD',
  'USD',
];
const NO_DECIMALS = new Set(['HUF', 'JPY', 'TWD']);
export const PAYPAL_MAX_ROWS = 5000;
const CUSTOMER_ID_MAX = 30;
const NOTE_MAX = 400;

/** An address PayPal takes and a spreadsheet never reads as a formula (no leading = + - @). */
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*/?^_`{|}~][A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

function paypalRow(p: PaypalPayout, i: number, currency: string, separator: '.' | ','): string[] {
  const at = `payouts[${i}]`;
  const payoutId = validId(p?.payoutId, `${at}.payoutId`, CUSTOMER_ID_MAX);
  const email = typeof p.email === 'string' ? p.email.trim() : '';
  if (email.length > 254 || !EMAIL.test(email)) throw errors.invalidParameter(`${at}.email`, 'is not an e-mail address PayPal takes.');
  if (p.currency !== currency)
    throw errors.invalidParameter(`${at}.currency`, `a PayPal file holds one currency (${currency}); pay ${p.currency} in its own file.`);
  const amount = exactAmount(p.amount, NO_DECIMALS.has(currency) ? 0 : minorUnits(currency), `${at}.amount`).text;
  // The note is the platform's text: never a formula's first character, whatever it starts with.
  const note = plainText(p.note, NOTE_MAX).replace(/^[=+\-@\s]+/, '');
  return [email, separator === ',' ? amount.replace('.', ',') : amount, currency, payoutId, note, 'PAYPAL'];
}

/** The rows of one file; `at` is each payout's index in the caller's list, for the errors. */
function paypalFile(entries: ReadonlyArray<{ p: PaypalPayout; at: number }>, options: PaypalFileOptions): string {
  const currency = entries[0]!.p.currency;
  if (!PAYPAL_CURRENCIES.includes(currency)) throw errors.invalidParameter(`payouts[${entries[0]!.at}].currency`, 'is not a currency PayPal pays out.');
  const separator = options.decimalSeparator ?? '.';
  const seen = new Set<string>();
  const rows = entries.map(({ p, at }) => {
    const row = paypalRow(p, at, currency, separator);
    if (seen.has(row[3]!)) throw errors.invalidParameter(`payouts[${at}].payoutId`, `${row[3]} is paid twice in this file.`);
    seen.add(row[3]!);
    return row;
  });
  return stringify(rows, { record_delimiter: 'windows', escape_formulas: true });
}

/** One PayPal Payouts file (one currency, at most 5,000 payouts), or a 400 naming the first bad value. */
export function paypalPayoutsCsv(payouts: readonly PaypalPayout[], options: PaypalFileOptions = {}): string {
  if (!Array.isArray(payouts) || payouts.length === 0) throw errors.invalidParameter('payouts', 'at least one payout is required.');
  if (payouts.length > PAYPAL_MAX_ROWS) throw errors.invalidParameter('payouts', `a PayPal file holds at most ${PAYPAL_MAX_ROWS} payouts.`);
  return paypalFile(
    payouts.map((p, at) => ({ p, at })),
    options,
  );
}

/** Every PayPal file a run needs: one per currency (in the order they first appear), split at 5,000 rows. */
export function paypalPayoutsFiles(payouts: readonly PaypalPayout[], options: PaypalFileOptions = {}): Array<{ currency: string; part: number; csv: string }> {
  if (!Array.isArray(payouts) || payouts.length === 0) throw errors.invalidParameter('payouts', 'at least one payout is required.');
  const byCurrency = new Map<string, Array<{ p: PaypalPayout; at: number }>>();
  payouts.forEach((p, at) => {
    const list = byCurrency.get(p?.currency) ?? [];
    if (!list.length) byCurrency.set(p?.currency, list);
    list.push({ p, at });
  });
  const files: Array<{ currency: string; part: number; csv: string }> = [];
  for (const [currency, list] of byCurrency) {
    for (let from = 0; from < list.length; from += PAYPAL_MAX_ROWS) {
      files.push({ currency, part: from / PAYPAL_MAX_ROWS + 1, csv: paypalFile(list.slice(from, from + PAYPAL_MAX_ROWS), options) });
    }
  }
  return files;
}
