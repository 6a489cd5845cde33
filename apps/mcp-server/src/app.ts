import { defineApp } from '@cw/runtime';

/** MCP: routes are added by the issues that build this surface. */
export const { PREFIX, routes, api, openApiDocument, createApp } = defineApp({
  name: 'mcp-server',
  title: 'MCP',
  description: 'Model Context Protocol endpoint (Streamable HTTP) for AI agents.',
  prefix: '/api/v1/mcp',
  routes: () => [],
});
