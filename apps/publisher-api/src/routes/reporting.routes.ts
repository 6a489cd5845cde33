import { principalOf, requirePolicy } from '@cw/auth';
import { REPORT_INPUT } from '@cw/conversions';
import { eventRoutes, EVENTS_POLICY } from '@cw/events-feed';
import { conversionReport, LIST_CONVERSIONS, REPORT_SCHEMA } from '@cw/reports';
import { route, type RouteSpec } from '@cw/http';
import { API_KEY_SECURITY } from '@cw/runtime';
import type { PublisherApiDeps } from '../deps';
import { apiKeyRoutes } from '../surface';

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
    ...apiKeyRoutes(deps, [LIST_CONVERSIONS]),
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
