import { principalOf, requirePolicy } from '@cw/auth';
import { route, sendDelimited, type RouteSpec } from '@cw/http';

import { TRENDING_COLUMNS, TRENDING_INPUT, trendingOpportunities, trendingRows } from '@cw/trending';
import { API_KEY_SECURITY } from '@cw/runtime';
import type { PublisherApiDeps } from '../deps';

const ITEM = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    plan_id: { type: 'string' },
    title: { type: 'string' },
    country: { type: 'string' },
    channel: { type: 'string', enum: ['coupon', 'content', 'social'] },
    program_id: { type: 'integer' },
    merchant: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
    score: { type: 'number' },
    status: { type: 'string', enum: ['available', 'unavailable'] },
    reason: { type: 'string', enum: ['not_approved', 'eligibility_stale', 'program_paused'], description: 'Only on unavailable items.' },
    url: { type: 'string', description: 'Your tracked link; only on available items.' },
  },
};

export function trendingRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/trending-opportunities',
      operationId: 'listTrendingOpportunities',
      summary: 'What to promote now: items of released plans in your subscribed channels',
      description: `Needs the trending feature and a subscription (404 otherwise). 60 requests per minute. format=csv streams the columns ${TRENDING_COLUMNS.join(', ')}.`,
      tags: ['Trending opportunities'],
      security: API_KEY_SECURITY,
      query: TRENDING_INPUT,
      before: [requirePolicy(deps, trendingOpportunities.policy)],
      responses: {
        200: {
          description: 'Items, best score first (JSON, or CSV with format=csv)',
          schema: {
            type: 'object',
            properties: {
              data: { type: 'array', items: ITEM },
              count: { type: 'integer' },
              country: { type: ['string', 'null'] },
              channel: { type: ['string', 'null'] },
              channels: { type: 'array', items: { type: 'string' } },
              generated_at: { type: 'string', format: 'date-time' },
            },
          },
          alternatives: {
            'text/csv': { type: 'string', description: `With format=csv: a header line, then one line per item (${TRENDING_COLUMNS.join(', ')}).` },
          },
        },
        400: { description: 'Invalid parameter, or a channel you are not subscribed to' },
        401: { description: 'Not authenticated' },
        403: { description: 'Key kind not allowed (demo keys)' },
        404: { description: 'Feature off or account not subscribed' },
        429: { description: 'Rate limited' },
        503: { description: 'Unavailable' },
      },
      handler: async (ctx, { query }) => {
        const result = await trendingOpportunities(deps, principalOf(ctx), query);
        if (query.format === 'csv')
          sendDelimited(ctx, trendingRows(result.data), { columns: TRENDING_COLUMNS, filename: `trending-${new Date().toISOString().slice(0, 10)}.csv` });
        else ctx.body = result;
      },
    }),
  ];
}
