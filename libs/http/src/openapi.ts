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

export interface OpenApiOptions {
  title: string;
  version: string;
  description: string;
  serverUrl: string;
  securitySchemes: Record<string, JsonSchema>;
  groups: OpenApiGroup[];
}

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
      for (const [name, schema] of Object.entries(r.pathParams ?? {})) parameters.push({ name, in: 'path', required: true, schema });
      const qprops = (r.query?.properties ?? {}) as Record<string, JsonSchema>;
      const qreq = new Set((r.query?.required as string[] | undefined) ?? []);
      for (const [name, schema] of Object.entries(qprops)) {
        const { description, ...rest } = schema as { description?: string };
        parameters.push({ name, in: 'query', required: qreq.has(name), schema: rest, ...(description ? { description } : {}) });
      }
      const responses: Record<string, unknown> = {};
      for (const [status, spec] of Object.entries(r.responses)) {
        const isError = Number(status) >= 400;
        const schema = isError ? { $ref: '#/components/schemas/Error' } : (spec.schema ?? { type: 'object' });
        responses[status] = {
          description: spec.description,
          headers: Object.fromEntries(RATE_HEADERS.map((h) => [h, { schema: { type: 'string' } }])),
          content: { [spec.contentType ?? 'application/json']: { schema } },
        };
      }
      (r.tags ?? []).forEach((t) => tags.add(t));
      paths[p] ??= {};
      paths[p][r.method.toLowerCase()] = {
        operationId: r.operationId,
        summary: r.summary,
        ...(r.description ? { description: r.description } : {}),
        tags: r.tags ?? [],
        security: (r.security ?? []).length ? (r.security ?? []).map((s) => ({ [s]: [] })) : [],
        parameters,
        ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: r.body } } } } : {}),
        responses,
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
