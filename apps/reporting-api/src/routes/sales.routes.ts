/**
 * The reporting-token API: sales, the per-sale sub-ID list, the summary, and the CSV export
 * streamed from a cursor (backpressure through the pipe; a client that goes away closes it).
 */
import { principalOf, requirePolicy } from '@cw/auth';
import { eventRoutes } from '@cw/events-feed';
import { exportSales, listSales, SALE_COLUMNS, SALES_EXPORT_INPUT, SALES_INPUT, SALES_POLICY, salesSummary, subidSales, SUMMARY_INPUT } from '@cw/reports';
import { AS_OF } from '@cw/stats';
import { pageEnvelopeSchema, route, sendDelimited, type RouteSpec } from '@cw/http';
import type { ReportingApiDeps } from '../deps';

export const SECURITY = ['ReportingToken'];
const BY_CURRENCY = { type: 'object', additionalProperties: { type: 'string' }, description: 'Decimal strings per ISO 4217 currency.' };

const SALE = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    sub_id: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['pending', 'approved', 'declined'] },
    sale_amount: { type: 'string', description: 'Decimal string.' },
    commission: { type: 'string', description: 'Decimal string.' },
    currency: { type: 'string' },
    merchant: { type: ['object', 'null'], properties: { id: { type: 'integer' }, name: { type: 'string' } } },
    program_id: { type: ['integer', 'null'] },
    click_id: { type: ['string', 'null'] },
    occurred_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

const SUBID_SALE = {
  type: 'object',
  properties: {
    sale_id: { type: 'string' },
    sub_id: { type: ['string', 'null'] },
    status: { type: 'string' },
    commission: { type: 'string' },
    currency: { type: 'string' },
    occurred_at: { type: 'string', format: 'date-time' },
  },
};

const SUMMARY_ROW = {
  type: 'object',
  properties: {
    sub_id: { type: ['string', 'null'], description: 'group_by=subid' },
    day: { type: 'string', description: 'group_by=day' },
    merchant: { type: ['object', 'null'], description: 'group_by=merchant', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
    channel: {
      type: 'string',
      enum: ['link', 'code', 'agent', 'inquiry'],
      description: 'group_by=channel: how the sales were attributed (a click, a coupon code, an agent’s token, an accepted inquiry).',
    },
    clicks: { type: 'integer', description: 'Clicks, bots excluded (group_by=channel: all on the link row).' },
    sales: { type: 'integer' },
    conversion_rate: { type: 'string', description: 'sales / clicks, 4 decimals.' },
    earnings: BY_CURRENCY,
    epc: { ...BY_CURRENCY, description: 'Earnings per click per currency, 4 decimals.' },
  },
};

const ERRORS = {
  400: { description: 'Invalid parameter' },
  401: { description: 'Not a valid reporting token' },
  429: { description: 'Rate limited (per account)' },
  503: { description: 'Unavailable' },
};

export function salesRoutes(deps: ReportingApiDeps): RouteSpec[] {
  // The reporting-token surface's policy, for what is not a use case of its own (events, the export);
  // the use cases carry the same one.
  const auth = [requirePolicy(deps, SALES_POLICY)];
  return [
    // The account's events feed, the same log and cursors as the publisher API's /events/.
    ...eventRoutes(deps, {
      auth,
      security: SECURITY,
      accountOf: (ctx) => principalOf(ctx).publisher._id,
      errors: ERRORS,
      operationIds: { list: 'listReportingEvents', stream: 'streamReportingEvents' },
    }),
    route({
      method: 'GET',
      path: '/sales',
      operationId: 'listSales',
      summary: 'Your sales, newest first',
      description: 'date_from/date_to are inclusive UTC days of occurred_at. Sales are merchant-reported conversions (ledger corrections are not sales).',
      tags: ['Sales'],
      security: SECURITY,
      query: SALES_INPUT,
      before: [requirePolicy(deps, listSales.policy)],
      responses: { 200: { description: 'Page envelope of sales', schema: pageEnvelopeSchema(SALE, { cursor: true }) }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await listSales(deps, principalOf(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/sales/export',
      operationId: 'exportSales',
      summary: 'Every sale of the filter as CSV (RFC 4180, header line, streamed)',
      description: `Columns: ${SALE_COLUMNS.join(', ')}. No paging: every row of the filter. Cells that start with =, +, -, @ are prefixed with an apostrophe so spreadsheets do not run them.`,
      tags: ['Sales'],
      security: SECURITY,
      query: SALES_EXPORT_INPUT,
      before: auth,
      responses: { 200: { description: 'CSV', contentType: 'text/csv', schema: { type: 'string' } }, ...ERRORS },
      handler: async (ctx, { query }) => {
        const { cursor, rows } = exportSales(deps, principalOf(ctx), query);
        sendDelimited(ctx, rows, {
          columns: SALE_COLUMNS,
          filename: `sales-${new Date().toISOString().slice(0, 10)}.csv`,
          onAbort: () => void cursor.close().catch(() => undefined),
          onError: (e) => deps.logger.error({ err: e.message }, 'sales export failed'),
        });
      },
    }),
    route({
      method: 'GET',
      path: '/subid-sales',
      operationId: 'listSubidSales',
      summary: 'One row per sale with its sub-ID (for sub-ID trackers)',
      tags: ['Sales'],
      security: SECURITY,
      query: SALES_INPUT,
      before: [requirePolicy(deps, subidSales.policy)],
      responses: { 200: { description: 'Page envelope of sales by sub-ID', schema: pageEnvelopeSchema(SUBID_SALE, { cursor: true }) }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await subidSales(deps, principalOf(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/summary',
      operationId: 'salesSummary',
      summary: 'Clicks, sales, conversion rate, earnings and EPC per sub-ID, day, merchant or channel',
      description:
        'Clicks exclude bots; a status filter applies to sales only. Earnings and EPC per currency. group_by=channel splits by how sales were attributed (link, code, agent, inquiry; clicks are all the link row’s), over at most 366 days (without date_from: the 366 days to date_to).',
      tags: ['Sales'],
      security: SECURITY,
      query: SUMMARY_INPUT,
      before: [requirePolicy(deps, salesSummary.policy)],
      responses: {
        200: {
          description: 'Summary',
          schema: {
            type: 'object',
            properties: {
              group_by: { type: 'string' },
              date_from: { type: ['string', 'null'] },
              date_to: { type: ['string', 'null'] },
              timezone: { type: 'string', description: 'The time zone whose calendar days the dates and day keys are.' },
              as_of: AS_OF,
              data: { type: 'array', items: SUMMARY_ROW },
            },
          },
        },
        ...ERRORS,
      },
      handler: async (ctx, { query }) => {
        ctx.body = await salesSummary(deps, principalOf(ctx), query);
      },
    }),
  ];
}
