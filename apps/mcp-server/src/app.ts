import { defineApp, gettingStarted } from '@cw/runtime';
import { mcpEndpoint } from './mcp-endpoint';
import type { McpServerDeps } from './deps';

/** MCP for agents at /api/v1/mcp/ (JSON-RPC over Streamable HTTP; see mcp-endpoint.ts). */
export const { PREFIX, routes, api, openApiDocument, createApp } = defineApp<McpServerDeps>({
  name: 'mcp-server',
  title: 'MCP',
  description: gettingStarted({
    intro:
      "The Model Context Protocol for AI agents: POST JSON-RPC messages to `/api/v1/mcp/` (Streamable HTTP, stateless, JSON answers). Tools: `network_stats` (no key), and with a key `search_products`, `lookup_products`, `list_programs`, `apply_to_program`, `create_tracking_link`, `list_links`, `list_conversions`, `list_events`, `get_report`, `list_clicks`, `get_payment_status`, with the HTTP API's rules and rate budgets.",
    authentication:
      'OAuth 2.1, as the MCP authorization spec says: connect with the one URL `{portal_url}/api/v1/mcp`; a tool that needs the account answers HTTP 401 with `WWW-Authenticate: Bearer resource_metadata=".../.well-known/oauth-protected-resource/api/v1/mcp"`, the client registers with the portal, the person signs in and grants scopes there, and the access token (`Authorization: Bearer`) acts for that account within its scopes (a tool outside them: 403 `insufficient_scope`). Or your publisher API key as `X-API-Key` (or Bearer). Without a credential only `network_stats` answers; a demo key gets an error result from every other tool.',
    firstRequest:
      'curl -s http://127.0.0.1:8080/api/v1/mcp/ -H "X-API-Key: $KEY" -H "Content-Type: application/json" -H "Accept: application/json, text/event-stream" \\\n  -d \'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}\'',
    more: ['An MCP client (Cursor, VS Code, Claude Desktop through `mcp-remote`, the MCP Inspector) does this for you: see the README.'],
  }),
  prefix: '/api/v1/mcp',
  routes: () => [],
  use: (deps) => [mcpEndpoint(deps)],
});
