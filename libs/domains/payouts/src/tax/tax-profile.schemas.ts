/**
 * The input of a tax profile (the portal's `/settings/tax`): who is paid (an individual or a
 * company, the legal name, the postal address, the country of tax residence, a VAT id), the US
 * form it stands for (a W-9 for US persons, a W-8BEN or W-8BEN-E for the others) and the
 * signature, typed. The schema bounds every field; what a value must be (a TIN's form, a VAT id's
 * check digits, the signature matching the name) is checked by `validateTaxProfile`, which names
 * the field it refuses.
 */
import { displayText } from '@cw/validation';

export const TAX_KINDS = ['individual', 'company'] as const;
export type TaxKind = (typeof TAX_KINDS)[number];
export const US_TIN_KINDS = ['ssn', 'ein'] as const;
export type UsTinKind = (typeof US_TIN_KINDS)[number];
/** The US form a profile stands for: W-9 (US persons), W-8BEN (other individuals), W-8BEN-E (other companies). */
export const TAX_FORMS = ['w9', 'w8ben', 'w8ben_e'] as const;
export type TaxForm = (typeof TAX_FORMS)[number];

const COUNTRY = { type: 'string', pattern: '^[A-Za-z]{2}$', description: 'ISO 3166 alpha-2 country (US, DE, FR …).' } as const;

export const TAX_ADDRESS_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['lines', 'city', 'postal_code', 'country'],
  properties: {
    lines: {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      items: displayText({ maxLength: 70 }),
      description: 'Street and number, then any further lines (at most 3 of 70 characters).',
    },
    city: displayText({ maxLength: 50 }),
    postal_code: { type: 'string', minLength: 1, maxLength: 12, description: 'Postal code (a US ZIP code: 12345 or 12345-6789).' },
    region: displayText({ maxLength: 50, description: 'State, province or region (a US state by its 2-letter code).' }),
    country: COUNTRY,
  },
} as const;

export const TAX_PROFILE_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'legal_name', 'address', 'country', 'signature'],
  properties: {
    kind: { type: 'string', enum: TAX_KINDS, description: 'individual (a person, a sole proprietor) or company.' },
    legal_name: displayText({ maxLength: 100, description: 'The name the tax authority knows (a company: its registered name).' }),
    address: TAX_ADDRESS_INPUT,
    country: { ...COUNTRY, description: 'Country of tax residence (a company: where it is incorporated). US: a W-9 is needed; elsewhere a W-8BEN / W-8BEN-E.' },
    vat_id: {
      type: 'string',
      minLength: 1,
      maxLength: 24,
      description: 'VAT id with its country prefix (DE123456789), checked per EU member state (and GB, CH, NO).',
    },
    w9: {
      type: 'object',
      additionalProperties: false,
      required: ['tin_kind', 'tin'],
      description: 'US persons: the W-9 taxpayer identification number.',
      properties: {
        tin_kind: {
          type: 'string',
          enum: US_TIN_KINDS,
          description: 'ssn (a Social Security number or ITIN; individuals) or ein (Employer Identification Number).',
        },
        tin: { type: 'string', minLength: 1, maxLength: 16, description: '9 digits; dashes and spaces are fine (123-45-6789, 12-3456789).' },
      },
    },
    w8: {
      type: 'object',
      additionalProperties: false,
      required: ['country', 'foreign_tin'],
      description: 'Everyone else: the W-8BEN (individuals) or W-8BEN-E (companies); the name on it is `legal_name`.',
      properties: {
        country: { ...COUNTRY, description: 'Country of citizenship (an individual) or of incorporation (a company).' },
        foreign_tin: { type: 'string', minLength: 1, maxLength: 30, description: 'The taxpayer id of the country of residence.' },
        treaty: {
          type: 'object',
          additionalProperties: false,
          required: ['country', 'article', 'rate'],
          description: 'A claim of tax treaty benefits (optional): the treaty country, its article and the rate of withholding claimed.',
          properties: {
            country: COUNTRY,
            article: { type: 'string', minLength: 1, maxLength: 16, description: 'The article (and paragraph) of the treaty: 7, 12(2), 14(1)(a).' },
            rate: { type: 'string', minLength: 1, maxLength: 6, description: 'Percent withheld, 0 to 30 (0, 5, 15, 12.5).' },
          },
        },
      },
    },
    signature: displayText({ maxLength: 100, description: 'The legal name typed again: signs the form (the server records the date).' }),
  },
} as const;
