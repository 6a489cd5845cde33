/**
 * The one way an app is assembled: the standard service stack (request id, errors with the
 * database's failures classified, metrics, per-address limit, bodies), its API's docs and
 * OpenAPI document, and its routes. Apps differ only in the description they pass.
 */
import type Koa from 'koa';
import {
  buildOpenApi,
  buildRouter,
  createServiceApp,
  docsRouter,
  mountRouter,
  OAUTH_SCHEME,
  type ErrorRenderer,
  type OpenApiExamples,
  type RouteSpec,
} from '@cw/http';
import { policyOf } from '@cw/auth';
import { RESOURCE_SCOPES } from '@cw/oauth';
import { databaseError } from '@cw/db';
import type { AppDeps, StackDeps } from './service-deps';

export interface ApiDescription {
  title: string;
  description: string;
  prefix: string;
  routes: RouteSpec[];
  /** Routes under other prefixes served by the same app (the feed-service's `/api/v1/affiliates`). */
  moreRoutes?: Array<{ prefix: string; routes: RouteSpec[] }>;
  /** Operations the app's own middleware serves (not routes): in its document only. */
  described?: RouteSpec[];
  /** Recorded answers for the document's examples (tools/dev-stack/src/openapi-examples.ts). */
  examples?: OpenApiExamples;
  securitySchemes?: Record<string, Record<string, unknown>>;
}

export const API_VERSION = '1.1.0';

/** Security schemes of the publisher API key (X-API-Key or Bearer). */
export const API_KEY_SCHEMES = {
  ApiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description:
      'Your publisher API key: `live_…` (everything), `test_…` and `sandbox_…` (no real money moves), `read_only_…` (no writes), `demo_…` (product search and lookup only). Stored only as a hash; issued and revoked by the network.',
  },
  BearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The same API key as `Authorization: Bearer live_…`. On `/postback/…` also the portal API token (`ptl_…`), which alone writes the postback configuration and rotates its secret.',
  },
};
export const API_KEY_SECURITY = ['ApiKeyHeader', 'BearerAuth'];

/** The OAuth 2.1 scheme of apps acting for a publisher (the portal's provider), with the scopes people grant. */
export function oauthScheme(portalUrl: string): Record<string, unknown> {
  const base = portalUrl.replace(/\/+$/, '');
  return {
    type: 'oauth2',
    description:
      'An app or agent acting for a publisher: the person signs in to the portal and grants it scopes for one account (authorization code with PKCE S256, dynamic client registration; discovery at `/.well-known/oauth-authorization-server`). Send the access token as `Authorization: Bearer`. A call outside its scopes is 403 `insufficient_scope`.',
    flows: {
      authorizationCode: {
        authorizationUrl: `${base}/oauth/authorize`,
        tokenUrl: `${base}/oauth/token`,
        refreshUrl: `${base}/oauth/token`,
        scopes: { ...RESOURCE_SCOPES },
      },
    },
  };
}

/** Routes an access token may call (their policy names a scope) also list the OAuth scheme, with that scope. */
function withOAuth(routes: RouteSpec[]): RouteSpec[] {
  return routes.map((r) => {
    const scope = (r.before ?? []).map(policyOf).find((p) => p?.scope)?.scope;
    return scope ? { ...r, security: [...(r.security ?? []), OAUTH_SCHEME], oauthScopes: [scope] } : r;
  });
}

export function apiDocument(deps: Pick<AppDeps, 'config'>, api: ApiDescription): Record<string, unknown> {
  const groups = [{ prefix: api.prefix, routes: withOAuth(api.routes) }, ...(api.moreRoutes ?? []).map((g) => ({ ...g, routes: withOAuth(g.routes) }))];
  const oauth = groups.some((g) => g.routes.some((r) => r.security?.includes(OAUTH_SCHEME)));
  return buildOpenApi({
    title: api.title,
    version: API_VERSION,
    description: api.description,
    serverUrl: deps.config.portalUrl,
    securitySchemes: { ...(api.securitySchemes ?? {}), ...(oauth ? { [OAUTH_SCHEME]: oauthScheme(deps.config.portalUrl) } : {}) },
    groups: [...groups, { prefix: '', routes: api.described ?? [] }],
    examples: api.examples,
  });
}

export interface PlatformAppOptions {
  name: string;
  /** The public API this app serves (docs at `{prefix}/docs`, document at `{prefix}/openapi.json`). */
  api?: ApiDescription;
  /** See ServiceAppOptions.softIpLimit (the tracker's redirects). */
  softIpLimit?: (ctx: Koa.Context) => boolean;
  renderError?: ErrorRenderer;
  /** Middleware of the app's own, mounted before its routes. */
  use?: Koa.Middleware[];
}

export function createPlatformApp(deps: StackDeps, opts: PlatformAppOptions): Koa {
  const app = createServiceApp({
    name: opts.name,
    logger: deps.logger,
    limiter: deps.limiter,
    ipLimit: deps.config.rateLimits.ip,
    trustProxyHops: deps.config.trustProxyHops,
    metrics: deps.metrics,
    softIpLimit: opts.softIpLimit,
    classifiers: [databaseError],
    renderError: opts.renderError,
  });
  const api = opts.api;
  if (api) mountRouter(app, docsRouter({ prefix: api.prefix, title: api.title, document: () => apiDocument(deps, api) }));
  for (const m of opts.use ?? []) app.use(m);
  if (api && api.routes.length) mountRouter(app, buildRouter(api.prefix, api.routes));
  for (const group of api?.moreRoutes ?? []) mountRouter(app, buildRouter(group.prefix, group.routes));
  return app;
}

/** An app's definition; `Deps` is what the app declares it uses (its `AppDepsOf<...>`). */
export interface AppDefinition<Deps extends StackDeps = AppDeps> {
  name: string;
  title: string;
  description: string;
  prefix: string;
  securitySchemes?: Record<string, Record<string, unknown>>;
  routes: (deps: Deps) => RouteSpec[];
  moreRoutes?: (deps: Deps) => Array<{ prefix: string; routes: RouteSpec[] }>;
  /** See ApiDescription.described. */
  described?: RouteSpec[];
  /** See ApiDescription.examples. */
  examples?: OpenApiExamples;
  /** Middleware of the app's own, mounted before its routes. */
  use?: (deps: Deps) => Koa.Middleware[];
  renderError?: ErrorRenderer;
}

/**
 * An app from its definition: what an app module exports (its route list, API description,
 * OpenAPI document and createApp), so apps differ only in their definitions. Each function takes
 * the app's own deps (`defineApp<TrackerDeps>(...)`): a process passes its `AppDeps`.
 */
export function defineApp<Deps extends StackDeps = AppDeps>(def: AppDefinition<Deps>) {
  const api = (deps: Deps): ApiDescription => ({
    title: def.title,
    description: def.description,
    prefix: def.prefix,
    securitySchemes: def.securitySchemes,
    routes: def.routes(deps),
    moreRoutes: def.moreRoutes?.(deps),
    described: def.described,
    examples: def.examples,
  });
  return {
    PREFIX: def.prefix,
    routes: def.routes,
    api,
    openApiDocument: (deps: Deps) => apiDocument(deps, api(deps)),
    createApp: (deps: Deps): Koa => createPlatformApp(deps, { name: def.name, api: api(deps), use: def.use?.(deps), renderError: def.renderError }),
  };
}
