/** Inputs of the instant-monetization API (validated by ajv; unknown members are refused). */
import { PUBLISHER_CHANNELS } from '@cw/auth';
import { PAGE_INPUT, pageSizeInput } from '@cw/usecase';
import { displayText } from '@cw/validation';

const CHANNEL = { type: 'string', enum: PUBLISHER_CHANNELS, description: 'coupon, content or social' } as const;
const COUNTRY = { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO alpha-2; UK is accepted as GB.' } as const;
const WEB_URL = {
  type: 'string',
  format: 'uri',
  minLength: 1,
  maxLength: 2048,
  description: 'A public http(s) URL (no credentials, no private or loopback host).',
} as const;
const EMAIL = { type: 'string', format: 'email', maxLength: 254 } as const;
/** The creator's name: the account's name once approved (no control, line-break or bidirectional characters). */
const DISPLAY_NAME = displayText({ maxLength: 100 });

export const MAX_POST_TEXT = 10_000;

export const INSTANT_PROGRAMS_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    publisher_url: { ...WEB_URL, description: 'Your site or profile (a public http(s) URL).' },
    topic: { type: 'string', minLength: 2, maxLength: 100, description: "Text contained in the program's category, name or description (case-insensitive)." },
    country: COUNTRY,
    channel: CHANNEL,
    page: PAGE_INPUT,
    page_size: pageSizeInput(100),
  },
} as const;

export const INSTANT_LINKS_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['publisher_url', 'placement_description'],
  properties: {
    publisher_url: WEB_URL,
    placement_description: { type: 'string', minLength: 3, maxLength: 500, description: 'Where the links will appear (e.g. "gear list in my running blog").' },
    program_ids: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      uniqueItems: true,
      items: { type: 'integer', minimum: 1, maximum: 2147483647 },
      description: 'Programs open to instant links (GET /programs/); default: every one, up to 20.',
    },
  },
} as const;

export const SOCIAL_POST_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['post_text', 'channel'],
  properties: {
    post_text: { type: 'string', minLength: 1, maxLength: MAX_POST_TEXT, description: 'The post, in any script, emoji included; at most 10,000 characters.' },
    channel: CHANNEL,
    claim_email: { ...EMAIL, description: 'Optional: where the network reaches you to claim payouts.' },
  },
} as const;

export const ACCESS_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: { access_secret: { type: 'string', maxLength: 200, description: 'The secret shown once when the application was opened.' } },
} as const;

export const PROFILE_PATCH_INPUT = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    display_name: DISPLAY_NAME,
    website: WEB_URL,
    channels: { type: 'array', maxItems: 3, uniqueItems: true, items: CHANNEL },
    country: COUNTRY,
    claim_email: EMAIL,
  },
} as const;

/** Claiming an application in the portal: the creator's secret, and the profile the review needs. */
export const CLAIM_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['application', 'access_secret', 'display_name', 'website', 'channels', 'country'],
  properties: {
    application: { type: 'string', minLength: 1, maxLength: 100 },
    access_secret: { type: 'string', minLength: 1, maxLength: 200 },
    display_name: DISPLAY_NAME,
    website: WEB_URL,
    channels: { type: 'array', minItems: 1, maxItems: 3, uniqueItems: true, items: CHANNEL },
    country: COUNTRY,
  },
} as const;
