/**
 * The catalog of the events an account's log holds: the public contract of the feed (`GET
 * /events/`, the stream), of postback event types, and of the SDKs. The sale events come from the
 * conversions; the others from other domains through the event-source port (./event-sources.ts).
 * This file knows their names and their bodies' shapes (the contract), never their producers: a
 * new family adds its types and its body's schema here, and its source in the composition root.
 */
import { SALE_EVENT_TYPES } from '@cw/conversions';
import type { SaleEventBody } from './sale-events';

export { SALE_EVENT_TYPES };

/** A payout's outcome (@cw/payouts' settlement: a bank status report, a results CSV, the sandbox bank). */
export const PAYOUT_EVENT_TYPES = ['payout.paid', 'payout.failed'] as const;

/** A missing-sale inquiry decided (@cw/inquiries: by the merchant, an operator or the response window). */
export const INQUIRY_EVENT_TYPES = ['inquiry.accepted', 'inquiry.rejected'] as const;

/** Every type the log may hold, sale events first. */
export const EVENT_TYPES = [...SALE_EVENT_TYPES, ...PAYOUT_EVENT_TYPES, ...INQUIRY_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Types a postback configuration gets without asking (the sale events); every other type is opt-in. */
export const DEFAULT_POSTBACK_EVENT_TYPES = [...SALE_EVENT_TYPES];

export const isSaleEventType = (type: string): boolean => type.startsWith('sale.');

/**
 * An event of a source other than the sales (../event-sources.ts): the envelope every event has
 * (`event` is the type's last part: `paid` for `payout.paid`), and the object it is about under its
 * own name.
 */
export interface AccountEventBody {
  id: string;
  type: string;
  event: string;
  created_at: string;
  publisher_id: string;
  [object: string]: unknown;
}

export interface PayoutEventBody extends AccountEventBody {
  type: (typeof PAYOUT_EVENT_TYPES)[number];
  payout: {
    id: string;
    status: string;
    amount: string;
    currency: string;
    method: { type: string; last4: string };
    fx: Array<{ from: string; to: string; rate: string; date: string; amount: string; converted: string }>;
    hold: { reasons: string[] } | null;
    created_at: string;
    paid_at: string | null;
    failure: { code: string; message: string } | null;
    statement: { number: string } | null;
  };
}

/** What a feed entry, a stream event's data and a postback body is. */
export type FeedEventBody = SaleEventBody | AccountEventBody;

/** The envelope's members (the same in every family). */
export const eventEnvelope = (types: readonly string[], what: string) => ({
  id: { type: 'string', description: "The event id (`evt_…`): the same as the postback's for this event." },
  type: { type: 'string', enum: [...types] },
  event: { type: 'string', enum: types.map((t) => t.slice(t.indexOf('.') + 1)), description: `The type's last part (the \`{event}\` macro): ${what}.` },
  created_at: { type: 'string', format: 'date-time', description: 'When the change happened.' },
  publisher_id: { type: 'string' },
});

/** A payout as `GET /payouts/{id}` answers it (@cw/payouts' PAYOUT_SCHEMA is this one). */
export const PAYOUT_VIEW_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'status', 'amount', 'currency', 'method', 'fx', 'hold', 'created_at', 'paid_at', 'failure', 'statement'],
  properties: {
    id: { type: 'string', description: '`po_…`' },
    status: { type: 'string', enum: ['pending', 'in_transit', 'paid', 'failed', 'canceled'] },
    amount: { type: 'string', description: 'Decimal string in `currency`.' },
    currency: { type: 'string' },
    method: {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'last4'],
      properties: { type: { type: 'string', enum: ['iban', 'ach', 'paypal'] }, last4: { type: 'string' } },
    },
    fx: {
      type: 'array',
      description: 'Each balance in another currency converted into this payout, with the ECB reference rate used (units of `to` per 1 `from`).',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['from', 'to', 'rate', 'date', 'amount', 'converted'],
        properties: {
          from: { type: 'string' },
          to: { type: 'string' },
          rate: { type: 'string' },
          date: { type: 'string' },
          amount: { type: 'string' },
          converted: { type: 'string' },
        },
      },
    },
    hold: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['reasons'],
      properties: { reasons: { type: 'array', items: { type: 'string' } } },
      description: 'Why the payout waits for the network (a new payout method, an account shared with another publisher, a failed method…).',
    },
    created_at: { type: 'string', format: 'date-time' },
    paid_at: { type: ['string', 'null'], format: 'date-time' },
    failure: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
    statement: { type: ['object', 'null'], additionalProperties: false, required: ['number'], properties: { number: { type: 'string' } } },
  },
} as const;

/**
 * `payout.paid` / `payout.failed`: the payout as `GET /payouts/{id}` answers it, as of the event
 * (never an account number: the method's type and last 4 only). The payouts' own schema is
 * PAYOUT_VIEW_SCHEMA above: this lib cannot import the payouts (they depend on it).
 */
export const PAYOUT_EVENT_SCHEMA = {
  type: 'object',
  title: 'PayoutEvent',
  required: ['id', 'type', 'event', 'created_at', 'publisher_id', 'payout'],
  properties: {
    ...eventEnvelope(PAYOUT_EVENT_TYPES, 'paid or failed'),
    payout: { ...PAYOUT_VIEW_SCHEMA, description: 'The payout as GET /payouts/{id} answers it, as of the event.' },
  },
};

/**
 * `inquiry.accepted` / `inquiry.rejected`: the inquiry as `GET /inquiries/{id}` answers it, as of
 * the event (the decision, its reason, the conversion an acceptance created). Kept equal to
 * @cw/inquiries' INQUIRY_SCHEMA in its members (this lib cannot import it: it depends on this one).
 */
export const INQUIRY_EVENT_SCHEMA = {
  type: 'object',
  title: 'InquiryEvent',
  required: ['id', 'type', 'event', 'created_at', 'publisher_id', 'inquiry'],
  properties: {
    ...eventEnvelope(INQUIRY_EVENT_TYPES, 'accepted or rejected'),
    inquiry: {
      type: 'object',
      additionalProperties: false,
      description: 'The inquiry as GET /inquiries/{id} answers it, as of the event.',
      properties: {
        id: { type: 'string', description: '`inq_…`' },
        status: { type: 'string', enum: ['open', 'accepted', 'rejected'] },
        program_id: { type: 'integer' },
        order_id: { type: 'string' },
        occurred_at: { type: 'string', format: 'date-time' },
        amount: { type: 'string', description: 'Decimal string in `currency`.' },
        currency: { type: 'string' },
        click_id: { type: ['string', 'null'] },
        note: { type: ['string', 'null'] },
        evidence: {
          type: 'object',
          additionalProperties: false,
          properties: {
            clicks: {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                properties: { click_id: { type: 'string' }, clicked_at: { type: 'string', format: 'date-time' }, verified: { type: 'boolean' } },
              },
            },
          },
        },
        respond_by: { type: 'string', format: 'date-time' },
        reason: { type: ['string', 'null'] },
        conflict: { type: ['string', 'null'] },
        conversion_id: { type: ['string', 'null'] },
        decided_by: { type: ['string', 'null'] },
        decided_at: { type: ['string', 'null'], format: 'date-time' },
        created_at: { type: 'string', format: 'date-time' },
        updated_at: { type: 'string', format: 'date-time' },
      },
    },
  },
};
