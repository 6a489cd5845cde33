/**
 * What an MCP tool is here: a name, a description that tells an agent when to use it and how to
 * page, a zod input schema (derived from the use case's own JSON schema, so MCP and HTTP accept
 * exactly the same input), a zod output schema, the HTTP route's policy (absent: public) and a
 * `run` that calls the same use case the route calls.
 *
 * Every call is authorized on its own (the key is verified again, so a revoked key or a
 * deactivated account is refused on the next call), demo keys are refused whatever the route
 * allows (the spec: "the MCP catalog tools answer 403"), and the route's budget is spent for the
 * account (one budget across HTTP and MCP). Failures become MCP error results carrying the
 * API's code and detail.
 */
import type Koa from 'koa';
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callerUnder, presentedSecret, type Policy, type Principal } from '@cw/auth';
import { databaseError } from '@cw/db';
import { ApiError, errorBody, type ErrorCode, type ParamError } from '@cw/errors';
import { MAX_KEY_LENGTH, runIdempotent } from '@cw/idempotency';
import { resourceMetadataUrl } from '@cw/runtime';
import { serializerFor, type JSONSchema } from '@cw/usecase';
import { bodyValidator } from '@cw/validation';
import type { McpServerDeps } from './deps';

/** One HTTP request to the endpoint: its headers carry the credential. */
export interface McpCall {
  deps: McpServerDeps;
  ctx: Koa.Context;
  /** The caller under `policy` (verified, authorized, budget spent), or the error to answer. */
  principal(policy: Policy): Promise<Principal>;
}

export interface ToolResult {
  /** The same view the HTTP route answers (sent as `structuredContent`, as written by the output schema's serializer). */
  data: object;
  /** One or two sentences for the model: what came back and how to get more. */
  summary: string;
  /**
   * The bytes `data` was parsed from, when the use case answers bytes (the product pages, as the
   * page cache keeps them): sent as they are, not written again.
   */
  json?: string;
}

interface ToolBase {
  name: string;
  title: string;
  description: string;
  /** The use case's input JSON schema (plus MCP-only members such as `idempotency_key`); `In` is its InputOf. */
  input: JSONSchema;
  /** The HTTP route's response schema (the lib's), so both surfaces promise one shape. */
  output: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; idempotentHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean };
}

/** A tool with the HTTP route's policy, or a public one (`policy: null`, no credential). */
export type ToolDefinition<In> = ToolBase &
  (
    | { policy: Policy; run(input: In, principal: Principal, call: McpCall): Promise<ToolResult> }
    | { policy: null; run(input: In, principal: null, call: McpCall): Promise<ToolResult> }
  );

export interface Tool {
  name: string;
  /** The JSON schemas the zod ones are derived from (what tools/list shows, made portable). */
  schemas: { input: Record<string, unknown>; output: Record<string, unknown> };
  config: {
    title: string;
    description: string;
    inputSchema: z.ZodType;
    outputSchema: z.ZodType;
    annotations?: ToolBase['annotations'];
  };
  handle(call: McpCall, args: unknown): Promise<CallToolResult>;
  /** The HTTP route's policy; null: public (no credential). */
  policy: Policy | null;
}

/** An MCP error result: the API's code and detail as text, and as `_meta` for programs. */
export function errorResult(err: ApiError): CallToolResult {
  const retryAfter = err.headers['Retry-After'];
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: `${err.code} (${err.status}): ${err.detail}${err.errors?.length ? ` ${err.errors.map((e) => `${e.param} ${e.detail}`).join('; ')}` : ''}`,
      },
    ],
    _meta: {
      error: {
        code: err.code,
        status: err.status,
        detail: err.detail,
        ...(err.errors ? { errors: err.errors } : {}),
        ...(retryAfter ? { retry_after: Number(retryAfter) } : {}),
      },
    },
  };
}

export function defineTool<In>(def: ToolDefinition<In>): Tool {
  // zod schemas for the SDK (tools/list, its own argument check), derived from the JSON schemas the
  // HTTP routes validate with; ajv then applies the very same rules and defaults as the route.
  const validate = bodyValidator<In>(def.input as Record<string, unknown>);
  // The HTTP route's serializer (one per response schema): both surfaces write the same bytes.
  // docs/decisions/0044-one-serializer-per-response.md
  const serialize = serializerFor(def.output);
  return {
    name: def.name,
    policy: def.policy,
    schemas: { input: def.input as Record<string, unknown>, output: def.output },
    config: {
      title: def.title,
      description: def.description,
      inputSchema: z.fromJSONSchema(def.input as never),
      outputSchema: z.fromJSONSchema(def.output as never),
      annotations: def.annotations,
    },
    async handle(call, args) {
      try {
        // As over HTTP: who is calling (and their budget) first, then the input.
        let result: ToolResult;
        if (def.policy === null) result = await def.run(validate(args ?? {}), null, call);
        else {
          const principal = await call.principal(def.policy);
          result = await def.run(validate(args ?? {}), principal, call);
        }
        const { summary } = result;
        const json = result.json ?? serialize(result.data);
        const structuredContent = (result.json === undefined ? JSON.parse(json) : result.data) as Record<string, unknown>;
        // The summary for the model, then the answer's JSON (MCP: structured content also as text).
        return {
          content: [
            { type: 'text', text: summary },
            { type: 'text', text: json },
          ],
          structuredContent,
        };
      } catch (err) {
        const apiError = err instanceof ApiError ? err : databaseError(err);
        if (apiError) return errorResult(apiError);
        call.ctx.state.log?.error(
          { err: err instanceof Error ? err.message : String(err), tool: def.name, request_id: call.ctx.state.requestId },
          'mcp tool failed',
        );
        return errorResult(new ApiError({ code: 'internal_error', detail: `The tool failed unexpectedly; request id ${call.ctx.state.requestId}.` }));
      }
    },
  };
}

/**
 * The per-request call: the API key (X-API-Key, or Bearer) or an app's OAuth access token for the
 * MCP resource (Bearer), verified once per policy in the request (the endpoint checks it before the
 * JSON-RPC is handled, so a missing or refused credential is an HTTP 401 an MCP client acts on).
 */
export function mcpCall(deps: McpServerDeps, ctx: Koa.Context): McpCall {
  const asked = new Map<Policy, Promise<Principal>>();
  const resourceDeps = { ...deps, resource: 'mcp' as const };
  return {
    deps,
    ctx,
    principal(policy) {
      let p = asked.get(policy);
      if (!p) {
        const secret = presentedSecret(ctx, { apiKeyHeader: true });
        p = secret
          ? // The route's budget, keyed by account: an agent cannot double it by switching protocol.
            callerUnder(resourceDeps, ctx, secret, ['api_key'], policy, { refuseDemo: true })
          : Promise.reject(
              new ApiError({
                code: 'not_authenticated',
                detail:
                  'This tool needs the account: connect with OAuth (the MCP authorization flow starts from this answer) or send your API key in the X-API-Key header. Without either only network_stats works.',
                headers: { 'WWW-Authenticate': `Bearer resource_metadata="${resourceMetadataUrl(deps.config.portalUrl, 'mcp')}"` },
              }),
            );
        p.catch(() => undefined);
        asked.set(policy, p);
      }
      return p;
    },
  };
}

/** The `idempotency_key` argument of the write tools: the Idempotency-Key header's rule. */
export const IDEMPOTENCY_KEY_INPUT = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_KEY_LENGTH,
  pattern: '^[\\x21-\\x7e]+$',
  description:
    'Optional. The same key with the same arguments returns the first answer again (24 h) instead of acting twice; shared with the HTTP Idempotency-Key of the same route.',
} as const;

/**
 * Runs a write at most once per key, in the HTTP route's idempotency scope (same method and
 * route), so a key replays across HTTP and MCP. The stored answer is the HTTP body; a stored 4xx
 * comes back as the same error.
 */
export async function idempotently<V>(
  call: McpCall,
  principal: Principal,
  scope: { route: string; key: string | undefined; request: unknown },
  run: () => Promise<{ status: number; view: V }>,
): Promise<{ view: V; status: number; replayed: boolean }> {
  if (scope.key === undefined) return { ...(await run()), replayed: false };
  const [method = ''] = scope.route.split(' ');
  const stored = await runIdempotent(
    { data: call.deps.data.idempotency, account: principal.publisher._id, method, route: scope.route, key: scope.key, request: scope.request },
    async () => {
      try {
        const { status, view } = await run();
        return { status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(view) };
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        return {
          status: err.status,
          contentType: 'application/json; charset=utf-8',
          body: JSON.stringify(errorBody(err, call.ctx.state.requestId ?? 'unknown')),
        };
      }
    },
  );
  if (!stored) throw new ApiError({ code: 'internal_error', detail: 'The write failed; retry with the same idempotency_key.' });
  const body = JSON.parse(stored.body) as V & { code?: ErrorCode; detail?: string; errors?: ParamError[] };
  if (stored.status >= 400) throw new ApiError({ code: body.code ?? 'conflict', detail: body.detail ?? 'Stored error.', errors: body.errors });
  return { view: body, status: stored.status, replayed: stored.replayed };
}
