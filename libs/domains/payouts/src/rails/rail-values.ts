/**
 * The checks every rail's file makes on the values it writes: amounts (decimal strings at a
 * currency's minor unit, never a float), IBANs, BICs, dates and identifiers. Each refusal is a
 * 400 `invalid_parameter` naming the value, never echoing an account number.
 */
import { errors } from '@cw/errors';
import { compareDecimals, formatDecimal, parseDecimal, roundDecimal, type Dec } from '@cw/money';
import { toDisplayText } from '@cw/validation';

const AMOUNT = /^\d{1,18}(?:\.\d{1,18})?$/;

/**
 * `value` as an amount written with exactly `scale` decimals: a positive decimal string (a JS
 * number is refused, it has already been through a float) that the minor unit holds exactly
 * ("10.5" and "10.500" are 10.50 at scale 2; "10.005" is refused, never rounded).
 */
export function exactAmount(value: unknown, scale: number, param: string): { text: string; dec: Dec } {
  if (typeof value !== 'string') throw errors.invalidParameter(param, 'must be a decimal string (such as "12.50"), not a number.');
  if (!AMOUNT.test(value)) throw errors.invalidParameter(param, 'must be a positive decimal such as "12.50".');
  const dec = parseDecimal(value);
  const rounded = roundDecimal(dec, scale);
  if (compareDecimals(dec, rounded) !== 0) throw errors.invalidParameter(param, `has more than ${scale} decimals.`);
  if (rounded.units <= 0n) throw errors.invalidParameter(param, 'must be more than zero.');
  return { text: formatDecimal(rounded, scale), dec: rounded };
}

/** The ISO 7064 mod-97 check of an IBAN (ISO 13616), on the digits' text (no number overflow). */
function ibanChecksumHolds(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of rearranged) {
    const digits = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}

/** An IBAN in its electronic form (capitals, no spaces), its check digits verified. */
export function validIban(value: unknown, param: string): string {
  const iban = typeof value === 'string' ? value.replace(/\s+/g, '').toUpperCase() : '';
  if (!iban) throw errors.invalidParameter(param, 'an IBAN is required.');
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban) || !ibanChecksumHolds(iban)) {
    throw errors.invalidParameter(param, 'is not a valid IBAN (its format or check digits are wrong).');
  }
  return iban;
}

/** A BIC (ISO 9362: 8 or 11 characters), in capitals. */
export function validBic(value: unknown, param: string): string {
  const bic = typeof value === 'string' ? value.replace(/\s+/g, '').toUpperCase() : '';
  if (!/^[A-Z0-9]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?$/.test(bic)) throw errors.invalidParameter(param, 'is not a valid BIC (8 or 11 characters).');
  return bic;
}

/** A calendar date written YYYY-MM-DD that exists. */
export function validDate(value: unknown, param: string): string {
  const m = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
  const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  if (!m || !d || d.toISOString().slice(0, 10) !== value) throw errors.invalidParameter(param, 'must be a date written YYYY-MM-DD.');
  return value as string;
}

/** A moment as an ISO 8601 UTC date-time to the second (2025-01-31T09:30:00Z). */
export function validDateTime(value: unknown, param: string): string {
  const d = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : null;
  if (!d || Number.isNaN(d.getTime())) throw errors.invalidParameter(param, 'must be a date and time.');
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** A platform identifier (payout, publisher): letters, digits, "_" and "-", at most `max` characters. */
export function validId(value: unknown, param: string, max = 64): string {
  if (typeof value !== 'string' || value.length > max || !/^[A-Za-z0-9_-]+$/.test(value)) {
    throw errors.invalidParameter(param, `must be 1 to ${max} characters of A-Z, a-z, 0-9, "_" and "-".`);
  }
  return value;
}

/**
 * Free text for one cell or one line (a note, a reason from a bank): whitespace runs as one
 * space, control and bidirectional characters dropped (`@cw/validation`'s display-text rule), at
 * most `max` characters.
 */
export function plainText(value: unknown, max: number): string {
  const text = typeof value === 'string' ? toDisplayText(value.replace(/\s+/gu, ' ')) : '';
  return text.trim().slice(0, max).trimEnd();
}
