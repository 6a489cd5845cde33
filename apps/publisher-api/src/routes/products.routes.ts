import type { Middleware } from 'koa';
import { LOOKUP_PRODUCTS, SEARCH_PRODUCTS } from '@cw/catalog';
import type { RouteSpec } from '@cw/http';
import type { PublisherApiDeps } from '../deps';
import { apiKeyRoutes } from '../surface';

/** Product responses are private to the caller: never cached, errors included (mounted in app.ts). */
export const noStore: Middleware = async (ctx, next) => {
  ctx.set('Cache-Control', 'private, no-store');
  await next();
};

export function productRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return apiKeyRoutes(deps, [SEARCH_PRODUCTS, LOOKUP_PRODUCTS]);
}
