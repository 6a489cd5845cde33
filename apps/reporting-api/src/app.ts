import type Koa from 'koa';
import type { RouteSpec } from '@cw/http';
import { apiDocument, createPlatformApp, type ApiDescription, type AppDeps } from '@cw/runtime';

export const PREFIX = '/api/v1/affiliate-reporting';

/** This app's routes (other issues add resources here). */
export function routes(_deps: AppDeps): RouteSpec[] {
  return [];
}

export function api(deps: AppDeps): ApiDescription {
  return { title: 'Reporting API', description: 'Reporting-token API for third-party reporting tools, and the HasOffers-compatible endpoint at /Apiv3/json.', prefix: PREFIX, routes: routes(deps) };
}

export const openApiDocument = (deps: AppDeps) => apiDocument(deps, api(deps));

export function createApp(deps: AppDeps): Koa {
  return createPlatformApp(deps, { name: 'reporting-api', api: api(deps) });
}
