/**
 * The MCP endpoint through the official SDK client over real HTTP: the tool list, every tool's
 * happy path, the credential rules (no key, demo, read-only, revoked), idempotency, paging, and
 * what malformed or oversized JSON-RPC gets.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { issueCredential, revokeCredential } from '@cw/auth';
import { createTestDeps, schemaErrors, type TestDeps, handlerServer } from '@cw-tools/testing';
import { createApp } from '../src/app';
import { portabilityProblems } from '../src/portable-schema';

let deps: TestDeps;
let server: http.Server;
let url: string;
const clients: Client[] = [];

beforeAll(async () => {
  deps = await createTestDeps({
    seedProducts: 40,
    env: {
      RATELIMIT_PRODUCTS_PER_MIN: '100000',
      RATELIMIT_LINKS_PER_MIN: '100000',
      RATELIMIT_REPORTING_PER_MIN: '100000',
      RATELIMIT_PROGRAMS_PER_MIN: '100000',
      RATELIMIT_IP_PER_MIN: '100000',
    },
  });
  server = handlerServer(createApp(deps).callback());
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/mcp/`;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await new Promise((ok) => server?.close(ok));
  await deps?.close();
});

const keys = (i = 0) => deps.demo!.publishers[i].keys;

async function connect(key?: string): Promise<Client> {
  const client = new Client({ name: 'mcp-int-test', version: '1.0.0' });
  const headers: Record<string, string> = key ? { 'X-API-Key': key } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- structured content is checked field by field below
const data = <T = Record<string, any>>(r: CallToolResult) => {
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  return r.structuredContent as T;
};
const errorOf = (r: CallToolResult) => {
  expect(r.isError).toBe(true);
  return (r._meta as { error: { code: string; status: number; detail: string; retry_after?: number } }).error;
};

describe('MCP tools', () => {
  it('lists every tool with its input and output schema and a description that says how to page', async () => {
    const client = await connect(keys().live);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'network_stats',
      'search_products',
      'lookup_products',
      'list_programs',
      'apply_to_program',
      'create_tracking_link',
      'list_links',
      'list_conversions',
      'list_events',
      'get_report',
      'list_clicks',
      'get_payment_status',
      'list_balance_transactions',
      'list_payouts',
      'get_payout_statement',
      'file_inquiry',
      'list_inquiries',
      'list_codes',
      'request_code',
    ]);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
      expect(t.description!.length).toBeGreaterThan(80);
    }
    const search = tools.find((t) => t.name === 'search_products')!;
    expect(Object.keys(search.inputSchema.properties!)).toEqual(expect.arrayContaining(['q', 'country', 'limit', 'offset']));
    expect(search.description).toMatch(/next_offset/);
    for (const name of ['list_programs', 'list_links', 'list_conversions', 'list_clicks']) {
      const t = tools.find((x) => x.name === name)!;
      expect(t.description, name).toMatch(/next_cursor/);
      expect(Object.keys(t.inputSchema.properties!), name).toEqual(expect.arrayContaining(['page', 'page_size', 'cursor']));
    }
    expect(Object.keys(tools.find((t) => t.name === 'create_tracking_link')!.inputSchema.properties!)).toContain('idempotency_key');
  });

  it('lists schemas every client can read (no type arrays, nothing unconstrained) that still describe the answers', async () => {
    const client = await connect(keys().live);
    const { tools } = await client.listTools();
    for (const t of tools) {
      expect(portabilityProblems(t.inputSchema), `${t.name} input`).toEqual([]);
      expect(portabilityProblems(t.outputSchema), `${t.name} output`).toEqual([]);
    }
    const search = tools.find((t) => t.name === 'search_products')!;
    const answer = data(await call(client, 'search_products', { country: 'DE', limit: 3 }));
    expect(schemaErrors(search.outputSchema as Record<string, unknown>, answer)).toBeUndefined();
    const report = tools.find((t) => t.name === 'get_report')!;
    expect(schemaErrors(report.outputSchema as Record<string, unknown>, data(await call(client, 'get_report', { group_by: 'subid' })))).toBeUndefined();
  });

  it('answers public statistics without a key, and nothing else', async () => {
    const client = await connect();
    const stats = data(await call(client, 'network_stats'));
    expect(stats.markets).toEqual(expect.arrayContaining(['DE', 'GB']));
    expect(stats.programs).toBeGreaterThan(0);
    expect(stats.products_per_market.find((m: { country: string }) => m.country === 'DE').products).toBeGreaterThan(0);
    // A tool that needs the account, called without a credential: HTTP 401 with the challenge an MCP client starts OAuth from.
    for (const name of ['search_products', 'list_programs', 'get_payment_status']) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: name === 'search_products' ? { country: 'DE' } : {} } }),
      });
      expect(res.status, name).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${new URL(deps.config.portalUrl).origin}/.well-known/oauth-protected-resource/api/v1/mcp"`,
      );
      const body = (await res.json()) as { id: number; error: { message: string } };
      expect(body.id).toBe(7);
      expect(body.error.message).toMatch(/^not_authenticated: .*X-API-Key/);
    }
    await expect(call(client, 'list_links', {})).rejects.toMatchObject({ code: 401 });
  });

  it('searches products whose urls are the caller’s tracked links, pages with offset, and looks them up again', async () => {
    const client = await connect(keys().live);
    const first = data(await call(client, 'search_products', { country: 'DE', limit: 5 }));
    expect(first.products).toHaveLength(5);
    for (const p of first.products) expect(p.url.startsWith(`${deps.config.trackingUrl}/c/`)).toBe(true);
    expect(first.next_offset).toBe(5);
    const second = data(await call(client, 'search_products', { country: 'DE', limit: 5, offset: first.next_offset }));
    expect(second.products[0].id).not.toBe(first.products[0].id);
    const looked = data(await call(client, 'lookup_products', { ids: first.products.map((p: { id: string }) => p.id).join(',') }));
    expect(looked.products.map((p: { id: string }) => p.id).sort()).toEqual(first.products.map((p: { id: string }) => p.id).sort());
    const text = (await call(client, 'search_products', { country: 'DE', limit: 5 })).content as Array<{ type: string; text: string }>;
    expect(text[0].text).toMatch(/offset=5/);
  });

  it('lists programs, applies to a joinable one, creates and lists links', async () => {
    const client = await connect(keys().live);
    const programs = data(await call(client, 'list_programs', { include_available: true, page_size: 100 }));
    expect(programs.data.some((p: { relationship: string }) => p.relationship === 'approved')).toBe(true);
    const joinable = deps.demo!.fixtures.joinable_program_id;
    const applied = data(await call(client, 'apply_to_program', { program_id: joinable }));
    expect(applied).toMatchObject({ program_id: joinable, created: true });
    expect(['approved', 'pending']).toContain(applied.status);
    const again = data(await call(client, 'apply_to_program', { program_id: joinable }));
    expect(again.created).toBe(false);

    const link = data(await call(client, 'create_tracking_link', { program_id: deps.demo!.fixtures.approved_program_id, subid: 'mcp-agent-1' }));
    expect(link.url).toBe(`${deps.config.trackingUrl}/c/${link.id}`);
    const links = data(await call(client, 'list_links', { subid: 'mcp-agent-1' }));
    expect(links.data.map((l: { id: string }) => l.id)).toEqual([link.id]);
    expect(links).toMatchObject({ page: 1, has_more: false, next_page: null });
  });

  it('creates a link once per idempotency_key: the replay is the first answer, another body under the key is refused', async () => {
    const client = await connect(keys().live);
    const body = { program_id: deps.demo!.fixtures.approved_program_id, subid: 'mcp-idem' };
    const first = await call(client, 'create_tracking_link', { ...body, idempotency_key: 'agent-run-42' });
    const second = await call(client, 'create_tracking_link', { ...body, idempotency_key: 'agent-run-42' });
    expect(data(second)).toEqual(data(first));
    expect((second.content as Array<{ text: string }>)[0].text).toMatch(/^Replayed/);
    const other = errorOf(await call(client, 'create_tracking_link', { ...body, subid: 'other', idempotency_key: 'agent-run-42' }));
    expect(other.code).toBe('idempotency_key_reused');
    const stored = await deps.models.Idempotency.countDocuments({ route: 'POST /links', publisher_id: deps.demo!.publishers[0].account_id });
    expect(stored).toBeGreaterThanOrEqual(1);
  });

  it('reads conversions, a report, clicks and the payment status', async () => {
    const client = await connect(keys().live);
    const conversions = data(await call(client, 'list_conversions', { page_size: 2 }));
    expect(conversions.data.length).toBeLessThanOrEqual(2);
    expect(conversions).toHaveProperty('subid_rollup');
    expect(conversions.has_more).toBe(true);
    const second = data(await call(client, 'list_conversions', { page_size: 2, cursor: conversions.next_cursor }));
    expect(second.page).toBe(2);
    expect(second.data).toEqual(data(await call(client, 'list_conversions', { page_size: 2, page: 2 })).data);
    expect(errorOf(await call(client, 'list_conversions', { page_size: 2, status: 'approved', cursor: conversions.next_cursor })).code).toBe(
      'invalid_parameter',
    );
    const report = data(await call(client, 'get_report', { group_by: 'status' }));
    expect(report.group_by).toBe('status');
    expect(report.totals).toHaveProperty('conversions');
    const clicks = data(await call(client, 'list_clicks', {}));
    expect(clicks).toMatchObject({ page: 1 });
    const payment = data(await call(client, 'get_payment_status'));
    expect(payment.approved_unpaid.total_usd).toMatch(/^-?[0-9]+\.[0-9]{2}$/);
    // The balance is the sum of its entries, the payouts show no account number.
    const entries = data(await call(client, 'list_balance_transactions', { page_size: 500, currency: 'EUR' }));
    expect(entries.data.length).toBeGreaterThan(0);
    expect(entries.data.every((e: { currency: string }) => e.currency === 'EUR')).toBe(true);
    const payouts = data(await call(client, 'list_payouts', {}));
    expect(payouts).toMatchObject({ page: 1, data: [] });
    expect((await call(client, 'list_payouts', { status: 'sent' })).isError).toBe(true);
  });

  it('files a missing-sale inquiry once per idempotency key and lists it', async () => {
    const client = await connect(keys().live);
    const args = {
      program_id: 1001,
      order_id: 'MCP-INQ-1',
      occurred_at: new Date().toISOString(),
      amount: '42.00',
      currency: 'EUR',
      idempotency_key: 'mcp-inq-1',
    };
    const filed = await call(client, 'file_inquiry', args);
    expect(filed.isError).toBeFalsy();
    expect(data(filed)).toMatchObject({ status: 'open', order_id: 'MCP-INQ-1', amount: '42.00', evidence: { clicks: expect.any(Array) } });
    const again = data(await call(client, 'file_inquiry', args));
    expect(again.id).toBe(data(filed).id);
    expect((await call(client, 'file_inquiry', { ...args, idempotency_key: undefined, amount: '0' })).isError).toBe(true);
    const listed = data(await call(client, 'list_inquiries', { status: 'open' }));
    expect(listed.data.map((i: { id: string }) => i.id)).toContain(data(filed).id);
  });

  it("reads the events feed page by page with the HTTP API's cursors", async () => {
    const client = await connect(keys().live);
    const first = data(await call(client, 'list_events', { limit: 3 }));
    expect(first.data).toHaveLength(3);
    expect(first.data[0]).toMatchObject({ type: 'sale.created', conversion: { status: 'pending' } });
    const next = data(await call(client, 'list_events', { limit: 2, cursor: first.next_cursor }));
    const both = data(await call(client, 'list_events', { limit: 5 }));
    expect([...first.data, ...next.data].map((e: { id: string }) => e.id)).toEqual(both.data.map((e: { id: string }) => e.id));
    expect(errorOf(await call(client, 'list_events', { cursor: 'nonsense' })).code).toBe('invalid_parameter');
  });
});

describe('MCP credential rules', () => {
  it('gives a demo key an error from every tool but network_stats', async () => {
    const client = await connect(keys().demo);
    data(await call(client, 'network_stats'));
    const args: Record<string, Record<string, unknown>> = {
      search_products: { country: 'DE' },
      lookup_products: { gtins: '4006381333931' },
      apply_to_program: { program_id: 1002 },
      create_tracking_link: { program_id: 1001 },
    };
    for (const name of [
      'search_products',
      'lookup_products',
      'list_programs',
      'apply_to_program',
      'create_tracking_link',
      'list_links',
      'list_conversions',
      'list_events',
      'get_report',
      'list_clicks',
      'get_payment_status',
    ]) {
      const e = errorOf(await call(client, name, args[name] ?? {}));
      expect(e, name).toMatchObject({ code: 'credential_not_allowed', status: 403 });
    }
  });

  it('lets a read-only key read but never write', async () => {
    const client = await connect(keys().read_only);
    data(await call(client, 'list_links', {}));
    expect(errorOf(await call(client, 'create_tracking_link', { program_id: deps.demo!.fixtures.approved_program_id })).code).toBe('credential_not_allowed');
    expect(errorOf(await call(client, 'apply_to_program', { program_id: deps.demo!.fixtures.joinable_program_id })).code).toBe('credential_not_allowed');
  });

  it('refuses a key revoked during the connection on its next call', async () => {
    const issued = await issueCredential(deps.data.auth, deps.demo!.publishers[0].account_id, 'api_key', 'live', 'mcp revoke test');
    const client = await connect(issued.secret);
    data(await call(client, 'list_links', {}));
    await revokeCredential(deps.data.auth, issued.id);
    await expect(call(client, 'list_links', {})).rejects.toMatchObject({ code: 401 });
  });
});

const rpcError = async (r: Response) => ((await r.json()) as { error: { code: number; message: string } }).error;

describe('MCP bad input', () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': keys().live, ...headers },
      body,
    });

  it('answers arguments that fail the schema and unknown tools with error results', async () => {
    const client = await connect(keys().live);
    const bad = await call(client, 'search_products', { country: 'germany', limit: 1000, extra: 1 });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/country|limit|extra/);
    const unknown = await call(client, 'no_such_tool');
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toMatch(/no_such_tool/);
  });

  it('answers malformed JSON-RPC, oversized messages and other methods with JSON-RPC errors, never a 500', async () => {
    const malformed = await post('{"jsonrpc": "2.0", "method": ');
    expect(malformed.status).toBe(400);
    expect((await rpcError(malformed)).code).toBe(-32700);
    const notRpc = await post(JSON.stringify({ hello: 'world' }));
    expect(notRpc.status).toBe(400);
    expect((await rpcError(notRpc)).code).toBeTypeOf('number');
    const huge = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_products', arguments: { q: 'x'.repeat(2 * 1024 * 1024) } } }),
    );
    expect(huge.status).toBe(413);
    for (const method of ['GET', 'DELETE', 'PUT']) {
      const r = await fetch(url, { method, headers: { Accept: 'application/json, text/event-stream' } });
      expect(r.status, method).toBe(405);
      expect((await rpcError(r)).code).toBe(-32000);
    }
    // The server still answers after all of that.
    const client = await connect(keys().live);
    data(await call(client, 'network_stats'));
  });
});
