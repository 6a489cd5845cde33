/**
 * Smart link routes (issue 66, DESIGN.md "Smart links"), through HTTP: a publisher creates a link
 * with routes by country and device; a visitor behind the trusted proxy from a fixture address in
 * DE on an iPhone lands on the route's URL and the click records route 0, one from elsewhere on the
 * link's own target (route null), on the first redirect of the link (Koa) and on later ones (the
 * node route). A route to a URL the program does not allow is a 400 naming the field; a bot agent
 * and an assistant fetching for a person are flagged, the latter listed apart. The OpenAPI
 * document and the SDK's types carry `routes`.
 */
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApp } from '@cw/http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/platform';
import { createTestDeps, handlerServer, type TestDeps } from '@cw-tools/testing';
import { createApp as mcpServer } from '@cw/app-mcp-server';
import { createApp as publisherApi, openApiDocument } from '@cw/app-publisher-api';
import { createApp as trackerApp, type TrackerApp } from '@cw/app-tracker';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const PIXEL = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';
const DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const B = '/api/v1/publisher';
/** The local platform's fixture: documentation addresses placed in countries. */
const FIXTURE = { '203.0.113.0/26': 'DE', '203.0.113.64/26': 'FR' };
const DE = '203.0.113.10';
const FR = '203.0.113.70';

let deps: TestDeps;
let tracker: TrackerApp;
let publisher: ReturnType<ReturnType<typeof publisherApi>['callback']>;
let redirect: ReturnType<typeof serveApp>;
let domain: string;
let key: string;

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
  tracker = trackerApp(deps);
  publisher = publisherApi(deps).callback();
  redirect = serveApp(tracker);
  key = deps.demo!.publishers[0].keys.live;
  const program = await deps.data.programs.byId(1001, { allowed_domains: 1, default_landing_url: 1 });
  domain = program!.allowed_domains[0] ?? new URL(program!.default_landing_url).hostname;
});
afterAll(async () => {
  await tracker?.clicks.close();
  await deps?.close();
});

const post = (path: string, body: unknown) =>
  request(publisher)
    .post(`${B}${path}`)
    .set('X-API-Key', key)
    .send(body as object);
/** A visit through the trusted proxy: the proxy appends the address it saw. */
const visit = (code: string, ip: string, ua: string) => request(redirect).get(`/c/${code}`).set('User-Agent', ua).set('X-Forwarded-For', ip);

async function clickOf(location: string) {
  await tracker.clicks.flush();
  const id = new URL(location).searchParams.get('cw_click_id')!;
  return deps.data.links.clickById(id);
}

describe('smart link routes', () => {
  let code: string;
  let routes: Array<{ countries?: string[]; devices?: string[]; landing_url: string }>;

  it('creates a link with routes, countries upper-cased, shown back in order', async () => {
    routes = [
      { countries: ['de', 'AT'], devices: ['ios'], landing_url: `https://www.${domain}/de-iphone` },
      { devices: ['android'], landing_url: `https://www.${domain}/android` },
    ];
    const res = await post('/links/', { program_id: 1001, subid: 'smart', routes });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    code = res.body.id;
    expect(res.body.routes).toEqual([
      { countries: ['DE', 'AT'], devices: ['ios'], landing_url: `https://www.${domain}/de-iphone` },
      { devices: ['android'], landing_url: `https://www.${domain}/android` },
    ]);
  });

  it("sends a visitor from DE on an iPhone to the route's URL and records route 0, first (Koa) and cached (node route)", async () => {
    for (let i = 0; i < 2; i++) {
      const res = await visit(code, DE, IPHONE);
      expect(res.status).toBe(302);
      expect(res.headers.location).toMatch(new RegExp(`^https://www\\.${domain.replace(/\./g, '\\.')}/de-iphone\\?cw_click_id=`));
      const click = await clickOf(res.headers.location);
      expect([click?.route, click?.is_bot]).toEqual([0, false]);
    }
  });

  it("sends everyone else to the next matching rule or the link's own target, recording which", async () => {
    const fromFr = await visit(code, FR, IPHONE);
    expect(new URL(fromFr.headers.location).pathname).toBe('/');
    expect((await clickOf(fromFr.headers.location))?.route ?? null).toBeNull();
    const deskDe = await visit(code, DE, DESKTOP);
    expect(new URL(deskDe.headers.location).pathname).toBe('/');
    const android = await visit(code, FR, PIXEL);
    expect(new URL(android.headers.location).pathname).toBe('/android');
    expect((await clickOf(android.headers.location))?.route).toBe(1);
    // An address no country holds (not in the fixture) matches only rules without countries.
    const unknown = await visit(code, '10.1.2.3', IPHONE);
    expect(new URL(unknown.headers.location).pathname).toBe('/');
  });

  it('lists the route of each click', async () => {
    await tracker.clicks.flush();
    const res = await request(publisher).get(`${B}/clicks/?deeplink_id=${code}`).set('X-API-Key', key);
    expect(res.status).toBe(200);
    const seen = (res.body.data as Array<{ route: number | null }>).map((c) => c.route);
    expect(seen.filter((r) => r === 0)).toHaveLength(2);
    expect(seen.filter((r) => r === 1)).toHaveLength(1);
    expect(seen.filter((r) => r === null).length).toBeGreaterThanOrEqual(3);
  });

  it("replaces the link's routes when asked again with routes, keeps them without, and removes them with []", async () => {
    const same = await post('/links/', { program_id: 1001, subid: 'smart' });
    expect([same.status, same.body.routes.length]).toEqual([200, 2]);
    const replaced = await post('/links/', { program_id: 1001, subid: 'smart', routes: [{ countries: ['FR'], landing_url: `https://www.${domain}/fr` }] });
    expect([replaced.status, replaced.body.id, replaced.body.routes]).toEqual([200, code, [{ countries: ['FR'], landing_url: `https://www.${domain}/fr` }]]);
    const cleared = await post('/links/', { program_id: 1001, subid: 'smart', routes: [] });
    expect(cleared.body.routes).toEqual([]);
  });

  it("refuses a route the publisher may not promote, naming routes[i].landing_url, in a single call and in a batch's item", async () => {
    const bad = await post('/links/', {
      program_id: 1001,
      subid: 'smart-bad',
      routes: [{ landing_url: `https://www.${domain}/ok` }, { countries: ['US'], landing_url: 'https://evil.example.net/phish' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ param: 'routes[1].landing_url' })]);
    const notHttp = await post('/links/', { program_id: 1001, routes: [{ landing_url: `javascript:alert(1)` }] });
    expect(notHttp.status).toBe(400);
    const country = await post('/links/', { program_id: 1001, routes: [{ countries: ['XX'], landing_url: `https://www.${domain}/x` }] });
    expect([country.status, country.body.errors?.[0]?.param]).toEqual([400, 'routes[0].countries']);
    const device = await post('/links/', { program_id: 1001, routes: [{ devices: ['tv'], landing_url: `https://www.${domain}/x` }] });
    expect(device.status).toBe(400);
    const tooMany = await post('/links/', { program_id: 1001, routes: Array.from({ length: 11 }, () => ({ landing_url: `https://www.${domain}/x` })) });
    expect(tooMany.status).toBe(400);
    const batch = await post('/links/batch/', {
      links: [
        { program_id: 1001, subid: 'smart-b1', routes: [{ devices: ['ios'], landing_url: `https://www.${domain}/b1` }] },
        { program_id: 1001, subid: 'smart-b2', routes: [{ landing_url: 'https://evil.example.net/' }] },
      ],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.results[0]).toMatchObject({ status: 'created', link: { routes: [{ devices: ['ios'], landing_url: `https://www.${domain}/b1` }] } });
    expect(batch.body.results[1]).toMatchObject({ status: 'error', error: { errors: [expect.objectContaining({ param: 'routes[0].landing_url' })] } });
  });

  it('flags a bot agent and lists assistants fetching for a person apart', async () => {
    const link = await post('/links/', { program_id: 1001, subid: 'smart-bots' });
    const bot = await visit(link.body.id, DE, 'PostmanRuntime/7.39.0');
    const agent = await visit(
      link.body.id,
      DE,
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
    );
    expect([(await clickOf(bot.headers.location))?.bot_reason, (await clickOf(agent.headers.location))?.bot_reason]).toEqual(['user_agent', 'agent']);
    const list = (q: string) => request(publisher).get(`${B}/clicks/?deeplink_id=${link.body.id}${q}`).set('X-API-Key', key);
    expect((await list('')).body.data).toEqual([]);
    const apart = (await list('&bot_reason=agent')).body.data as Array<{ bot_reason: string }>;
    expect(apart.map((c) => c.bot_reason)).toEqual(['agent']);
    expect(((await list('&include_bots=true')).body.data as unknown[]).length).toBe(2);
    expect((await list('&bot_reason=nonsense')).status).toBe(400);
  });

  it('takes routes through the MCP tool create_tracking_link, and refuses one the program does not allow', async () => {
    const server = handlerServer(mcpServer(deps).callback());
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const client = new Client({ name: 'smart-routes-test', version: '1.0.0' });
    try {
      const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/mcp/`);
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'X-API-Key': key } } }));
      const tool = (args: Record<string, unknown>) => client.callTool({ name: 'create_tracking_link', arguments: args }) as Promise<CallToolResult>;
      const ok = await tool({ program_id: 1001, subid: 'smart-mcp', routes: [{ countries: ['fr'], landing_url: `https://www.${domain}/fr` }] });
      expect(ok.isError ?? false).toBe(false);
      expect((ok.structuredContent as { routes: unknown }).routes).toEqual([{ countries: ['FR'], landing_url: `https://www.${domain}/fr` }]);
      const bad = await tool({ program_id: 1001, subid: 'smart-mcp', routes: [{ landing_url: 'https://evil.example.net/' }] });
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toContain('routes[0].landing_url');
    } finally {
      await client.close();
      await new Promise((ok) => server.close(ok));
    }
  });

  it('documents routes in the OpenAPI document and the SDK types', () => {
    const doc = openApiDocument(deps) as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>> };
    const body = JSON.stringify(doc.paths[`${B}/links/`]?.post?.requestBody ?? doc);
    expect(body).toContain('"routes"');
    expect(body).toContain('"android"');
    // The SDK's generated types (npm run sdk:generate) carry them too.
    const sdk = readFileSync(join(REPO_ROOT, 'libs/sdk/typescript/src/generated/publisher.ts'), 'utf8');
    expect(sdk).toMatch(/routes\?: \{[^}]*devices\?: \('ios' \| 'android' \| 'desktop'\)\[\]/);
  });
});
