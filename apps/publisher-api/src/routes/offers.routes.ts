import { principalOf, requirePolicy } from '@cw/auth';
import { route, type RouteSpec } from '@cw/http';
import { listOffers, OFFERS_INPUT } from '@cw/offers';
import type { PublisherApiDeps } from '../deps';

const OFFER = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    program_id: { type: 'integer' },
    merchant: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
    type: { type: 'string', enum: ['voucher', 'deal'] },
    title: { type: 'string' },
    description: { type: 'string' },
    code: { type: ['string', 'null'], description: 'The voucher code; null for a deal.' },
    url: { type: 'string', description: 'Your tracked link to the offer.' },
    country: { type: 'string' },
    starts_at: { type: 'string', format: 'date-time' },
    ends_at: { type: 'string', format: 'date-time' },
    terms: { type: 'string' },
  },
};

export function offersRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/offers',
      operationId: 'listOffers',
      summary: 'Vouchers and deals running now for your approved programs in one country (pilot)',
      description: 'The dedicated offers credential only (Authorization: Bearer); the regular API key is refused. Only country, limit and page.',
      tags: ['Offers'],
      security: ['OffersCredential'],
      query: OFFERS_INPUT,
      before: [requirePolicy(deps, listOffers.policy)],
      responses: {
        200: {
          description: 'A page of offers',
          schema: {
            type: 'object',
            properties: { data: { type: 'array', items: OFFER }, page: { type: 'integer' }, limit: { type: 'integer' }, has_more: { type: 'boolean' } },
          },
        },
        400: { description: 'Invalid parameter' },
        401: { description: 'Not an offers credential' },
        403: { description: 'Country outside the credential scope' },
        429: { description: 'Rate limited' },
        503: { description: 'Unavailable' },
      },
      handler: async (ctx, { query }) => {
        ctx.body = await listOffers(deps, principalOf(ctx), query);
      },
    }),
  ];
}
