import type { Middleware } from 'koa';
import { principalOf, requirePolicy } from '@cw/auth';
import { LOOKUP_INPUT, lookupProductsPage, PRODUCT_PAGE_SCHEMA, SEARCH_INPUT, searchProductsPage } from '@cw/catalog';
import { route, type RouteSpec } from '@cw/http';
import { API_KEY_SECURITY } from '@cw/runtime';
import type { PublisherApiDeps } from '../deps';

/** A page's bytes as the use case wrote them (with PRODUCT_PAGE_SCHEMA's serializer) and the page cache keeps them. */
function answer(ctx: Parameters<Middleware>[0], page: string): void {
  ctx.type = 'application/json';
  ctx.body = page;
}

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

export function productRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/products',
      operationId: 'searchProducts',
      summary: 'Search fresh, in-stock products of approved programs in authorized markets',
      tags: ['Products'],
      security: API_KEY_SECURITY,
      query: SEARCH_INPUT,
      before: [requirePolicy(deps, searchProductsPage.policy)],
      responses: { 200: { description: 'A page of products', schema: PRODUCT_PAGE_SCHEMA }, ...ERRORS },
      handler: async (ctx, { query }) => {
        answer(ctx, await searchProductsPage(deps, principalOf(ctx), query));
      },
    }),
    route({
      method: 'GET',
      path: '/products/lookup',
      operationId: 'lookupProducts',
      summary: 'Refresh price and stock by product id or GTIN',
      tags: ['Products'],
      security: API_KEY_SECURITY,
      query: LOOKUP_INPUT,
      before: [requirePolicy(deps, lookupProductsPage.policy)],
      responses: { 200: { description: 'A page of products', schema: PRODUCT_PAGE_SCHEMA }, ...ERRORS },
      handler: async (ctx, { query }) => {
        answer(ctx, await lookupProductsPage(deps, principalOf(ctx), query));
      },
    }),
  ];
}
