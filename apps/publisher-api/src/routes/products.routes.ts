import type { Middleware } from 'koa';
import type { RouteSpec } from '@cw/http';
import type { AppDeps } from '@cw/runtime';
import { API_KEY_SECURITY, guard, principalOf } from '../guard';
import { MerchantNames } from '../services/merchant-names';
import { lookup, search } from '../services/products.service';
import { LOOKUP_QUERY, PRODUCT_PAGE, SEARCH_QUERY } from './products.schemas';

/** Product responses are private to the caller: never cached, errors included (mounted in app.ts). */
export const noStore: Middleware = async (ctx, next) => {
  ctx.set('Cache-Control', 'private, no-store');
  await next();
};

const ERRORS = {
  400: { description: 'Invalid, unknown or repeated parameter, invalid GTIN, or country required' },
  401: { description: 'Not authenticated' },
  403: { description: 'Product feed access not active' },
  405: { description: 'Only GET is allowed: the API does not accept product writes' },
  429: { description: 'Rate limited (60 per minute per account, shared by search and lookup)' },
  503: { description: 'Catalog or rate-limit store unavailable' },
};

export function productRoutes(deps: AppDeps): RouteSpec[] {
  const before = guard(deps, { budget: 'products', allowDemo: true, requireFeedAccess: true });
  const svc = { models: deps.models, config: deps.config, merchants: new MerchantNames(deps.models) };
  return [
    {
      method: 'GET',
      path: '/products',
      operationId: 'searchProducts',
      summary: 'Search fresh, in-stock products of approved programs in authorized markets',
      tags: ['Products'],
      security: API_KEY_SECURITY,
      query: SEARCH_QUERY,
      before,
      responses: { 200: { description: 'A page of products', schema: PRODUCT_PAGE }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await search(svc, principalOf(ctx.state), query);
      },
    },
    {
      method: 'GET',
      path: '/products/lookup',
      operationId: 'lookupProducts',
      summary: 'Refresh price and stock by product id or GTIN',
      tags: ['Products'],
      security: API_KEY_SECURITY,
      query: LOOKUP_QUERY,
      before,
      responses: { 200: { description: 'A page of products', schema: PRODUCT_PAGE }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await lookup(svc, principalOf(ctx.state), query);
      },
    },
  ];
}
