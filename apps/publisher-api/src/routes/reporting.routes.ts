import { principalOf, requirePolicy } from '@cw/auth';
import { LIST_CONVERSIONS_INPUT, REPORT_INPUT } from '@cw/conversions';
import { eventRoutes, EVENTS_POLICY } from '@cw/events-feed';
import { CONVERSION_PAGE_SCHEMA, conversionReport, listConversions, REPORT_SCHEMA } from '@cw/reports';
import { route, type RouteSpec } from '@cw/http';
import { API_KEY_SECURITY } from '@cw/runtime';
import type { PublisherApiDeps } from '../deps';

const ERRORS = {
  400: { description: 'Invalid parameter' },
  401: { description: 'Not authenticated' },
  403: { description: 'Credential not allowed (demo keys)' },
  429: { description: 'Rate limited' },
  503: { description: 'Unavailable' },
};

export function reportingRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return [
    ...eventRoutes(deps, {
      auth: [requirePolicy(deps, EVENTS_POLICY)],
      security: API_KEY_SECURITY,
      accountOf: (ctx) => principalOf(ctx).publisher._id,
      errors: ERRORS,
    }),
    route({
      method: 'GET',
      path: '/conversions',
      operationId: 'listConversions',
      summary: 'Your conversions, newest first, with a sub-ID rollup of the filtered set',
      description: 'date_from/date_to are inclusive UTC days of occurred_at; updated_since for incremental sync.',
      tags: ['Reporting'],
      security: API_KEY_SECURITY,
      query: LIST_CONVERSIONS_INPUT,
      before: [requirePolicy(deps, listConversions.policy)],
      responses: { 200: { description: 'Page envelope of conversions plus subid_rollup', schema: CONVERSION_PAGE_SCHEMA }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await listConversions(deps, principalOf(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/reports',
      operationId: 'getReport',
      summary: 'Conversions and commission per day, week, month, sub-ID, campaign or status',
      description:
        'Default range: the last 30 days; at most 366 days. Time groups are dense (every period appears, zeros included). Weeks are ISO weeks keyed by their Monday.',
      tags: ['Reporting'],
      security: API_KEY_SECURITY,
      query: REPORT_INPUT,
      before: [requirePolicy(deps, conversionReport.policy)],
      responses: {
        200: {
          description: 'Report',
          schema: REPORT_SCHEMA,
        },
        ...ERRORS,
      },
      handler: async (ctx, { query }) => {
        ctx.body = await conversionReport(deps, principalOf(ctx), query);
      },
    }),
  ];
}
