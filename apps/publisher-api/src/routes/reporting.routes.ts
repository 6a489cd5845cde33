import { principalOf, requirePolicy } from '@cw/auth';
import { conversionReport, CONVERSIONS_POLICY, LIST_CONVERSIONS_INPUT, listConversions, REPORT_INPUT, REPORTS_POLICY } from '@cw/conversions';
import { pageEnvelopeSchema, route, type RouteSpec } from '@cw/http';
import { API_KEY_SECURITY, type AppDeps } from '@cw/runtime';

const BY_CURRENCY = { type: 'object', additionalProperties: { type: 'string' }, description: 'Decimal strings per ISO 4217 currency.' };

const CONVERSION = {
  type: 'object',
  required: ['id', 'status', 'subid', 'campaign_id', 'program_id', 'merchant', 'sale_amount', 'commission', 'currency', 'click_id', 'deeplink_id', 'source', 'occurred_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'approved', 'declined'] },
    subid: { type: ['string', 'null'] },
    campaign_id: { type: ['integer', 'null'] },
    program_id: { type: ['integer', 'null'] },
    merchant: { type: ['object', 'null'], properties: { id: { type: 'integer' }, name: { type: 'string' } } },
    sale_amount: { type: 'string', description: 'Decimal string.' },
    commission: { type: 'string', description: 'Decimal string (negative for a correction).' },
    currency: { type: 'string' },
    click_id: { type: ['string', 'null'] },
    deeplink_id: { type: ['string', 'null'] },
    source: { type: 'string', enum: ['v1', 'ledger'] },
    reason: { type: ['string', 'null'], description: 'Ledger entries only.' },
    reversed: { type: 'boolean', description: 'Declined after approval.' },
    occurred_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

const CONVERSION_PAGE = pageEnvelopeSchema(CONVERSION);
(CONVERSION_PAGE.properties as Record<string, unknown>).subid_rollup = {
  type: 'array',
  description: 'Per sub-ID over the whole filtered set, not only this page.',
  items: { type: 'object', properties: { subid: { type: ['string', 'null'] }, conversions: { type: 'integer' }, commission: BY_CURRENCY } },
};

const REPORT_ROW = { type: 'object', properties: { key: { type: ['string', 'null'] }, conversions: { type: 'integer' }, approved: { type: 'integer' }, pending: { type: 'integer' }, declined: { type: 'integer' }, sale_amount: BY_CURRENCY, commission: BY_CURRENCY } };

const ERRORS = { 400: { description: 'Invalid parameter' }, 401: { description: 'Not authenticated' }, 403: { description: 'Credential not allowed (demo keys)' }, 429: { description: 'Rate limited' }, 503: { description: 'Unavailable' } };

export function reportingRoutes(deps: AppDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/conversions',
      operationId: 'listConversions',
      summary: 'Your conversions, newest first, with a sub-ID rollup of the filtered set',
      description: 'date_from/date_to are inclusive UTC days of occurred_at; updated_since for incremental sync.',
      tags: ['Reporting'],
      security: API_KEY_SECURITY,
      query: LIST_CONVERSIONS_INPUT,
      before: [requirePolicy(deps, CONVERSIONS_POLICY)],
      responses: { 200: { description: 'Page envelope of conversions plus subid_rollup', schema: CONVERSION_PAGE }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await listConversions(deps, principalOf(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/reports',
      operationId: 'getReport',
      summary: 'Conversions and commission per day, week, month, sub-ID, campaign or status',
      description: 'Default range: the last 30 days; at most 366 days. Time groups are dense (every period appears, zeros included). Weeks are ISO weeks keyed by their Monday.',
      tags: ['Reporting'],
      security: API_KEY_SECURITY,
      query: REPORT_INPUT,
      before: [requirePolicy(deps, REPORTS_POLICY)],
      responses: {
        200: {
          description: 'Report',
          schema: { type: 'object', properties: { group_by: { type: 'string' }, date_from: { type: 'string' }, date_to: { type: 'string' }, timezone: { type: 'string' }, rows: { type: 'array', items: REPORT_ROW }, totals: REPORT_ROW } },
        },
        ...ERRORS,
      },
      handler: async (ctx, { query }) => {
        ctx.body = await conversionReport(deps, principalOf(ctx), query);
      },
    }),
  ];
}
