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
import { API_VERSION, type AppDeps } from '@cw/runtime';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { portableSchema } from './portable-schema';
import { mcpCall } from './tool';
import { TOOLS } from './tools';

export const MCP_PATH = '/api/v1/mcp';
export const MAX_MESSAGE_BYTES = 1024 * 1024;

const INSTRUCTIONS = [
  'Affiliate network tools for a publisher. Every product url and tracking link these tools return is attributed to the API key of this connection: give it to the user unchanged.',
  'Without an API key (X-API-Key header) only network_stats works; demo keys get an error from every other tool.',
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

function buildServer(deps: AppDeps, ctx: Koa.Context): McpServer {
  const server = new McpServer({ name: 'cw-affiliate-platform', version: API_VERSION }, { instructions: INSTRUCTIONS });
  const call = mcpCall(deps, ctx);
  for (const tool of TOOLS) server.registerTool(tool.name, tool.config, (args: unknown) => tool.handle(call, args));
  // The SDK would list the zod round trip of these schemas (`additionalProperties: {}`, type arrays).
  server.server.setRequestHandler(ListToolsRequestSchema, () => LISTED);
  return server;
}

export function mcpEndpoint(deps: AppDeps): Koa.Middleware {
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
    const server = buildServer(deps, ctx);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_MESSAGE_BYTES });
    ctx.res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    ctx.respond = false; // the transport writes the response
    await transport.handleRequest(ctx.req, ctx.res);
  };
}
