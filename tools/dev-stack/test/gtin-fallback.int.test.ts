/**
 * The GTIN fallback of product links (issue 66, DESIGN.md "Smart links", decision 0063), through
 * HTTP: a publisher's product link (made by product lookup) records its product; when the product
 * goes out of stock, a visitor from the link's market lands at the same GTIN at the cheapest other
 * approved program in stock there (decimal compare), the click attributed to that program under its
 * own click-id parameter and recording the fallback; a visitor from another market gets that
 * market's offer; `fallback: false` on the link (or the account's `link_fallback`) sends to the
 * program's landing page; no alternative: the landing page; a paused program: the page that says
 * so. GET /clicks/?fallback=true lists the saved clicks; `fallback` is validated, taken by the MCP
 * tool create_tracking_link, and in the OpenAPI document and the SDK's types.
 */
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApp } from '@cw/http';
import { productId, withCheckDigit } from '@cw/catalog';
import { readClickId } from '@cw/links';
import { createTestDeps, handlerServer, type TestDeps } from '@cw-tools/testing';
import { createApp as mcpServer } from '@cw/app-mcp-server';
import { createApp as publisherApi, openApiDocument } from '@cw/app-publisher-api';
import { REPO_ROOT } from '../src/platform';
import { createApp as trackerApp, type TrackerApp } from '@cw/app-tracker';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const B = '/api/v1/publisher';
const FIXTURE = { '203.0.113.0/26': 'DE', '203.0.113.64/26': 'FR' };
const DE = '203.0.113.10';
const FR = '203.0.113.70';
/** An address the fixture does not place: the link's own market (DE) applies. */
const NOWHERE = '198.51.100.20';
const GTIN = withCheckDigit('400638133393');
/** Shops: A (the link's), B (cheapest in DE, its own click-id parameter), C (dearer in DE, the only one in FR), D (not approved). */
const A = 7101;
const SHOP_B = 7102;
const C = 7103;
const D = 7104;

let deps: TestDeps;
let tracker: TrackerApp;
let api: ReturnType<ReturnType<typeof publisherApi>['callback']>;
let redirect: ReturnType<typeof serveApp>;
let key: string;
let publisherId: string;
let code: string;

function offer(program: number, country: string, price: string, url: string) {
  const now = Date.now();
  return {
    _id: productId(GTIN, program, country),
    gtin: GTIN,
    gtin14: GTIN.padStart(14, '0'),
    title: 'Trail shoe',
    title_lc: 'trail shoe',
    price,
    currency: 'EUR',
    source_url: url,
    merchant_id: program * 10,
    program_id: program,
    country,
    availability: 'in_stock',
    last_seen_at: new Date(now - 3_600_000),
    fresh_until: new Date(now + 86_400_000),
  };
}

beforeAll(async () => {
  deps = await createTestDeps({
    seedProducts: 10,
    env: {
      GEOIP_FIXTURE: JSON.stringify(FIXTURE),
      TRUST_PROXY_HOPS: '1',
      RATELIMIT_IP_PER_MIN: '1000000',
      RATELIMIT_REPORTING_PER_MIN: '1000000',
      RATELIMIT_LINKS_PER_MIN: '1000000',
    },
  });
  key = deps.demo!.publishers[0].keys.live;
  publisherId = deps.demo!.publishers[0].account_id;
  for (const id of [A, SHOP_B, C, D]) await deps.models.Merchant.create({ _id: id * 10, name: `Shop ${id}` });
  await deps.data.programs.create([
    {
      _id: A,
      name: 'Shop A',
      merchant_id: A * 10,
      countries: ['DE', 'FR'],
      default_landing_url: 'https://shop-a.example/',
      allowed_domains: ['shop-a.example'],
    },
    { _id: SHOP_B, name: 'Shop B', merchant_id: SHOP_B * 10, countries: ['DE'], default_landing_url: 'https://shop-b.example/', click_id_param: 'b_click' },
    { _id: C, name: 'Shop C', merchant_id: C * 10, countries: ['DE', 'FR'], default_landing_url: 'https://shop-c.example/' },
    { _id: D, name: 'Shop D', merchant_id: D * 10, countries: ['DE'], default_landing_url: 'https://shop-d.example/' },
  ] as never);
  await deps.data.programs.saveAssignments([A, SHOP_B, C].map((program_id) => ({ publisher_id: publisherId, program_id, status: 'approved' as const })));
  await deps.models.Product.create([
    offer(A, 'DE', '24.00', 'https://shop-a.example/p/trail-shoe'),
    // As strings "19.90" sorts after "109.00": only a decimal compare picks B.
    offer(SHOP_B, 'DE', '19.90', 'https://shop-b.example/item/991'),
    offer(C, 'DE', '109.00', 'https://shop-c.example/de/trail'),
    offer(C, 'FR', '21.00', 'https://shop-c.example/fr/trail'),
    // Cheapest of all, but the publisher is not approved for D.
    offer(D, 'DE', '1.00', 'https://shop-d.example/trail'),
  ] as never);
  tracker = trackerApp(deps);
  api = publisherApi(deps).callback();
  redirect = serveApp(tracker);
});
afterAll(async () => {
  await tracker?.clicks.close();
  await deps?.close();
});

const visit = (ip: string) => request(redirect).get(`/c/${code}`).set('User-Agent', BROWSER).set('X-Forwarded-For', ip);
/** A change of stock or switches is seen by the tracker within its target's minute: the test does not wait for it. */
const forget = () => deps.caches.redirectTargets.clear();
const setStock = (program: number, country: string, availability: string) =>
  deps.models.Product.updateOne({ _id: productId(GTIN, program, country) }, { $set: { availability } });

async function clickOf(location: string, param = 'cw_click_id') {
  await tracker.clicks.flush();
  const id = new URL(location).searchParams.get(param)!;
  return { id, click: await deps.data.links.clickById(id) };
}

describe('GTIN fallback', () => {
  it('a product link made by lookup records its product and, in stock, answers as any link', async () => {
    const res = await request(api).get(`${B}/products/lookup/`).query({ gtins: GTIN, country: 'DE' }).set('X-API-Key', key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const mine = res.body.products.find((p: { merchant: { id: number } }) => p.merchant.id === A * 10);
    code = new URL(mine.url).pathname.split('/').pop()!;
    const link = await deps.data.links.byCode(code);
    expect(link?.product).toEqual({ id: productId(GTIN, A, 'DE'), gtin: GTIN, market: 'DE' });
    const visitRes = await visit(DE);
    expect(visitRes.status).toBe(302);
    expect(visitRes.headers.location).toMatch(/^https:\/\/shop-a\.example\/p\/trail-shoe\?cw_click_id=clk_/);
    const plain = (await clickOf(visitRes.headers.location)).click;
    expect([plain?.program_id, plain?.fallback_from ?? null]).toEqual([A, null]);
  });

  it('out of stock: the cheapest approved program in stock in the visitor market answers, and the click is its own', async () => {
    await setStock(A, 'DE', 'out_of_stock');
    forget();
    // First click (Koa finds the answer), then the kept answer (node route).
    for (const ip of [DE, DE, NOWHERE]) {
      const res = await visit(ip);
      expect(res.status).toBe(302);
      expect(res.headers.location).toMatch(/^https:\/\/shop-b\.example\/item\/991\?b_click=clk_/);
      const { id, click } = await clickOf(res.headers.location, 'b_click');
      expect(click).toMatchObject({ program_id: SHOP_B, campaign_id: SHOP_B * 10, publisher_id: publisherId, fallback_from: A, is_bot: false });
      // A sale on this click id is credited to B's program: the id carries the publisher's link there.
      const claims = readClickId(deps.config.keys, id)!;
      expect((await deps.data.links.byCode(claims.linkId))?.program_id).toBe(SHOP_B);
    }
    // A visitor from FR: that market's offer (only C sells it there).
    const fr = await visit(FR);
    expect(fr.headers.location).toMatch(/^https:\/\/shop-c\.example\/fr\/trail\?cw_click_id=clk_/);
    expect((await clickOf(fr.headers.location)).click).toMatchObject({ program_id: C, fallback_from: A });
  });

  it('GET /clicks/?fallback=true lists the clicks the fallback saved, with from and to', async () => {
    const res = await request(api).get(`${B}/clicks/`).query({ fallback: true }).set('X-API-Key', key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.length).toBe(4);
    for (const c of res.body.data) expect(c.fallback).toEqual({ from_program: A, to_program: c.program_id });
    const others = await request(api).get(`${B}/clicks/`).query({ fallback: false }).set('X-API-Key', key);
    expect(others.body.data.every((c: { fallback: unknown }) => c.fallback === null)).toBe(true);
    expect(others.body.data.length).toBeGreaterThanOrEqual(1);
  });

  it("fallback: false on the link sends to the program's landing page; true turns it on again; not a boolean is a 400", async () => {
    const link = await deps.data.links.byCode(code);
    const body = { program_id: A, landing_url: link!.landing_url };
    const off = await request(api)
      .post(`${B}/links/`)
      .set('X-API-Key', key)
      .send({ ...body, fallback: false });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect([off.body.id, off.body.fallback]).toEqual([code, false]);
    forget();
    const res = await visit(DE);
    expect(res.headers.location).toMatch(/^https:\/\/shop-a\.example\/\?cw_click_id=clk_/);
    const landed = (await clickOf(res.headers.location)).click;
    expect([landed?.program_id, landed?.fallback_from ?? null]).toEqual([A, null]);

    const on = await request(api)
      .post(`${B}/links/`)
      .set('X-API-Key', key)
      .send({ ...body, fallback: true });
    expect(on.body.fallback).toBe(true);
    forget();
    expect((await visit(DE)).headers.location).toMatch(/^https:\/\/shop-b\.example\//);

    for (const bad of ['no', 1, null]) {
      const r = await request(api)
        .post(`${B}/links/`)
        .set('X-API-Key', key)
        .send({ ...body, fallback: bad });
      expect(r.status).toBe(400);
      expect(r.body.errors?.[0]?.param ?? r.body.param).toBe('fallback');
    }
  });

  it("the account's link_fallback: false turns it off for every link", async () => {
    await deps.data.auth.updatePublisher(publisherId, { link_fallback: false });
    forget();
    expect((await visit(DE)).headers.location).toMatch(/^https:\/\/shop-a\.example\/\?cw_click_id=/);
    await deps.data.auth.updatePublisher(publisherId, { link_fallback: true });
  });

  it("no other program has it in stock: the program's landing page; the program paused: the page that says so", async () => {
    await setStock(SHOP_B, 'DE', 'out_of_stock');
    await setStock(C, 'DE', 'out_of_stock');
    forget();
    const res = await visit(DE);
    expect(res.headers.location).toMatch(/^https:\/\/shop-a\.example\/\?cw_click_id=clk_/);

    await deps.data.programs.setStatus(A, 'paused');
    forget();
    for (let i = 0; i < 2; i++) {
      const page = await visit(DE);
      expect(page.status, page.headers.location).toBe(404);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('This product is not available');
      expect(page.text).toContain('does not take visitors');
      expect(page.headers.location).toBeUndefined();
    }
    // The click is still counted, on the link itself.
    await tracker.clicks.flush();
    const list = await request(api).get(`${B}/clicks/`).query({ deeplink_id: code, page_size: 1 }).set('X-API-Key', key);
    expect(list.body.data[0]).toMatchObject({ program_id: A, fallback: null });
    await deps.data.programs.setStatus(A, 'active');
  });

  it('takes fallback through the MCP tool create_tracking_link, and refuses one not a boolean', async () => {
    const server = handlerServer(mcpServer(deps).callback());
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const client = new Client({ name: 'gtin-fallback-test', version: '1.0.0' });
    try {
      const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/mcp/`);
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'X-API-Key': key } } }));
      const tool = (args: Record<string, unknown>) => client.callTool({ name: 'create_tracking_link', arguments: args }) as Promise<CallToolResult>;
      const ok = await tool({ program_id: A, subid: 'mcp-fallback', fallback: false });
      expect(ok.isError ?? false).toBe(false);
      expect((ok.structuredContent as { fallback: boolean }).fallback).toBe(false);
      const bad = await tool({ program_id: A, subid: 'mcp-fallback', fallback: 'off' });
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toContain('fallback');
    } finally {
      await client.close();
      await new Promise((ok) => server.close(ok));
    }
  });

  it('documents fallback in the OpenAPI document and the SDK types', () => {
    const doc = JSON.stringify(openApiDocument(deps));
    expect(doc).toContain('"from_program"');
    expect(doc).toMatch(/"fallback":\{"type":"boolean"/);
    const sdk = readFileSync(join(REPO_ROOT, 'libs/sdk/typescript/src/generated/publisher.ts'), 'utf8');
    expect(sdk).toMatch(/fallback\?: \{\s*from_program: number;\s*to_program: number;\s*\} \| null;/);
    expect(sdk).toContain('fallback?: boolean;');
  });
});
