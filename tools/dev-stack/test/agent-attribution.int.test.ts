/**
 * Agent attribution tokens end to end: an agent searches products over MCP, each product carries
 * `affiliate_attribution`; the merchant reports the agent's order with it and the sale is credited
 * to the publisher with channel `agent`; the token credits that order only (the same order again
 * is today's dedupe, another order 422); the merchant's verify endpoint spends nothing. The
 * publisher API carries tokens with attribution=token only.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { issueMerchantToken } from '@cw/auth';
import { createTestDeps, expectErrorShape, handlerServer, type TestDeps } from '@cw-tools/testing';
import { createApp as mcpServer } from '@cw/app-mcp-server';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp, type TrackerApp } from '@cw/app-tracker';

interface Attribution {
  provider: string;
  token: string;
  publisher_id: string;
  campaign_id: number;
  expires_at: string;
}
interface Product {
  id: string;
  merchant: { id: number };
  affiliate_attribution?: Attribution;
}

let deps: TestDeps;
let app: TrackerApp;
let tracker: ReturnType<TrackerApp['callback']>;
let publisher: ReturnType<TrackerApp['callback']>;
let server: http.Server;
let client: Client;
let merchant: string;
let orders = 0;

beforeAll(async () => {
  deps = await createTestDeps({
    seedProducts: 20,
    env: { RATELIMIT_IP_PER_MIN: '100000', RATELIMIT_PRODUCTS_PER_MIN: '100000', RATELIMIT_REPORTING_PER_MIN: '100000', CLICK_FLUSH_INTERVAL_MS: '60000' },
  });
  app = createApp(deps);
  tracker = app.callback();
  publisher = publisherApi(deps).callback();
  merchant = (await issueMerchantToken(deps.data.auth, 501)).secret;
  server = handlerServer(mcpServer(deps).callback());
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  client = new Client({ name: 'agent-attribution-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/mcp/`), {
      requestInit: { headers: { 'X-API-Key': deps.demo!.publishers[0].keys.live } },
    }),
  );
});
afterAll(async () => {
  await client?.close();
  await new Promise((ok) => server?.close(ok));
  await app?.clicks.close();
  await deps?.close();
});

const report = (body: Record<string, unknown>, bearer = merchant) =>
  request(tracker).post('/api/v1/track/conversions/').set('Authorization', `Bearer ${bearer}`).send(body);
const verify = (token: string, bearer = merchant) =>
  request(tracker).post('/api/v1/track/attributions/verify').set('Authorization', `Bearer ${bearer}`).send({ token });
const sale = (extra: Record<string, unknown>) => ({ order_id: `AGENT-ORD-${++orders}`, amount: '80.00', currency: 'EUR', ...extra });

/** Products of merchant 501 (program 1001) as an agent finds them over MCP. */
async function agentProducts(): Promise<Product[]> {
  const r = (await client.callTool({ name: 'search_products', arguments: { country: 'DE', merchant: 501 } })) as CallToolResult;
  expect(r.isError).toBeFalsy();
  const products = (r.structuredContent as { products: Product[] }).products;
  expect(products.length).toBeGreaterThan(1);
  return products;
}

describe('agent attribution tokens', () => {
  it("come with every MCP product result, in the ACP shape, naming the publisher and the product's merchant", async () => {
    const products = await agentProducts();
    for (const p of products) {
      expect(p.affiliate_attribution).toEqual({
        provider: new URL(deps.config.portalUrl).host,
        token: expect.stringMatching(/^atp_[A-Za-z0-9_-]+$/),
        publisher_id: deps.demo!.publishers[0].account_id,
        campaign_id: p.merchant.id,
        expires_at: expect.any(String),
      });
      const days = (Date.parse(p.affiliate_attribution!.expires_at) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(6.9);
      expect(days).toBeLessThanOrEqual(7);
    }
    // Signed per answer: two searches never hand out the same token (each credits one order).
    const again = await agentProducts();
    expect(again[0]!.affiliate_attribution!.token).not.toBe(products[0]!.affiliate_attribution!.token);
  });

  it('credit the agent’s order to the publisher with channel agent, once; the same order again is the dedupe, another order 422', async () => {
    const [p] = await agentProducts();
    const attribution = p!.affiliate_attribution!;
    const body = sale({ affiliate_attribution: attribution });
    const first = await report(body);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ program_id: 1001, channel: 'agent', click_id: null, commission: '6.40' });
    const stored = await deps.models.Conversion.findById(first.body.id).lean();
    expect(stored).toMatchObject({ publisher_id: deps.demo!.publishers[0].account_id, channel: 'agent' });

    const again = await report(body);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);

    expectErrorShape(await report(sale({ attribution_token: attribution.token })), 422, 'attribution_invalid');
    expect(await deps.models.AttributionSpend.countDocuments({ conversion_id: first.body.id })).toBe(1);

    const listed = await request(publisher).get('/api/v1/publisher/conversions/?channel=agent').set('X-API-Key', deps.demo!.publishers[0].keys.live);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([first.body.id]);
  });

  it('verify for the merchant without spending: valid before the order, spent after it', async () => {
    const [, p] = await agentProducts();
    const token = p!.affiliate_attribution!.token;
    for (let i = 0; i < 2; i++) {
      const v = await verify(token);
      expect(v.status).toBe(200);
      expect(v.body).toEqual({
        valid: true,
        publisher_id: deps.demo!.publishers[0].account_id,
        program_id: 1001,
        expires_at: p!.affiliate_attribution!.expires_at,
        spent: false,
      });
    }
    expect(await deps.models.AttributionSpend.countDocuments({})).toBe(1);
    expect((await report(sale({ attribution_token: token }))).status).toBe(201);
    expect((await verify(token)).body).toMatchObject({ valid: false, reason: 'spent', spent: true, program_id: 1001 });
  });

  it('come from the publisher API only when asked with attribution=token', async () => {
    const key = deps.demo!.publishers[0].keys.live;
    const plain = await request(publisher).get('/api/v1/publisher/products/?country=DE&merchant=501').set('X-API-Key', key);
    expect(plain.status).toBe(200);
    expect(plain.body.products[0].affiliate_attribution).toBeUndefined();
    const tokened = await request(publisher).get('/api/v1/publisher/products/?country=DE&merchant=501&attribution=token').set('X-API-Key', key);
    expect(tokened.body.products[0].affiliate_attribution.token).toMatch(/^atp_/);
    const ids = tokened.body.products
      .map((x: Product) => x.id)
      .slice(0, 2)
      .join(',');
    const looked = await request(publisher).get(`/api/v1/publisher/products/lookup/?ids=${ids}&attribution=token`).set('X-API-Key', key);
    expect(looked.status).toBe(200);
    expect(looked.body.products.every((x: Product) => x.affiliate_attribution?.token.startsWith('atp_'))).toBe(true);
    expectErrorShape(await request(publisher).get('/api/v1/publisher/products/?country=DE&attribution=yes').set('X-API-Key', key), 400, 'invalid_parameter');
  });
});
