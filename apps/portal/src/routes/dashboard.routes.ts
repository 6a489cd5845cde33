/** The dashboard's numbers (`/accounts/:account/overview`): the same stats read model as GET /reports. */
import { route, type RouteSpec } from '@cw/http';
import { accountChannels, accountOverview, accountTop, CHANNELS_INPUT, CHANNELS_SCHEMA, OVERVIEW_INPUT, TOP_INPUT } from '@cw/reports';
import { AS_OF } from '@cw/stats';
import { memberOf, principalIn, spendPortalBudget, type PortalDeps } from '../portal-context';
import { E } from './schemas';

const SUMS = { type: 'object', additionalProperties: { type: 'string' }, description: 'Decimal strings per ISO 4217 currency.' };
const RATE = { type: ['string', 'null'], description: '(pending + approved conversions) / clicks, 4 decimals; null without clicks.' };
const TOTALS = {
  type: 'object',
  properties: {
    clicks: { type: 'integer', description: 'Clicks, bots excluded.' },
    conversions: {
      type: 'object',
      properties: { total: { type: 'integer' }, pending: { type: 'integer' }, approved: { type: 'integer' }, declined: { type: 'integer' } },
    },
    commission: {
      type: 'object',
      description: 'Per status; earned = pending + approved.',
      properties: { earned: SUMS, pending: SUMS, approved: SUMS, declined: SUMS },
    },
    earned_in_payout_currency: {
      type: 'object',
      properties: {
        currency: { type: 'string' },
        amount: { type: 'string' },
        approximate: { type: 'boolean', description: 'True when another currency was converted (indicative rates).' },
        not_converted: { type: 'array', items: { type: 'string' }, description: 'Currencies without a configured rate (left out of amount).' },
      },
    },
    conversion_rate: RATE,
    epc: { ...SUMS, description: 'Earned commission per click per currency, 4 decimals.' },
  },
};
const ROW = {
  clicks: { type: 'integer' },
  conversions: { type: 'integer' },
  earned: SUMS,
  conversion_rate: RATE,
};
const MERCHANT = { type: ['object', 'null'], properties: { id: { type: 'integer' }, name: { type: 'string' } } };

export const OVERVIEW_SCHEMA = {
  type: 'object',
  properties: {
    timezone: { type: 'string' },
    date_from: { type: 'string', format: 'date' },
    date_to: { type: 'string', format: 'date' },
    bucket: {
      type: 'string',
      enum: ['day', 'week', 'month'],
      description: 'Days up to 62 days, ISO weeks (keyed by their Monday) up to 26 weeks, months beyond.',
    },
    payout_currency: { type: 'string' },
    as_of: AS_OF,
    totals: TOTALS,
    previous: {
      type: 'object',
      description: 'The period of the same length just before.',
      properties: { date_from: { type: 'string' }, date_to: { type: 'string' }, totals: TOTALS },
    },
    series: { type: 'array', items: { type: 'object', properties: { period: { type: 'string' }, ...ROW } } },
  },
};

export const TOP_SCHEMA = {
  type: 'object',
  description: 'Ranked by earned commission in the payout currency, then conversions, then clicks.',
  properties: {
    timezone: { type: 'string' },
    date_from: { type: 'string', format: 'date' },
    date_to: { type: 'string', format: 'date' },
    payout_currency: { type: 'string' },
    as_of: AS_OF,
    subids: { type: 'array', items: { type: 'object', properties: { subid: { type: ['string', 'null'] }, ...ROW } } },
    programs: { type: 'array', items: { type: 'object', properties: { program_id: { type: ['integer', 'null'] }, merchant: MERCHANT, ...ROW } } },
    links: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          link_id: { type: 'string' },
          landing_url: { type: ['string', 'null'] },
          subid: { type: ['string', 'null'] },
          program_id: { type: ['integer', 'null'] },
          merchant: MERCHANT,
          ...ROW,
        },
      },
    },
  },
};

export function dashboardRoutes(deps: PortalDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/accounts/:account/overview',
      operationId: 'getOverview',
      summary: "The dashboard: clicks, conversions, commission, conversion rate and EPC for a range of days in the account's time zone",
      description:
        'Totals (and the previous period of the same length) and a dense series by day, week or month (the top lists: GET .../overview/top). Default range: the last 30 days; at most 366.',
      tags: ['Dashboard'],
      pathParams: { account: { type: 'string' } },
      query: OVERVIEW_INPUT,
      before: [spendPortalBudget(deps), memberOf(deps)],
      responses: {
        200: { description: 'The overview', schema: OVERVIEW_SCHEMA },
        400: E('Invalid parameter'),
        401: E('Not signed in'),
        404: E('Not a member of this account'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { query }) => {
        ctx.body = await accountOverview(deps, principalIn(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/overview/top',
      operationId: 'getOverviewTop',
      summary: 'The top sub-IDs, programs and links of a range of days',
      description:
        'Read apart from the totals: it reads a cell per sub-ID, program and link and month, as GET /reports by sub-ID does; a range too long for the time budget is 503 (the totals are not held back).',
      tags: ['Dashboard'],
      pathParams: { account: { type: 'string' } },
      query: TOP_INPUT,
      before: [spendPortalBudget(deps), memberOf(deps)],
      responses: {
        200: { description: 'The top lists', schema: TOP_SCHEMA },
        400: E('Invalid parameter'),
        401: E('Not signed in'),
        404: E('Not a member of this account'),
        429: E('Rate limited'),
        503: E('The range needs more than the time budget'),
      },
      handler: async (ctx, { query }) => {
        ctx.body = await accountTop(deps, principalIn(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/overview/channels',
      operationId: 'getOverviewChannels',
      summary: 'Conversions and commission of a range of days by channel (link, code, agent, inquiry)',
      description:
        'Read apart from the totals, from the conversions themselves (the read model does not key channels): every channel, zeros included. At most 366 days.',
      tags: ['Dashboard'],
      pathParams: { account: { type: 'string' } },
      query: CHANNELS_INPUT,
      before: [spendPortalBudget(deps), memberOf(deps)],
      responses: {
        200: { description: 'The split by channel', schema: CHANNELS_SCHEMA },
        400: E('Invalid parameter'),
        401: E('Not signed in'),
        404: E('Not a member of this account'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { query }) => {
        ctx.body = await accountChannels(deps, principalIn(ctx), query);
      },
    }),
  ];
}
