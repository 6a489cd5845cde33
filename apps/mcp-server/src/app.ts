import type Koa from 'koa';
import { buildOpenApi, createServiceApp, docsRouter, mountRouter, type RouteSpec } from '@cw/http';
import type { AppDeps } from '@cw/runtime';

export const PREFIX = '/api/v1/mcp';

/** The MCP's routes (other issues add resources here). */
export function routes(_deps: AppDeps): RouteSpec[] {
  return [];
}

export function openApiDocument(deps: AppDeps): Record<string, unknown> {
  return buildOpenApi({
    title: 'MCP',
    version: '1.1.0',
    description: 'Model Context Protocol endpoint (Streamable HTTP) for AI agents.',
    serverUrl: deps.config.portalUrl,
    securitySchemes: {},
    groups: [{ prefix: PREFIX, routes: routes(deps) }],
  });
}

export function createApp(deps: AppDeps): Koa {
  const app = createServiceApp({ name: 'mcp-server', logger: deps.logger, limiter: deps.limiter, ipLimit: deps.config.rateLimits.ip, trustProxy: deps.config.trustProxy, metrics: deps.metrics });
  mountRouter(app, docsRouter({ prefix: PREFIX, title: 'MCP', document: () => openApiDocument(deps) }));
  return app;
}
