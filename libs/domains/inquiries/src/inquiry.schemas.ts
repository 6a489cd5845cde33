/** The inputs and the one response shape of inquiries (the publisher API, the tracking API, MCP and the portal validate with these). */
import { INTAKE_INPUT } from '@cw/conversions';
import { CURSOR_PAGING, pageSizeInput } from '@cw/usecase';
import { DISPLAY_TEXT_PATTERN, displayText } from '@cw/validation';
import { DECIDERS, INQUIRY_STATUSES, REJECT_REASONS } from './data/inquiry.schema';

/** How far back an order may be for an inquiry (docs/decisions: older orders are past any merchant's reconciliation). */
export const INQUIRY_MAX_AGE_DAYS = 90;
/** How long a merchant has to answer when its program sets nothing; then the window's job decides. */
export const DEFAULT_RESPONSE_DAYS = 30;

/** A publisher files an inquiry. */
export const FILE_INQUIRY_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['program_id', 'order_id', 'occurred_at', 'amount', 'currency'],
  properties: {
    program_id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'A program you are approved for.' },
    // The merchant reads it: no control, line-break or bidi characters (it could read as another order).
    order_id: {
      ...INTAKE_INPUT.properties.order_id,
      pattern: DISPLAY_TEXT_PATTERN,
      description: "The merchant's order id (from your customer's confirmation, or the merchant's report).",
    },
    occurred_at: {
      type: 'string',
      format: 'date-time',
      description: `When the order was placed: not in the future, at most ${INQUIRY_MAX_AGE_DAYS} days ago.`,
    },
    amount: {
      ...INTAKE_INPUT.properties.amount,
      description: "The order's amount, a positive decimal string with at most the currency's minor-unit decimals.",
    },
    currency: INTAKE_INPUT.properties.currency,
    click_id: { ...INTAKE_INPUT.properties.click_id, description: 'The click id of your tracked link that brought the order, if you know it.' },
    note: displayText({ maxLength: 1000, description: 'What the merchant should know (shown to the merchant).' }),
  },
} as const;

export const LIST_INQUIRIES_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: INQUIRY_STATUSES },
    ...CURSOR_PAGING,
    page_size: pageSizeInput(100),
  },
} as const;

export const INQUIRY_ID_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 64, description: '`inq_…`' } },
} as const;

/** The merchant's rejection. */
export const REJECT_INQUIRY_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['reason'],
  properties: {
    reason: {
      type: 'string',
      enum: REJECT_REASONS,
      description: 'duplicate (the order is credited already), no_order, returned, outside_window (no click of the publisher in the cookie window), other.',
    },
  },
} as const;

const EVIDENCE_CLICK = {
  type: 'object',
  additionalProperties: false,
  required: ['click_id', 'clicked_at', 'verified'],
  properties: {
    click_id: { type: 'string' },
    clicked_at: { type: 'string', format: 'date-time' },
    verified: {
      type: 'boolean',
      description:
        "The click id's signature holds and the click could have earned the order: this publisher's, on this program, a human's, in the program's cookie window before the order.",
    },
  },
} as const;

/** One inquiry, as its publisher and the program's merchant see it (never the publisher's identity to the merchant). */
export const INQUIRY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'status',
    'program_id',
    'order_id',
    'occurred_at',
    'amount',
    'currency',
    'click_id',
    'note',
    'evidence',
    'respond_by',
    'reason',
    'conflict',
    'conversion_id',
    'decided_by',
    'decided_at',
    'created_at',
    'updated_at',
  ],
  properties: {
    id: { type: 'string', description: '`inq_…`' },
    status: { type: 'string', enum: INQUIRY_STATUSES },
    program_id: { type: 'integer' },
    order_id: { type: 'string' },
    occurred_at: { type: 'string', format: 'date-time' },
    amount: { type: 'string', description: 'Decimal string in `currency`.' },
    currency: { type: 'string' },
    click_id: { type: ['string', 'null'], description: 'The click id named when filing.' },
    note: { type: ['string', 'null'] },
    evidence: {
      type: 'object',
      additionalProperties: false,
      required: ['clicks'],
      properties: {
        clicks: {
          type: 'array',
          items: EVIDENCE_CLICK,
          description: "The publisher's clicks on the program in its cookie window before the order, newest first (at most 20, plus the click id named).",
        },
      },
    },
    respond_by: { type: 'string', format: 'date-time', description: 'Unanswered by then, the inquiry is decided on its evidence.' },
    reason: { type: ['string', 'null'], enum: [...REJECT_REASONS, null], description: 'Why it was rejected.' },
    conflict: {
      type: ['string', 'null'],
      enum: ['order_already_credited', null],
      description: 'The order was credited already when the inquiry was to be accepted.',
    },
    conversion_id: { type: ['string', 'null'], description: 'The conversion the acceptance created (`/conversions/`, channel `inquiry`).' },
    decided_by: { type: ['string', 'null'], enum: [...DECIDERS, null], description: "merchant, operator, or window (the response window's job)." },
    decided_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;
