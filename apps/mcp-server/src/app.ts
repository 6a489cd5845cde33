import { defineApp } from '@cw/runtime';
import { mcpEndpoint } from './mcp-endpoint';

/** MCP for agents at /api/v1/mcp/ (JSON-RPC over Streamable HTTP; see mcp-endpoint.ts). */
export const { PREFIX, routes, api, openApiDocument, createApp } = defineApp({
  name: 'mcp-server',
  title: 'MCP',
  description: 'Model Context Protocol endpoint (Streamable HTTP, stateless) for AI agents: POST JSON-RPC messages to /api/v1/mcp/.',
  prefix: '/api/v1/mcp',
  routes: () => [],
  use: (deps) => [mcpEndpoint(deps)],
});
