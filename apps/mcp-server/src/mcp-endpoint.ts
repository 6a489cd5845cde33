/**
 * The MCP endpoint: Streamable HTTP, stateless (a server and a transport per request, no session,
 * so any instance behind a load balancer answers any request), JSON responses (no tool streams).
 * POST carries the JSON-RPC messages; GET (a server-sent event stream) and DELETE (ending a
 * session) have no meaning without sessions and answer 405 with a JSON-RPC error, as the SDK's
 * stateless mode expects. The SDK reads the body itself (at most 1 MiB: 413 beyond) and answers
 * malformed JSON-RPC with its own errors.
 */
import type Koa from 'koa';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { API_VERSION } from '@cw/runtime';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { portableSchema } from './portable-schema';
import getRawBody from 'raw-body';
import { ApiError } from '@cw/errors';
import { mcpCall, type McpCall } from './tool';
import { TOOLS } from './tools';
import type { McpServerDeps } from './deps';

export const MCP_PATH = '/api/v1/mcp';
export const MAX_MESSAGE_BYTES = 1024 * 1024;

const INSTRUCTIONS = [
  'Affiliate network tools for a publisher. Every product url and tracking link these tools return is attributed to the API key of this connection: give it to the user unchanged.',
  'Without a credential (an OAuth access token, or the API key in X-API-Key) only network_stats works; demo keys get an error from every other tool.',
  'Typical flow: network_stats (which markets), list_programs (what you may promote; apply_to_program to join), search_products or create_tracking_link (links), then list_clicks, list_conversions, get_report and get_payment_status (results); list_events with its next_cursor for what changed since you last looked.',
  'Errors come back as tool results with isError, the API error code and a detail; rate_limited means wait retry_after seconds.',
].join(' ');

const isMcpPath = (ctx: Koa.Context) => ctx.path === MCP_PATH || ctx.path === `${MCP_PATH}/`;

/** tools/list as every client can read it: each tool's own JSON schemas, made portable (portable-schema.ts). */
const LISTED = {
  tools: TOOLS.map((t) => ({
    name: t.name,
    title: t.config.title,
    description: t.config.description,
    inputSchema: portableSchema(t.schemas.input) as { type: 'object' },
    outputSchema: portableSchema(t.schemas.output) as { type: 'object' },
    annotations: t.config.annotations,
  })),
};

function buildServer(deps: McpServerDeps, call: McpCall): McpServer {
  const server = new McpServer({ name: 'cw-affiliate-platform', version: API_VERSION }, { instructions: INSTRUCTIONS });
  for (const tool of TOOLS) server.registerTool(tool.name, tool.config, (args: unknown) => tool.handle(call, args));
  // The SDK would list the zod round trip of these schemas (`additionalProperties: {}`, type arrays).
  server.server.setRequestHandler(ListToolsRequestSchema, () => LISTED);
  return server;
}

export function mcpEndpoint(deps: McpServerDeps): Koa.Middleware {
  return async (ctx, next) => {
    if (!isMcpPath(ctx)) return next();
    if (ctx.method !== 'POST') {
      ctx.status = 405;
      ctx.set('Allow', 'POST');
      ctx.body = {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST.' },
        id: null,
      };
      return;
    }
    // The messages are read here (as the SDK would: at most 1 MiB, JSON) so that a call of a tool
    // that needs the account is authenticated before any JSON-RPC is answered: a missing, expired or
    // revoked credential is HTTP 401 with its WWW-Authenticate challenge (an MCP client starts or
    // refreshes its OAuth there), a token without the tool's scope HTTP 403 insufficient_scope.
    let raw: string;
    try {
      raw = await getRawBody(ctx.req, { limit: MAX_MESSAGE_BYTES, encoding: 'utf8' });
    } catch {
      // The rest of the body is not read: this connection cannot carry another request.
      ctx.set('Connection', 'close');
      return rpcFailure(ctx, 413, -32000, `Payload too large: the body is over ${MAX_MESSAGE_BYTES} bytes.`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return rpcFailure(ctx, 400, -32700, 'Parse error: Invalid JSON');
    }
    const call = mcpCall(deps, ctx);
    const refused = await refusedCredential(call, parsed);
    if (refused) {
      ctx.status = refused.status;
      ctx.set(refused.headers);
      ctx.body = { jsonrpc: '2.0', error: { code: -32001, message: `${refused.code}: ${refused.detail}` }, id: rpcId(parsed) };
      return;
    }
    const server = buildServer(deps, call);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_MESSAGE_BYTES });
    ctx.res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    ctx.respond = false; // the transport writes the response
    await transport.handleRequest(ctx.req, ctx.res, parsed);
  };
}

function rpcFailure(ctx: Koa.Context, status: number, code: number, message: string): void {
  ctx.status = status;
  ctx.body = { jsonrpc: '2.0', error: { code, message }, id: null };
}

const rpcId = (parsed: unknown): string | number | null => {
  const id = (Array.isArray(parsed) ? parsed[0] : parsed) as { id?: unknown } | null;
  return typeof id?.id === 'string' || typeof id?.id === 'number' ? id.id : null;
};

const POLICIES = new Map(TOOLS.map((t) => [t.name, t.policy]));

/** The refusal of the credential, when a message calls a tool that needs the account and the credential cannot (401, or 403 insufficient_scope). */
async function refusedCredential(call: McpCall, parsed: unknown): Promise<ApiError | undefined> {
  for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
    const message = m as { method?: unknown; params?: { name?: unknown } } | null;
    if (message?.method !== 'tools/call' || typeof message.params?.name !== 'string') continue;
    const policy = POLICIES.get(message.params.name);
    if (!policy) continue;
    try {
      await call.principal(policy);
    } catch (e) {
      if (e instanceof ApiError && (e.status === 401 || e.code === 'insufficient_scope')) return e;
    }
  }
  return undefined;
}
