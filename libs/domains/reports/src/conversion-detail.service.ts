/**
 * One conversion as its publisher reads it (the publisher view of GET /conversions/) with its
 * history: every status change, oldest first, with the id its postback and its events-feed entry
 * carry. The history is the conversion's own `events` (pushed in the same single-document update
 * as each status change, never pruned), so it is complete and in order; each one already in the
 * account's events feed (`sale_events`) also says when it was logged there.
 */
import { ApiError } from '@cw/errors';
import type { Principal } from '@cw/auth';
import { useCase } from '@cw/usecase';
import { conversionView, type ConversionRecord } from '@cw/conversions';
import { CONVERSION_SCHEMA } from './conversion.views';
import { listConversions } from './reporting.service';
import { own, type ReportsDeps } from './deps';

/** The status a conversion has right after each event (a reversal declines an approved sale). */
const STATUS_AFTER: Record<string, 'pending' | 'approved' | 'declined'> = {
  'sale.created': 'pending',
  'sale.approved': 'approved',
  'sale.declined': 'declined',
  'sale.reversed': 'declined',
};

const MONEY = { type: 'string', description: 'Decimal string.' };

export const CONVERSION_EVENT_SCHEMA = {
  type: 'object',
  required: ['id', 'type', 'event', 'status', 'created_at', 'logged_at'],
  properties: {
    id: { type: 'string', description: "The event id: the postback's `X-CW-Delivery` event and the events feed's `id`." },
    type: { type: 'string', enum: ['sale.created', 'sale.approved', 'sale.declined', 'sale.reversed'] },
    event: { type: 'string', enum: ['created', 'approved', 'declined', 'reversed'] },
    status: { type: 'string', enum: ['pending', 'approved', 'declined'], description: 'The status right after this event.' },
    created_at: { type: 'string', format: 'date-time', description: 'When the change happened.' },
    logged_at: { type: ['string', 'null'], format: 'date-time', description: 'When it joined the events feed (null: not yet, within a poll).' },
  },
};

/** GET .../conversions/:id: the publisher view of a conversion plus `events`. */
export const CONVERSION_DETAIL_SCHEMA = {
  type: 'object',
  required: ['id', 'status', 'subid', 'merchant', 'sale_amount', 'commission', 'currency', 'source', 'occurred_at', 'updated_at', 'events'],
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'approved', 'declined'] },
    subid: { type: ['string', 'null'] },
    campaign_id: { type: ['integer', 'null'] },
    program_id: { type: ['integer', 'null'] },
    merchant: { type: ['object', 'null'], properties: { id: { type: 'integer' }, name: { type: 'string' } } },
    sale_amount: MONEY,
    commission: { ...MONEY, description: 'Decimal string (negative for a correction).' },
    currency: { type: 'string' },
    click_id: { type: ['string', 'null'] },
    deeplink_id: { type: ['string', 'null'] },
    source: { type: 'string', enum: ['v1', 'ledger'] },
    channel: CONVERSION_SCHEMA.properties.channel,
    reason: { type: ['string', 'null'], description: 'Ledger entries only.' },
    reversed: { type: 'boolean' },
    occurred_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    events: { type: 'array', items: CONVERSION_EVENT_SCHEMA, description: 'Every status change, oldest first (ledger entries have none).' },
  },
};

const ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * The caller's conversion `id` with its history; another account's conversion, or none, is 404
 * `not_found` alike (nothing about other accounts is revealed).
 */
export const getConversion = useCase(listConversions.policy, async function getConversion(deps: ReportsDeps, principal: Principal, id: string) {
  const notFound = () => new ApiError({ code: 'not_found', detail: 'No conversion with this id in this account.' });
  if (!ID.test(id)) throw notFound();
  const c = await own(deps).Conversion.findOne({ _id: id, publisher_id: principal.publisher._id }, { order_ref: 0 }).lean<ConversionRecord>();
  if (!c) throw notFound();
  const events = [...(c.events ?? [])].sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a._id < b._id ? -1 : 1));
  const logged = events.length
    ? await own(deps)
        .SaleEvent.find({ _id: { $in: events.map((e) => e._id) }, publisher_id: principal.publisher._id }, { _id: 1, logged_at: 1 })
        .lean<Array<{ _id: string; logged_at: Date }>>()
    : [];
  const loggedAt = new Map(logged.map((e) => [e._id, e.logged_at]));
  const name = c.campaign_id !== undefined && c.campaign_id !== null ? (await deps.data.programs.merchantNames([c.campaign_id])).get(c.campaign_id) : undefined;
  return {
    ...conversionView(c, name),
    events: events.map((e) => ({
      id: e._id,
      type: e.type,
      event: e.type.replace('sale.', ''),
      status: STATUS_AFTER[e.type] ?? c.status,
      created_at: e.created_at,
      logged_at: loggedAt.get(e._id) ?? null,
    })),
  };
});
