/** Inputs of the account's settings as its people change them in the portal (ajv; the forms compile the same schemas). */
import { displayText } from '@cw/validation';

export const PAYOUT_METHOD_TYPES = ['bank_account', 'paypal', 'none'] as const;
const CHANNEL = { type: 'string', enum: ['coupon', 'content', 'social'] } as const;

export const ACCOUNT_PATCH_INPUT = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: displayText({ minLength: 2, maxLength: 100, description: 'The account’s name as people and mails show it.' }),
    website: { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2048 },
    channels: { type: 'array', maxItems: 3, uniqueItems: true, items: CHANNEL },
    timezone: { type: 'string', minLength: 1, maxLength: 64, description: 'IANA time zone (e.g. Europe/Berlin): the portal shows numbers in it.' },
    payout_method_type: { type: 'string', enum: PAYOUT_METHOD_TYPES },
    link_fallback: {
      type: 'boolean',
      description:
        "false: a product link whose product is out of stock or no longer served never sends the click to the same GTIN at another program (the program's landing page instead), whatever the link says.",
    },
  },
} as const;

/** Credential kinds people issue in the portal (merchant tokens are the network's). */
export const ISSUABLE_TYPES = ['api_key', 'reporting_token', 'offers_credential', 'portal_token'] as const;

const KEY_KIND = { type: 'string', enum: ['live', 'demo', 'test', 'sandbox', 'read_only'], description: 'API keys only: which kind.' } as const;

export const KEY_ISSUE_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: { type: 'string', enum: ISSUABLE_TYPES },
    key_kind: KEY_KIND,
    label: displayText({ maxLength: 80 }),
  },
  // An API key names its kind; other credentials have none.
  if: { properties: { type: { const: 'api_key' } } },
  then: { required: ['key_kind'], properties: { key_kind: KEY_KIND } },
  else: { properties: { key_kind: false } },
} as const;
