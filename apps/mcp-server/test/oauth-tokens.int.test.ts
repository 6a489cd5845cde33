/**
 * MCP as an OAuth resource server: an app's access token for the MCP resource calls the tools its
 * scopes cover (through the SDK's own client, as an agent does); a tool outside them is HTTP 403
 * insufficient_scope with the challenge naming the scope (the MCP spec's step-up); a token for the
 * publisher API, or one whose grant was revoked, is HTTP 401 with the challenge an MCP client acts on.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { accessToken, createTestDeps, handlerServer, storeGrant, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let server: http.Server;
let url: string;
let account: string;
let owner: string;
const clients: Client[] = [];

beforeAll(async () => {
  deps = await createTestDeps({
    seedProducts: 40,
    env: { RATELIMIT_PRODUCTS_PER_MIN: '100000', RATELIMIT_ACCOUNT_PER_MIN: '100000', RATELIMIT_IP_PER_MIN: '100000' },
  });
  server = handlerServer(createApp(deps).callback());
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/mcp/`;
  account = deps.demo!.publishers[0]!.account_id;
  owner = String((await deps.models.User.findOne({ email: deps.demo!.publishers[0]!.portal_login.email }).lean())!._id);
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await new Promise((ok) => server?.close(ok));
  await deps?.close();
});

async function tokenFor(scopes: string, resource: 'mcp' | 'publisherApi' = 'mcp'): Promise<{ token: string; grantId: string }> {
  const grantId = await storeGrant(deps, { personId: owner, accountId: account, scopes, resource });
  return { grantId, token: await accessToken(deps, { personId: owner, accountId: account, grantId, scopes, resource }) };
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'mcp-oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

const rpc = (token: string, name: string, args: Record<string, unknown> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });

const metadata = () => `${new URL(deps.config.portalUrl).origin}/.well-known/oauth-protected-resource/api/v1/mcp`;

describe('MCP with access tokens', () => {
  it('calls the tools the scopes cover, as the granting account', async () => {
    const { token } = await tokenFor('catalog:read affiliate:read');
    const client = await connect(token);
    const found = (await client.callTool({ name: 'search_products', arguments: { country: 'DE', limit: 2 } })) as CallToolResult;
    expect(found.isError, JSON.stringify(found.content)).toBeFalsy();
    const status = (await client.callTool({ name: 'get_payment_status', arguments: {} })) as CallToolResult;
    expect(status.isError, JSON.stringify(status.content)).toBeFalsy();
    expect((status.structuredContent as { account_id: string }).account_id).toBe(account);
  });

  it('answers a tool outside the scopes with HTTP 403 insufficient_scope naming the scope it needs', async () => {
    const { token } = await tokenFor('catalog:read');
    const res = await rpc(token, 'get_payment_status');
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", scope="affiliate:read", resource_metadata="${metadata()}"`);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^insufficient_scope: /);
  });

  it('refuses a token for the publisher API with HTTP 401 invalid_token', async () => {
    const { token } = await tokenFor('catalog:read', 'publisherApi');
    const res = await rpc(token, 'search_products', { country: 'DE' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(
      new RegExp(`^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="${metadata()}"$`),
    );
  });

  it('refuses a token whose grant was revoked in the portal from the next call on', async () => {
    const { token, grantId } = await tokenFor('catalog:read');
    expect((await rpc(token, 'search_products', { country: 'DE' })).status).toBe(200);
    await deps.data.oauth.revokeGrant(grantId, account);
    expect((await rpc(token, 'search_products', { country: 'DE' })).status).toBe(401);
  });
});
