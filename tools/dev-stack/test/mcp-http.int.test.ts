/**
 * MCP and the HTTP API are one platform: an agent cannot double its budget by switching protocol
 * (both spend the account's budget in the same Redis limiter), and an idempotency key used over
 * one replays over the other. Both apps listen on real ports; the MCP side is the SDK's client.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createTestDeps, type TestDeps, handlerServer } from '@cw-tools/testing';
import { createApp as mcpServer } from '@cw/app-mcp-server';
import { createApp as publisherApi } from '@cw/app-publisher-api';

let deps: TestDeps;
const servers: http.Server[] = [];
let mcpUrl: string;
let apiUrl: string;
let client: Client;

async function listen(app: Koa): Promise<string> {
  const server = handlerServer(app.callback());
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  deps = await createTestDeps({
    seedProducts: 20,
    redis: true,
    env: { RATELIMIT_PRODUCTS_PER_MIN: '4', RATELIMIT_LINKS_PER_MIN: '1000', RATELIMIT_IP_PER_MIN: '100000' },
  });
  mcpUrl = `${await listen(mcpServer(deps))}/api/v1/mcp/`;
  apiUrl = `${await listen(publisherApi(deps))}/api/v1/publisher`;
  client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { 'X-API-Key': deps.demo!.publishers[0].keys.live } } }));
});
afterAll(async () => {
  await client?.close();
  await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
  await deps?.close();
});

const key = () => deps.demo!.publishers[0].keys.live;
const api = (path: string, init: RequestInit = {}) =>
  fetch(`${apiUrl}${path}`, { ...init, headers: { 'X-API-Key': key(), 'Content-Type': 'application/json', ...(init.headers ?? {}) } });
const tool = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

describe('one platform over two protocols', () => {
  it('shares the products budget: two HTTP searches and two MCP searches spend it, then both refuse', async () => {
    expect((await api('/products/?country=DE')).status).toBe(200);
    expect((await tool('search_products', { country: 'DE' })).isError).toBeFalsy();
    expect((await api('/products/?country=DE')).status).toBe(200);
    const last = await tool('search_products', { country: 'DE' });
    expect(last.isError).toBeFalsy();
    const refusedMcp = await tool('search_products', { country: 'DE' });
    expect(refusedMcp.isError).toBe(true);
    expect((refusedMcp._meta as { error: { code: string; retry_after: number } }).error).toMatchObject({
      code: 'rate_limited',
      retry_after: expect.any(Number),
    });
    const refusedHttp = await api('/products/?country=DE');
    expect(refusedHttp.status).toBe(429);
    expect(refusedHttp.headers.get('RateLimit-Remaining')).toBe('0');
  });

  it('replays over MCP the link an idempotency key created over HTTP, and refuses another body under it', async () => {
    const body = { program_id: deps.demo!.fixtures.approved_program_id, subid: 'cross-protocol' };
    const created = await api('/links/', { method: 'POST', body: JSON.stringify(body), headers: { 'Idempotency-Key': 'shared-key-1' } });
    expect(created.status).toBe(201);
    const link = await created.json();
    const replay = await tool('create_tracking_link', { ...body, idempotency_key: 'shared-key-1' });
    expect(replay.structuredContent).toEqual(link);
    expect((replay.content as Array<{ text: string }>)[0].text).toMatch(/^Replayed/);
    const reused = await tool('create_tracking_link', { ...body, subid: 'another', idempotency_key: 'shared-key-1' });
    expect((reused._meta as { error: { code: string } }).error.code).toBe('idempotency_key_reused');
  });
});
