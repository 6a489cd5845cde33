import { CURSOR_PAGING, pageSizeInput } from '@cw/usecase';
import { CURRENCY_CODES } from '@cw/money';

const SUBID = { type: 'string', pattern: '^[A-Za-z0-9._~-]{1,100}$' } as const;
/** An IANA time zone name; days, weeks and months are its calendar's. */
export const TIMEZONE = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  default: 'UTC',
  description: 'IANA time zone (e.g. Europe/Berlin, Asia/Kolkata); days, weeks and months are its calendar days. Default UTC.',
} as const;

const DAY = { type: 'string', format: 'date', description: 'UTC day, YYYY-MM-DD (inclusive).' } as const;

/** An agent attribution token on the wire (`atp_…`; @cw/links' ATTRIBUTION_TOKEN_PATTERN). */
const ATTRIBUTION_TOKEN = { type: 'string', pattern: '^atp_[A-Za-z0-9_-]{40,460}$' } as const;

/**
 * A merchant's sale report (server to server): attributed by `click_id`, else by an agent's
 * `affiliate_attribution` (or its `attribution_token`), else by a `coupon_code`; one of them is
 * required. A report with a click id is the click's alone (docs/decisions/0057-codes-and-agent-tokens.md).
 */
export const INTAKE_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['order_id', 'amount', 'currency'],
  properties: {
    click_id: {
      type: 'string',
      pattern: '^clk_[A-Za-z0-9_-]{1,128}$',
      description: "The click id the tracked link appended to your landing URL. When given, the sale is the click's (a code or token beside it is ignored).",
    },
    coupon_code: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description:
        "A publisher's personal coupon code the shopper used (any case). In place of click_id; an unknown or inactive code answers 404 code_not_found.",
    },
    affiliate_attribution: {
      type: 'object',
      additionalProperties: false,
      required: ['token'],
      description: "The Agentic Commerce Protocol's affiliate_attribution object an agent passed at checkout, as received. In place of click_id.",
      properties: {
        provider: { type: 'string', maxLength: 255 },
        token: { ...ATTRIBUTION_TOKEN, description: 'The signed attribution token (atp_…).' },
        publisher_id: { type: 'string', maxLength: 100 },
        campaign_id: { type: ['string', 'integer'], maxLength: 20 },
        expires_at: { type: 'string', maxLength: 40 },
      },
    },
    attribution_token: { ...ATTRIBUTION_TOKEN, description: "An agent's attribution token alone (affiliate_attribution.token). In place of click_id." },
    order_id: { type: 'string', minLength: 1, maxLength: 128, description: 'Your order id; the same order id again answers the existing conversion.' },
    amount: {
      type: 'string',
      pattern: '^[0-9]{1,12}(\\.[0-9]{1,4})?$',
      description: "Sale amount, a non-negative decimal string with at most the currency's minor-unit decimals (EUR 2, JPY 0, KWD 3).",
    },
    currency: { type: 'string', enum: CURRENCY_CODES, description: 'ISO 4217 (upper case).' },
    occurred_at: { type: 'string', format: 'date-time', description: 'When the sale happened (default: now).' },
  },
} as const;

export const STATUS_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: { status: { type: 'string', enum: ['approved', 'declined'] } },
} as const;

export const LIST_CONVERSIONS_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    date_from: DAY,
    date_to: { ...DAY, description: 'UTC day, YYYY-MM-DD (inclusive), not before date_from.' },
    subid: SUBID,
    status: { type: 'string', enum: ['pending', 'approved', 'declined'] },
    source: { type: 'string', enum: ['all', 'v1', 'ledger'], default: 'all' },
    channel: {
      type: 'string',
      enum: ['link', 'code', 'agent', 'inquiry'],
      description: 'Only sales attributed this way: link (a tracked link; also every sale from before channels existed), code, agent or inquiry.',
    },
    updated_since: { type: 'string', format: 'date-time', description: 'Only conversions changed at or after this instant (incremental sync).' },
    ...CURSOR_PAGING,
    page_size: pageSizeInput(500),
  },
} as const;

export const REPORT_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    group_by: {
      type: 'string',
      enum: ['day', 'week', 'month', 'subid', 'campaign', 'status', 'channel'],
      default: 'day',
      description: 'channel: link, code, agent or inquiry (counted from the conversions themselves, not the read model: as_of is now).',
    },
    date_from: { ...DAY, description: "Day of the report's time zone, YYYY-MM-DD (inclusive)." },
    date_to: { ...DAY, description: "Day of the report's time zone, YYYY-MM-DD (inclusive), not before date_from." },
    timezone: TIMEZONE,
    subid: SUBID,
    status: { type: 'string', enum: ['pending', 'approved', 'declined'] },
  },
} as const;
