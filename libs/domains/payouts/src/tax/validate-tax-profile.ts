/**
 * A tax profile as typed into `/settings/tax`, checked and normalised, or refused with a 400
 * `invalid_parameter` naming the field. VAT ids are checked by jsvat (format and check digits per
 * EU member state, and GB, CH, NO); US taxpayer ids by their published form (an SSN's area,
 * group and serial, an ITIN's range, an EIN's IRS prefix). No message repeats the number it refuses.
 */
import { checkVAT, countries as vatCountries, type Country as VatCountry } from 'jsvat';
import { ApiError } from '@cw/errors';
import { bodyValidator } from '@cw/validation';
import { TAX_PROFILE_INPUT, type TaxForm, type TaxKind, type UsTinKind } from './tax-profile.schemas';

export interface TaxAddress {
  lines: string[];
  city: string;
  postal_code: string;
  region?: string;
  country: string;
}

/** A tax profile in the clear: what the seal holds (only the owner's view, a statement and the 1099 export open it). */
export interface TaxProfile {
  kind: TaxKind;
  legal_name: string;
  address: TaxAddress;
  country: string;
  vat_id: string | null;
  form: TaxForm;
  /** US persons (W-9). */
  w9?: { tin_kind: UsTinKind; tin: string };
  /** Everyone else (W-8BEN / W-8BEN-E). */
  w8?: { country: string; foreign_tin: string; treaty?: { country: string; article: string; rate: string } };
  signature: string;
  signed_at: string;
}

interface TaxProfileInput {
  kind: TaxKind;
  legal_name: string;
  address: { lines: string[]; city: string; postal_code: string; region?: string; country: string };
  country: string;
  vat_id?: string;
  w9?: { tin_kind: UsTinKind; tin: string };
  w8?: { country: string; foreign_tin: string; treaty?: { country: string; article: string; rate: string } };
  signature: string;
}

const checkInput = bodyValidator<TaxProfileInput>(TAX_PROFILE_INPUT);

function invalidField(param: string, detail: string): ApiError {
  return new ApiError({ code: 'invalid_parameter', detail: `Invalid field '${param}': ${detail}.`, errors: [{ param, detail }] });
}

/** The 27 member states: a VAT id is checked for these, and for GB, CH and NO (jsvat knows them too). */
export const EU_COUNTRIES = [
  'AT',
  'BE',
  'BG',
  'HR',
  'CY',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'HU',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SK',
  'SI',
  'ES',
  'SE',
] as const;
export const VAT_COUNTRIES: readonly string[] = [...EU_COUNTRIES, 'GB', 'CH', 'NO'];

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
/** Codes ICU names that are not countries (the EU, the eurozone, the UN, "unknown", "outlying Oceania"). */
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'ZZ', 'QO']);

/** An ISO 3166 alpha-2 country that ICU knows, upper case. */
export function isCountry(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && !NOT_COUNTRIES.has(code) && regionNames.of(code) !== code;
}

export const countryName = (code: string): string => (isCountry(code) ? (regionNames.of(code) ?? code) : code);

function country(raw: string, param: string): string {
  const c = raw.toUpperCase();
  if (!isCountry(c)) throw invalidField(param, 'must be an ISO 3166 country code (US, DE, FR …)');
  return c;
}

function text(raw: string, param: string): string {
  const t = raw.trim().replace(/\s+/g, ' ');
  if (!t) throw invalidField(param, 'must not be blank');
  return t;
}

/** The same name, whatever its case, accents composed or not, and spaces: how a typed signature matches the legal name. */
export const sameName = (a: string, b: string): boolean => {
  const fold = (s: string) => s.normalize('NFC').trim().replace(/\s+/g, ' ').toLocaleLowerCase('und');
  return fold(a) === fold(b);
};

/** US states, DC and the territories with a ZIP code (USPS abbreviations). */
const US_REGIONS = new Set(
  'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY AS GU MP PR VI AA AE AP'.split(
    ' ',
  ),
);

function address(given: TaxProfileInput['address']): TaxAddress {
  const lines = given.lines.map((l, i) => text(l, `address.lines[${i}]`));
  const c = country(given.country, 'address.country');
  const postal = given.postal_code.trim().toUpperCase();
  if (c === 'US') {
    if (!/^\d{5}(?:-\d{4})?$/.test(postal)) throw invalidField('address.postal_code', 'must be a US ZIP code: 5 digits, or 5 digits, a dash and 4');
    const region = given.region?.trim().toUpperCase();
    if (!region || !US_REGIONS.has(region)) throw invalidField('address.region', 'must be the 2-letter code of a US state or territory (CA, NY, DC …)');
    return { lines, city: text(given.city, 'address.city'), postal_code: postal, region, country: c };
  }
  if (!/^[A-Z0-9](?:[A-Z0-9 -]{0,10}[A-Z0-9])?$/.test(postal))
    throw invalidField('address.postal_code', 'must be letters and digits (spaces and dashes between)');
  const out: TaxAddress = { lines, city: text(given.city, 'address.city'), postal_code: postal, country: c };
  if (given.region !== undefined && given.region.trim()) out.region = text(given.region, 'address.region');
  return out;
}

/**
 * A VAT id: spaces, dots and dashes dropped, upper case; jsvat's format and check digits for the
 * profile's country (Greece's prefix is EL). One of another country, or a country whose VAT ids
 * jsvat does not know, is refused: the id names the registration a statement's VAT treatment rests on.
 */
export function normalVatId(raw: string, countryCode: string, param = 'vat_id'): string {
  const value = raw.replace(/[\s.-]/g, '').toUpperCase();
  if (!/^[A-Z]{2}[A-Z0-9]{2,16}$/.test(value)) throw invalidField(param, 'must be the country prefix and the number (DE123456789)');
  if (!VAT_COUNTRIES.includes(countryCode))
    throw invalidField(param, `is checked for EU member states, GB, CH and NO only; leave it empty for ${countryName(countryCode)}`);
  const rules = vatCountries.filter((c: VatCountry) => c.codes[0] === countryCode);
  const r = checkVAT(value, rules);
  const prefix = countryCode === 'GR' ? 'EL' : countryCode === 'CH' ? 'CHE' : countryCode;
  if (!value.startsWith(prefix))
    throw invalidField(param, `must be a VAT id of ${countryName(countryCode)}, the country of the profile (it starts with ${prefix})`);
  if (!r.isValidFormat) throw invalidField(param, `does not have the form of a VAT id of ${countryName(countryCode)}`);
  if (!r.isValid) throw invalidField(param, 'has check digits that do not match the number: check it for a typo');
  return r.value ?? value;
}

/**
 * A US TIN: 9 digits (dashes and spaces dropped). An SSN (or an ITIN, in the same box of the W-9)
 * has no group of zeros (000-xx-xxxx, xxx-00-xxxx, xxx-xx-0000), no area 666, and an area of 9xx
 * only as an ITIN (its middle digits 50-65, 70-88, 90-92 or 94-99). An EIN starts with a prefix
 * the IRS assigns (not 00, 07-09, 17-19, 28, 29, 49, 69, 70, 78, 79, 89, 96, 97) and is not all zeros after it.
 */
export function normalUsTin(raw: string, kind: UsTinKind, param = 'w9.tin'): string {
  const tin = raw.replace(/[\s-]/g, '');
  if (!/^\d{9}$/.test(tin)) throw invalidField(param, `must be 9 digits (${kind === 'ssn' ? '123-45-6789' : '12-3456789'})`);
  if (kind === 'ssn') {
    const [area, group, serial] = [tin.slice(0, 3), tin.slice(3, 5), tin.slice(5)];
    if (area === '000' || group === '00' || serial === '0000') throw invalidField(param, 'has a group of zeros, which no SSN or ITIN has');
    if (area === '666') throw invalidField(param, 'starts with 666, which no SSN has');
    if (area.startsWith('9')) {
      const g = Number(group);
      const itin = (g >= 50 && g <= 65) || (g >= 70 && g <= 88) || (g >= 90 && g <= 92) || g >= 94;
      if (!itin) throw invalidField(param, 'starts with 9 but is not an ITIN (its 4th and 5th digits are 50-65, 70-88, 90-92 or 94-99)');
    }
    return `${area}-${group}-${serial}`;
  }
  const prefix = Number(tin.slice(0, 2));
  if ([0, 7, 8, 9, 17, 18, 19, 28, 29, 49, 69, 70, 78, 79, 89, 96, 97].includes(prefix))
    throw invalidField(param, 'does not start with a prefix the IRS assigns to EINs');
  if (tin.slice(2) === '0000000') throw invalidField(param, 'has a group of zeros, which no EIN has');
  return `${tin.slice(0, 2)}-${tin.slice(2)}`;
}

function foreignTin(raw: string): string {
  const tin = raw.trim().replace(/\s+/g, ' ').toUpperCase();
  if (!/^[A-Z0-9](?:[A-Z0-9 ./-]{0,28}[A-Z0-9])?$/.test(tin))
    throw invalidField('w8.foreign_tin', 'must be letters and digits (spaces, dots, slashes and dashes between)');
  if (!/[1-9A-Z]/.test(tin.replace(/[ ./-]/g, ''))) throw invalidField('w8.foreign_tin', 'must not be all zeros');
  return tin;
}

function treaty(given: NonNullable<NonNullable<TaxProfileInput['w8']>['treaty']>, residence: string) {
  const c = country(given.country, 'w8.treaty.country');
  if (c !== residence) throw invalidField('w8.treaty.country', "must be the country of residence (a treaty's benefits are its residents')");
  const article = given.article.trim().replace(/^art(?:icle)?\.?\s*/i, '');
  if (!/^\d{1,2}[A-Z]?(?:\(\w{1,3}\)){0,3}$/i.test(article))
    throw invalidField('w8.treaty.article', 'must be an article number, with its paragraphs: 7, 12(2), 14(1)(a)');
  const rate = given.rate.trim().replace(/%$/, '');
  if (!/^\d{1,2}(?:\.\d{1,2})?$/.test(rate) || Number(rate) > 30) throw invalidField('w8.treaty.rate', 'must be a percentage from 0 to 30 (0, 5, 12.5)');
  return { country: c, article, rate: String(Number(rate)) };
}

/** The profile normalised (see `TaxProfile`), signed at `now`, or an ApiError `invalid_parameter` naming the field. */
export function validateTaxProfile(input: unknown, now = new Date()): TaxProfile {
  const given = checkInput(input);
  const legalName = text(given.legal_name, 'legal_name');
  const residence = country(given.country, 'country');
  const us = residence === 'US';
  const form: TaxForm = us ? 'w9' : given.kind === 'individual' ? 'w8ben' : 'w8ben_e';
  const profile: TaxProfile = {
    kind: given.kind,
    legal_name: legalName,
    address: address(given.address),
    country: residence,
    vat_id: given.vat_id === undefined || !given.vat_id.trim() ? null : normalVatId(given.vat_id, residence),
    form,
    signature: text(given.signature, 'signature'),
    signed_at: now.toISOString(),
  };
  if (us) {
    if (given.w8) throw invalidField('w8', 'is for payees outside the United States: a US person gives a W-9 (w9)');
    if (!given.w9) throw invalidField('w9', 'is needed for a payee in the United States (its taxpayer identification number)');
    if (given.kind === 'company' && given.w9.tin_kind !== 'ein') throw invalidField('w9.tin_kind', 'must be ein for a company');
    profile.w9 = { tin_kind: given.w9.tin_kind, tin: normalUsTin(given.w9.tin, given.w9.tin_kind) };
  } else {
    if (given.w9) throw invalidField('w9', 'is for US persons: a payee outside the United States gives a W-8BEN or W-8BEN-E (w8)');
    if (!given.w8) throw invalidField('w8', `is needed for a payee outside the United States (a ${given.kind === 'individual' ? 'W-8BEN' : 'W-8BEN-E'})`);
    const origin = country(given.w8.country, 'w8.country');
    if (origin === 'US')
      throw invalidField(
        'w8.country',
        given.kind === 'individual' ? 'is the United States: a US citizen gives a W-9 (set country to US)' : 'is the United States: a US company gives a W-9',
      );
    profile.w8 = { country: origin, foreign_tin: foreignTin(given.w8.foreign_tin) };
    if (given.w8.treaty) profile.w8.treaty = treaty(given.w8.treaty, residence);
  }
  if (!sameName(profile.signature, legalName)) throw invalidField('signature', 'must be the legal name, typed as above (case does not matter)');
  return profile;
}
