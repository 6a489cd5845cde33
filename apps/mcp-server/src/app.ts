import type Koa from 'koa';
import type { RouteSpec } from '@cw/http';
import { apiDocument, createPlatformApp, type ApiDescription, type AppDeps } from '@cw/runtime';

export const PREFIX = '/api/v1/mcp';

/** This app's routes (other issues add resources here). */
export function routes(_deps: AppDeps): RouteSpec[] {
  return [];
}

export function api(deps: AppDeps): ApiDescription {
  return { title: 'MCP', description: 'Model Context Protocol endpoint (Streamable HTTP) for AI agents.', prefix: PREFIX, routes: routes(deps) };
}

export const openApiDocument = (deps: AppDeps) => apiDocument(deps, api(deps));

export function createApp(deps: AppDeps): Koa {
  return createPlatformApp(deps, { name: 'mcp-server', api: api(deps) });
}
