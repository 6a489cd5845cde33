/**
 * Routes as data: each RouteSpec carries its ajv schemas, which both validate requests and feed
 * the service's OpenAPI document, so the contract and the code cannot drift apart.
 */
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { serializerFor, type Serializer } from '@cw/usecase';
import { bodyValidator, queryValidator, type JsonSchema } from '@cw/validation';
import { jsonBody } from './body.middleware';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ResponseSpec {
  description: string;
  schema?: JsonSchema;
  /** The body's media type (default application/json). */
  contentType?: string;
  /** Other media types this answer can have (a parameter picks one, e.g. format=csv), each with its schema. */
  alternatives?: Record<string, JsonSchema>;
}

export interface RouteSpec {
  method: HttpMethod;
  /** Relative to the router prefix, koa style (`/requests/:id`), no trailing slash. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  /** Names of security schemes from the OpenAPI document; empty for public routes. */
  security?: string[];
  /** The scopes an OAuth access token needs here (the requirement of an `oauth2` scheme named in `security`). */
  oauthScopes?: string[];
  query?: JsonSchema;
  body?: JsonSchema;
  pathParams?: Record<string, JsonSchema>;
  responses: Record<number, ResponseSpec>;
  /** OpenAPI specification extensions (`x-…`) of the operation. */
  extensions?: Record<`x-${string}`, unknown>;
  /** Run before validation (authentication, rate limits). */
  before?: Middleware[];
  handler: (ctx: Context, input: { query: Record<string, unknown>; body: Record<string, unknown> }) => unknown | Promise<unknown>;
}

type NoInput = { readonly type: 'object'; readonly additionalProperties: false; readonly properties: Record<string, never> };

export type TypedRouteSpec<Q extends JSONSchema, B extends JSONSchema> = Omit<RouteSpec, 'query' | 'body' | 'handler'> & {
  query?: Q;
  body?: B;
  handler: (ctx: Context, input: NoInfer<{ query: FromSchema<Q>; body: FromSchema<B> }>) => unknown | Promise<unknown>;
};

/**
 * A route whose handler receives its query and body typed from their schemas (after validation,
 * defaults applied), so handlers pass input to use cases without casts.
 */
export function route<Q extends JSONSchema = NoInput, B extends JSONSchema = NoInput>(spec: TypedRouteSpec<Q, B>): RouteSpec {
  return spec as unknown as RouteSpec;
}

/**
 * The serializer of each JSON answer a route documents with a schema, by status: compiled once per
 * schema and shared with every other surface answering with that schema (the MCP tool over the
 * same use case). docs/decisions/0044-one-serializer-per-response.md
 */
export function responseSerializers(r: Pick<RouteSpec, 'responses'>): Map<number, Serializer> {
  const serializers = new Map<number, Serializer>();
  for (const [status, spec] of Object.entries(r.responses)) {
    const type = spec.contentType ?? 'application/json';
    if (spec.schema && (type === 'application/json' || type.endsWith('+json'))) serializers.set(Number(status), serializerFor(spec.schema));
  }
  return serializers;
}

/** Whether a handler's body is a value still to be written as JSON (not bytes, text or a stream already). */
function unwritten(body: unknown): body is object {
  return body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function';
}

/**
 * Registers routes on a router (query/body validated first) and answers 405 for other methods.
 * A body is read only once a route matched, so a wrong method is 405 and an unknown path 404,
 * whatever the body. A JSON answer whose status has a schema is written by that schema's
 * serializer (`responseSerializers`); bytes a handler sets are sent as they are.
 */
export function buildRouter(prefix: string, routes: RouteSpec[]): Router {
  const router = new Router({ prefix: prefix || undefined });
  for (const r of routes) {
    const validateQuery = queryValidator(r.query ?? { properties: {} });
    const validateBody = r.body ? bodyValidator(r.body) : undefined;
    const serializers = responseSerializers(r);
    const handler: Middleware = async (ctx) => {
      const query = validateQuery(ctx.query as Record<string, string | string[]>);
      const body = validateBody ? validateBody((ctx.request as { body?: unknown }).body) : {};
      await r.handler(ctx, { query, body: body as Record<string, unknown> });
      const serialize = serializers.get(ctx.status);
      if (serialize && unwritten(ctx.body) && ctx.response.is('json')) {
        ctx.body = serialize(ctx.body); // the media type set with the value stays
      }
    };
    const reads = r.method === 'POST' || r.method === 'PUT' || r.method === 'PATCH' ? [jsonBody] : [];
    router.register(r.path === '' ? '/' : r.path, [r.method], [...reads, ...(r.before ?? []), handler], { name: r.operationId });
  }
  return router;
}

export function mountRouter(app: { use: (m: Middleware) => unknown }, router: Router): void {
  app.use(router.routes() as unknown as Middleware);
  // Sets 405 (or 501) with an Allow header; the error middleware renders the error body.
  app.use(router.allowedMethods() as unknown as Middleware);
}
