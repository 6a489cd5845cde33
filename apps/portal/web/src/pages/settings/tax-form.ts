/**
 * The tax form as data (apart from its component): the profile's request from the form's strings,
 * a W-9 for a US person and a W-8BEN or W-8BEN-E for anyone else (with a treaty claim when asked
 * for), or the fields missing as the API would name them; and the API's field names
 * (`address.city`, `w9.tin`, `w8.treaty.rate` ...) placed on the form's fields.
 */
import { ApiError, isApiError, missingFieldsError } from '../../api/client';
import type { TaxProfileInput } from '../../api/tax';

export const LABELS = {
  kind: 'Payee',
  legal_name: 'Legal name',
  country: 'Country of tax residence',
  line1: 'Street and number',
  line2: 'Address line 2',
  city: 'City',
  postal_code: 'Postal code',
  region: 'State or region',
  address_country: 'Country of the address',
  vat_id: 'VAT id',
  tin_kind: 'Taxpayer id type',
  tin: 'Taxpayer id (TIN)',
  w8_country: 'Country of citizenship or incorporation',
  foreign_tin: 'Foreign taxpayer id',
  treaty_article: 'Treaty article',
  treaty_rate: 'Withholding rate claimed (%)',
  signature: 'Signature: type your legal name',
};
export type Field = keyof typeof LABELS;

/** The API's field names (`address.city`, `w9.tin`, `w8.treaty.rate` …) as the form's. */
const API_FIELDS: Array<[RegExp, Field]> = [
  [/^address\.lines(\[0\])?$/, 'line1'],
  [/^address\.lines\[[1-9]\]$/, 'line2'],
  [/^address\.city$/, 'city'],
  [/^address\.postal_code$/, 'postal_code'],
  [/^address\.region$/, 'region'],
  [/^address\.country$/, 'address_country'],
  [/^address$/, 'line1'],
  [/^w9\.tin_kind$/, 'tin_kind'],
  [/^w9(\.tin)?$/, 'tin'],
  [/^w8\.country$/, 'w8_country'],
  [/^w8(\.foreign_tin)?$/, 'foreign_tin'],
  [/^w8\.treaty\.country$/, 'country'],
  [/^w8\.treaty(\.article)?$/, 'treaty_article'],
  [/^w8\.treaty\.rate$/, 'treaty_rate'],
];

export function onFormFields(err: unknown): unknown {
  if (!isApiError(err)) return err;
  return new ApiError({
    ...err,
    errors: err.errors.map((e) => {
      const param = e.param.replace(/^body\./, '');
      return { ...e, param: API_FIELDS.find(([re]) => re.test(param))?.[1] ?? param };
    }),
  });
}

export const EMPTY_TAX: Record<Field, string> = {
  kind: 'individual',
  legal_name: '',
  country: 'US',
  line1: '',
  line2: '',
  city: '',
  postal_code: '',
  region: '',
  address_country: 'US',
  vat_id: '',
  tin_kind: 'ssn',
  tin: '',
  w8_country: '',
  foreign_tin: '',
  treaty_article: '',
  treaty_rate: '',
  signature: '',
};

/** The profile the form describes, trimmed; an ApiError naming each missing field otherwise. */
export function taxInputOf(draft: Record<Field, string>, treaty: boolean): TaxProfileInput | ApiError {
  const us = draft.country === 'US';
  const company = draft.kind === 'company';
  const t = (k: Field) => draft[k].trim();
  const needed: Field[] = [
    'legal_name',
    'line1',
    'city',
    'postal_code',
    'signature',
    ...(us ? (['tin'] as Field[]) : (['w8_country', 'foreign_tin'] as Field[])),
  ];
  if (us) needed.push('region');
  if (!us && treaty) needed.push('treaty_article', 'treaty_rate');
  const missing = needed.filter((k) => !t(k));
  if (missing.length) {
    return missingFieldsError(missing);
  }
  const input: TaxProfileInput = {
    kind: company ? 'company' : 'individual',
    legal_name: t('legal_name'),
    country: draft.country,
    address: {
      lines: [t('line1'), ...(t('line2') ? [t('line2')] : [])],
      city: t('city'),
      postal_code: t('postal_code'),
      ...(t('region') ? { region: t('region') } : {}),
      country: draft.address_country,
    },
    ...(t('vat_id') ? { vat_id: t('vat_id') } : {}),
    signature: t('signature'),
  };
  if (us) input.w9 = { tin_kind: company || draft.tin_kind === 'ein' ? 'ein' : 'ssn', tin: t('tin') };
  else
    input.w8 = {
      country: draft.w8_country,
      foreign_tin: t('foreign_tin'),
      ...(treaty ? { treaty: { country: draft.country, article: t('treaty_article'), rate: t('treaty_rate') } } : {}),
    };
  return input;
}
