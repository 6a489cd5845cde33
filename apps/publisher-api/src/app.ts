import type Koa from 'koa';
import { buildOpenApi, buildRouter, createServiceApp, docsRouter, mountRouter, type RouteSpec } from '@cw/http';
import type { AppDeps } from '@cw/runtime';
import { accountRoutes } from './routes/account.routes';
import { linkRoutes } from './routes/links.routes';
import { noStore, productRoutes } from './routes/products.routes';
import { programRoutes } from './routes/programs.routes';

export const PREFIX = '/api/v1/publisher';

export function routes(deps: AppDeps): RouteSpec[] {
  return [...accountRoutes(deps), ...productRoutes(deps), ...programRoutes(deps), ...linkRoutes(deps)];
}

export function openApiDocument(deps: AppDeps): Record<string, unknown> {
  return buildOpenApi({
    title: 'Publisher Affiliate API',
    version: '1.1.0',
    description: 'Products, programs, tracking links, conversions, reports, clicks, postbacks and payment status for affiliate publishers.',
    serverUrl: deps.config.portalUrl,
    securitySchemes: {
      ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      BearerAuth: { type: 'http', scheme: 'bearer' },
    },
    groups: [{ prefix: PREFIX, routes: routes(deps) }],
  });
}

export function createApp(deps: AppDeps): Koa {
  const app = createServiceApp({ name: 'publisher-api', logger: deps.logger, limiter: deps.limiter, ipLimit: deps.config.rateLimits.ip, trustProxy: deps.config.trustProxy, metrics: deps.metrics });
  mountRouter(app, docsRouter({ prefix: PREFIX, title: 'Publisher Affiliate API', document: () => openApiDocument(deps) }));
  // Product endpoints are private to the caller, 405 and 404 included.
  app.use(async (ctx, next) => (ctx.path.startsWith(`${PREFIX}/products`) ? noStore(ctx, next) : next()));
  mountRouter(app, buildRouter(PREFIX, routes(deps)));
  return app;
}
