import type Koa from 'koa';
import type { RouteSpec } from '@cw/http';
import { apiDocument, createPlatformApp, type ApiDescription, type AppDeps } from '@cw/runtime';

export const PREFIX = '/api/v1/monetize';

/** This app's routes (other issues add resources here). */
export function routes(_deps: AppDeps): RouteSpec[] {
  return [];
}

export function api(deps: AppDeps): ApiDescription {
  return { title: 'Instant monetization API', description: 'Provisional tracking links issued at once; the account is claimed later for payout.', prefix: PREFIX, routes: routes(deps) };
}

export const openApiDocument = (deps: AppDeps) => apiDocument(deps, api(deps));

export function createApp(deps: AppDeps): Koa {
  return createPlatformApp(deps, { name: 'monetize-api', api: api(deps) });
}
