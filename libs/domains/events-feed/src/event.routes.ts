/**
 * The events feed's two routes, mounted by the publisher API (API keys) and the reporting-token
 * API (reporting token) alike: the same log, the same cursors.
 */
import type { Middleware } from 'koa';
import { route, type RouteSpec } from '@cw/http';
import { EVENTS_INPUT, listEvents } from './event-log';
import { INQUIRY_EVENT_SCHEMA, PAYOUT_EVENT_SCHEMA } from './event-types';
import { hiddenEventTypes } from './event-visibility';
import type { Principal } from '@cw/auth';
import { openEventStream, type EventStreamDeps } from './event-stream';

const MONEY = { type: 'string', description: 'Decimal string.' };

export const SALE_EVENT_SCHEMA = {
  type: 'object',
  required: ['id', 'type', 'event', 'created_at', 'publisher_id', 'conversion'],
  properties: {
    id: { type: 'string', description: "The event id: the same as the postback's for this event." },
    type: { type: 'string', enum: ['sale.created', 'sale.approved', 'sale.declined', 'sale.reversed'] },
    event: { type: 'string', enum: ['created', 'approved', 'declined', 'reversed'] },
    created_at: { type: 'string', format: 'date-time', description: 'When the change happened.' },
    publisher_id: { type: 'string' },
    conversion: {
      type: 'object',
      description: 'The conversion as of this event.',
      properties: {
        id: { type: 'string' },
        status: { type: 'string', enum: ['pending', 'approved', 'declined'] },
        subid: { type: ['string', 'null'] },
        commission: MONEY,
        sale_amount: MONEY,
        currency: { type: 'string' },
        program_id: { type: ['integer', 'null'] },
        campaign_id: { type: ['integer', 'null'] },
        merchant: { type: ['object', 'null'], properties: { id: { type: 'integer' }, name: { type: 'string' } } },
        click_id: { type: ['string', 'null'] },
        occurred_at: { type: 'string', format: 'date-time' },
      },
    },
  },
};

/** An entry of the feed: a sale event or another domain's event (./event-types.ts), told apart by `type`. */
export const FEED_EVENT_SCHEMA = { anyOf: [SALE_EVENT_SCHEMA, PAYOUT_EVENT_SCHEMA, INQUIRY_EVENT_SCHEMA] };

export const EVENTS_PAGE_SCHEMA = {
  type: 'object',
  required: ['data', 'next_cursor', 'has_more'],
  properties: {
    data: { type: 'array', items: FEED_EVENT_SCHEMA },
    next_cursor: { type: 'string', description: 'Pass as `cursor` to get what follows (also when `data` is empty: keep it and poll again).' },
    has_more: { type: 'boolean', description: 'More events follow already: ask again at once.' },
  },
};

const STREAM_INPUT = { type: 'object', additionalProperties: false, properties: { cursor: EVENTS_INPUT.properties.cursor } } as const;

export interface EventRoutesOptions {
  /** Authenticates and authorizes (sets the principal). */
  auth: Middleware[];
  security: string[];
  /** The account whose feed it is, from the request's principal. */
  accountOf(ctx: Parameters<Middleware>[0]): string;
  errors: Record<number, { description: string }>;
  /** Operation ids, unique across the platform's documents (default listEvents, streamEvents). */
  operationIds?: { list: string; stream: string };
}

export function eventRoutes(deps: EventStreamDeps, opts: EventRoutesOptions): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/events',
      operationId: opts.operationIds?.list ?? 'listEvents',
      summary: 'Every event of the account, oldest first, from a cursor',
      description:
        'Each change to a conversion (`sale.created`, `sale.approved`, `sale.declined`, `sale.reversed`) and each payout paid or failed (`payout.paid`, `payout.failed`, with the payout as `GET /payouts/{id}` shows it) in the order it joined the log: a `cursor` resumes exactly after the last event seen, so a poller never misses an amendment nor sees one twice. The bodies are the postback bodies (the same event ids). Tell events apart by `type`; ignore types you do not know (more may be added). Payout events reach only callers that may read payouts (live keys, OAuth `affiliate:read`, the portal); for the others they are skipped.',
      tags: ['Events'],
      security: opts.security,
      query: EVENTS_INPUT,
      before: opts.auth,
      responses: {
        200: { description: 'A page of events', schema: EVENTS_PAGE_SCHEMA },
        ...opts.errors,
        410: { description: 'cursor_expired: the events after this cursor are no longer kept' },
      },
      handler: async (ctx, { query }) => {
        ctx.body = await listEvents(deps, opts.accountOf(ctx), query, { hidden: hiddenEventTypes(ctx.state.principal as Principal | undefined) });
      },
    }),
    route({
      method: 'GET',
      path: '/events/stream',
      operationId: opts.operationIds?.stream ?? 'streamEvents',
      summary: 'The same events as Server-Sent Events, live',
      description:
        'text/event-stream: one `id:` (the cursor after that event), `event:` (the type) and `data:` (the event JSON) per event, a comment every 15 s when idle. Reconnect with `Last-Event-ID` (or `?cursor=`) to resume exactly after the last event received. At most EVENT_STREAMS_PER_ACCOUNT (default 5) open streams per account: 429 `too_many_streams` beyond.',
      tags: ['Events'],
      security: opts.security,
      query: STREAM_INPUT,
      before: opts.auth,
      responses: {
        200: { description: 'The event stream', contentType: 'text/event-stream', schema: { type: 'string' } },
        ...opts.errors,
        410: { description: 'cursor_expired: the events after this cursor are no longer kept' },
      },
      handler: async (ctx, { query }) => {
        const lastEventId = ctx.get('Last-Event-ID');
        await openEventStream(ctx, deps, opts.accountOf(ctx), lastEventId || query.cursor, {
          hidden: hiddenEventTypes(ctx.state.principal as Principal | undefined),
        });
      },
    }),
  ];
}
