/**
 * The SEPA character set (EPC: the Latin characters every bank must take) and the way text and
 * identifiers are brought into it.
 *
 * Allowed: a-z A-Z 0-9 / - ? : ( ) . , ' + space. Letters with diacritics lose them (é → e, ü → u,
 * the EPC conversion table's first choice), a few letters and signs have their own conversion
 * (ß → ss, æ → ae, ø → o, & → +, typographic quotes → '), every other character becomes "." as the
 * EPC best practices (EPC217-08) recommend.
 */
import { errors } from '@cw/errors';

const ALLOWED = /^[A-Za-z0-9/\-?:().,'+ ]*$/;

const SPECIAL: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'SS',
  Æ: 'AE',
  æ: 'ae',
  Œ: 'OE',
  œ: 'oe',
  Ø: 'O',
  ø: 'o',
  Ł: 'L',
  ł: 'l',
  Đ: 'D',
  đ: 'd',
  Ð: 'D',
  ð: 'd',
  Þ: 'TH',
  þ: 'th',
  Ħ: 'H',
  ħ: 'h',
  ı: 'i',
  '&': '+',
  '"': "'",
  '‘': "'",
  '’': "'",
  '‚': "'",
  '“': "'",
  '”': "'",
  '„': "'",
  '`': "'",
  '´': "'",
  '–': '-',
  '—': '-',
  _: '-',
  '[': '(',
  ']': ')',
  '{': '(',
  '}': ')',
  ';': ',',
  '\\': '/',
};

/**
 * `text` in the SEPA character set, whitespace runs as one space, at most `max` characters
 * (cut after the conversion, which can lengthen a text: ß → ss).
 */
export function toSepaText(text: string, max: number): string {
  let out = '';
  for (const ch of text.normalize('NFKD').replace(/\p{M}/gu, '')) {
    if (ALLOWED.test(ch)) out += ch;
    else if (/\s|\p{Cc}/u.test(ch)) out += ' ';
    else out += SPECIAL[ch] ?? '.';
  }
  return out.replace(/ {2,}/g, ' ').trim().slice(0, max).trimEnd();
}

/** Whether `text` is already in the SEPA character set. */
export function isSepaText(text: string): boolean {
  return ALLOWED.test(text);
}

const PLATFORM_ID = /^[A-Za-z0-9_-]{1,35}$/;

/**
 * A platform identifier (a payout id `po_…`, a message id) as a SEPA reference: the EPC set has no
 * "_", so it is written as "." (never in a platform id, so the way back is exact). At most 35
 * characters (ISO 20022 Max35Text).
 */
export function toSepaReference(id: unknown, param: string): string {
  if (typeof id !== 'string' || !PLATFORM_ID.test(id)) {
    throw errors.invalidParameter(param, 'must be 1 to 35 characters of A-Z, a-z, 0-9, "_" and "-".');
  }
  return id.replaceAll('_', '.');
}

/** The platform identifier a SEPA reference written by {@link toSepaReference} stands for. */
export function fromSepaReference(reference: string): string {
  return reference.replaceAll('.', '_');
}
