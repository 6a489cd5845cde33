import { ERROR_STATUS, type ErrorCode } from '@cw/errors';
import { codeSamples } from './code-samples';
import type { RouteSpec } from './routes';
import type { JsonSchema } from '@cw/validation';

export const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['detail', 'code', 'request_id'],
  properties: {
    detail: { type: 'string', description: 'Human-readable message.' },
    code: { type: 'string', description: 'Stable snake_case error code.' },
    request_id: { type: 'string', description: 'The X-Request-Id of the response.' },
    errors: {
      type: 'array',
      description: 'Per-parameter problems (400 validation errors).',
      items: { type: 'object', required: ['param', 'detail'], properties: { param: { type: 'string' }, detail: { type: 'string' } } },
    },
  },
};

const RATE_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'X-Request-Id'];

export interface OpenApiGroup {
  /** Path prefix under the server URL. */
  prefix: string;
  routes: RouteSpec[];
}

/** Recorded answers, per operation id, status and media type (tools/dev-stack records them from the demo data). */
export type OpenApiExamples = Record<string, Record<string, Record<string, unknown>>>;

/** The name of the OAuth 2.1 security scheme (apps acting for a publisher); its requirement lists the route's scopes. */
export const OAUTH_SCHEME = 'OAuth2';

export interface OpenApiOptions {
  title: string;
  version: string;
  description: string;
  serverUrl: string;
  securitySchemes: Record<string, JsonSchema>;
  groups: OpenApiGroup[];
  examples?: OpenApiExamples;
}

/**
 * Answers any request can meet before or around its route, so every operation declares them:
 * the server's limits (8 KiB targets, 16 KiB of headers), the rate limits and an unavailable
 * dependency; bodies add malformed JSON, size and media type.
 */
const EVERY_OPERATION: Record<number, string> = {
  400: 'invalid_parameter, unknown_parameter or repeated_parameter: a parameter is invalid, unknown or given twice (errors names each)',
  414: 'uri_too_long: the request target (path and query) is over 8 KiB; send long lists in several requests',
  429: 'rate_limited: over a rate budget (per address, or per account); Retry-After says when to retry',
  431: 'headers_too_large: the request headers are over 16 KiB',
  503: 'service_unavailable: a dependency (database, rate-limit store) is unavailable or over its time budget; retry later',
};
const WITH_BODY: Record<number, string> = {
  400: 'invalid_parameter, invalid_json or invalid_body: a parameter or the body is not what this operation takes (errors names each)',
  413: 'payload_too_large: the body is over 1 MiB',
  415: 'unsupported_media_type: the body must be application/json',
};

const NO_BODY = new Set([204, 304]);
const USUAL_CODE: Partial<Record<number, ErrorCode>> = {
  400: 'invalid_parameter',
  401: 'not_authenticated',
  403: 'credential_not_allowed',
  404: 'not_found',
  409: 'conflict',
  429: 'rate_limited',
  503: 'service_unavailable',
};

/** The error code a response's description names first (`code: …`), else the first code of its status. */
function errorCodeOf(status: number, description: string): ErrorCode {
  const named = /^([a-z_]+)[:,\s]/.exec(description)?.[1];
  if (named && named in ERROR_STATUS && ERROR_STATUS[named as ErrorCode] === status) return named as ErrorCode;
  return USUAL_CODE[status] ?? (Object.keys(ERROR_STATUS) as ErrorCode[]).find((c) => ERROR_STATUS[c] === status) ?? 'invalid_parameter';
}

/** An error answer as the server writes it, for the documents' examples. */
function errorExample(status: number, description: string): Record<string, unknown> {
  const code = errorCodeOf(status, description);
  const detail = description.replace(/^[a-z_]+(, [a-z_]+)*( or [a-z_]+)?: /, '');
  return {
    detail: `${detail.charAt(0).toUpperCase()}${detail.slice(1)}${detail.endsWith('.') ? '' : '.'}`,
    code,
    request_id: 'req_5f0c6e2b9d4a8c71e3a2b940',
    ...(status === 400 ? { errors: [{ param: 'page_size', detail: 'must be <= 500' }] } : {}),
  };
}

/** Query parameters as the server reads them: an empty value is refused for every one of them. */
function queryParameterSchema(schema: JsonSchema): JsonSchema {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (types.includes('string') && schema.minLength === undefined && !Array.isArray(schema.enum)) return { ...schema, minLength: 1 };
  return schema;
}

const EVERY_OPERATION_SPECS = Object.fromEntries(Object.entries(EVERY_OPERATION).map(([s, description]) => [s, { description }]));
const WITH_BODY_SPECS = Object.fromEntries(Object.entries(WITH_BODY).map(([s, description]) => [s, { description }]));

function toOpenApiPath(prefix: string, path: string): string {
  const full = `${prefix}${path}`.replace(/:([A-Za-z_]+)/g, '{$1}');
  return full.endsWith('/') ? full : `${full}/`;
}

/** An OpenAPI 3.1 document built from the same RouteSpecs that serve requests. */
export function buildOpenApi(opts: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const g of opts.groups) {
    for (const r of g.routes) {
      const p = toOpenApiPath(g.prefix, r.path);
      const parameters: unknown[] = [];
      for (const [name, schema] of Object.entries(r.pathParams ?? {}))
        parameters.push({ name, in: 'path', required: true, schema: queryParameterSchema(schema) });
      const qprops = (r.query?.properties ?? {}) as Record<string, JsonSchema>;
      const qreq = new Set((r.query?.required as string[] | undefined) ?? []);
      for (const [name, schema] of Object.entries(qprops)) {
        const { description, ...rest } = schema as { description?: string };
        parameters.push({ name, in: 'query', required: qreq.has(name), schema: queryParameterSchema(rest), ...(description ? { description } : {}) });
      }
      const declared: Record<number, { description: string; schema?: JsonSchema; contentType?: string; alternatives?: Record<string, JsonSchema> }> = {
        ...EVERY_OPERATION_SPECS,
        ...(r.body ? WITH_BODY_SPECS : {}),
        ...r.responses,
      };
      const recorded = opts.examples?.[r.operationId] ?? {};
      const responses: Record<string, unknown> = {};
      for (const [status, spec] of Object.entries(declared)) {
        const code = Number(status);
        const headers = Object.fromEntries(RATE_HEADERS.map((h) => [h, { schema: { type: 'string' } }]));
        if (NO_BODY.has(code)) {
          responses[status] = { description: spec.description, headers };
          continue;
        }
        const content: Record<string, unknown> = {};
        if (code >= 400) {
          content['application/json'] = { schema: { $ref: '#/components/schemas/Error' }, example: errorExample(code, spec.description) };
        } else {
          const types: Record<string, JsonSchema> = {
            [spec.contentType ?? 'application/json']: spec.schema ?? { type: 'object' },
            ...(spec.alternatives ?? {}),
          };
          for (const [type, schema] of Object.entries(types)) {
            const example = recorded[status]?.[type];
            content[type] = { schema, ...(example !== undefined ? { example } : {}) };
          }
        }
        responses[status] = { description: spec.description, headers, content };
      }
      (r.tags ?? []).forEach((t) => tags.add(t));
      paths[p] ??= {};
      const samples = codeSamples({ operationId: r.operationId, method: r.method, path: p, security: r.security ?? [], serverUrl: opts.serverUrl });
      paths[p][r.method.toLowerCase()] = {
        operationId: r.operationId,
        summary: r.summary,
        ...(r.description ? { description: r.description } : {}),
        tags: r.tags ?? [],
        security: (r.security ?? []).length ? (r.security ?? []).map((s) => ({ [s]: s === OAUTH_SCHEME ? (r.oauthScopes ?? []) : [] })) : [],
        parameters,
        ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: r.body } } } } : {}),
        responses,
        ...(samples ? { 'x-codeSamples': samples } : {}),
        ...(r.extensions ?? {}),
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: opts.title, version: opts.version, description: opts.description, license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } },
    servers: [{ url: opts.serverUrl }],
    tags: [...tags].map((name) => ({ name, description: `${name} endpoints` })),
    paths,
    components: { schemas: { Error: ERROR_SCHEMA }, securitySchemes: opts.securitySchemes },
  };
}
