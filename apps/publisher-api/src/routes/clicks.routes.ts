import { principalOf, requirePolicy } from '@cw/auth';
import { pageEnvelopeSchema, route, type RouteSpec } from '@cw/http';
import { CLICK_SCHEMA, CLICKS_INPUT, listClicks } from '@cw/links';
import { API_KEY_SECURITY } from '@cw/runtime';
import { ERRORS } from './links.routes';
import type { PublisherApiDeps } from '../deps';

export function clickRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/clicks',
      operationId: 'listClicks',
      summary: 'Recorded clicks on your links, newest first',
      tags: ['Clicks'],
      security: API_KEY_SECURITY,
      query: CLICKS_INPUT,
      before: [requirePolicy(deps, listClicks.policy)],
      responses: { 200: { description: 'Page envelope of clicks', schema: pageEnvelopeSchema(CLICK_SCHEMA, { cursor: true }) }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await listClicks(deps, principalOf(ctx), query);
      },
    }),
  ];
}
