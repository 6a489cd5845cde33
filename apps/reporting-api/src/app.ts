import type Koa from 'koa';
import { buildOpenApi, createServiceApp, docsRouter, mountRouter, type RouteSpec } from '@cw/http';
import type { AppDeps } from '@cw/runtime';

export const PREFIX = '/api/v1/affiliate-reporting';

/** The Reporting API's routes (other issues add resources here). */
export function routes(_deps: AppDeps): RouteSpec[] {
  return [];
}

export function openApiDocument(deps: AppDeps): Record<string, unknown> {
  return buildOpenApi({
    title: 'Reporting API',
    version: '1.1.0',
    description: 'Reporting-token API for third-party reporting tools, and the HasOffers-compatible endpoint at /Apiv3/json.',
    serverUrl: deps.config.portalUrl,
    securitySchemes: {},
    groups: [{ prefix: PREFIX, routes: routes(deps) }],
  });
}

export function createApp(deps: AppDeps): Koa {
  const app = createServiceApp({ name: 'reporting-api', logger: deps.logger, limiter: deps.limiter, ipLimit: deps.config.rateLimits.ip, trustProxy: deps.config.trustProxy, metrics: deps.metrics });
  mountRouter(app, docsRouter({ prefix: PREFIX, title: 'Reporting API', document: () => openApiDocument(deps) }));
  return app;
}
