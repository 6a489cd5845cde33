import type Koa from 'koa';
import type { RouteSpec } from '@cw/http';
import { API_KEY_SCHEMES, apiDocument, createPlatformApp, type ApiDescription, type AppDeps } from '@cw/runtime';
import { accountRoutes } from './routes/account.routes';
import { clickRoutes } from './routes/clicks.routes';
import { linkRoutes } from './routes/links.routes';
import { noStore, productRoutes } from './routes/products.routes';
import { programRoutes } from './routes/programs.routes';

export const PREFIX = '/api/v1/publisher';

export function routes(deps: AppDeps): RouteSpec[] {
  return [...accountRoutes(deps), ...productRoutes(deps), ...programRoutes(deps), ...linkRoutes(deps), ...clickRoutes(deps)];
}

export function api(deps: AppDeps): ApiDescription {
  return {
    title: 'Publisher Affiliate API',
    description: 'Products, programs, tracking links, conversions, reports, clicks, postbacks and payment status for affiliate publishers.',
    prefix: PREFIX,
    securitySchemes: API_KEY_SCHEMES,
    routes: routes(deps),
  };
}

export const openApiDocument = (deps: AppDeps) => apiDocument(deps, api(deps));

export function createApp(deps: AppDeps): Koa {
  // Product endpoints are private to the caller, 405 and 404 included.
  const privateProducts: Koa.Middleware = (ctx, next) => (ctx.path.startsWith(`${PREFIX}/products`) ? noStore(ctx, next) : next());
  return createPlatformApp(deps, { name: 'publisher-api', api: api(deps), use: [privateProducts] });
}
