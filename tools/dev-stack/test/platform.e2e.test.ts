/** The one-process platform as `npm start` runs it, checked from outside through HTTP. */
import { mkdtempSync, readFileSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '@cw-tools/admin-cli';
import { startPlatform, type Platform } from './support/test-platform';

let platform: Platform;
const dir = mkdtempSync(join(tmpdir(), 'platform-'));
const credentialsPath = join(dir, 'credentials.json');

beforeAll(async () => {
  platform = await startPlatform({ env: { PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'silent' }, seedProducts: 400, credentialsPath });
}, 120_000);
afterAll(async () => platform?.stop());

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${platform.url}${path}`, { headers });

describe('local platform', () => {
  it('writes the credentials file in the documented shape', () => {
    const c = JSON.parse(readFileSync(credentialsPath, 'utf8'));
    expect(Object.keys(c).sort()).toEqual(['base_url', 'feed_url', 'fixtures', 'metrics_token', 'portal_url', 'publishers', 'special_keys', 'store']);
    expect(c.metrics_token).toBe(platform.config.metricsToken);
    expect(c.store).toBe('embedded:in-memory');
    expect(c.base_url).toBe(`${c.portal_url}/api/v1/publisher`);
    expect(c.publishers.length).toBeGreaterThanOrEqual(2);
    for (const p of c.publishers) {
      expect(Object.keys(p.keys).sort()).toEqual(['demo', 'live', 'read_only', 'revoked', 'sandbox', 'test']);
      expect(p.keys.live).toMatch(/^live_/);
      expect(p.reporting_token).toMatch(/^rpt_/);
      expect(p.offers_credential).toMatch(/^ofr_/);
      expect(p.portal_token).toMatch(/^ptl_/);
      expect(typeof p.account_id).toBe('string');
      expect(p.portal_login).toEqual({ email: expect.stringMatching(/^owner@/), password: expect.stringMatching(/^.{12,}$/) });
    }
    expect(Object.keys(c.special_keys).sort()).toEqual(['inactive_account', 'no_feed_access', 'no_markets']);
    const f = c.fixtures;
    expect(f.country).toBe('DE');
    for (const k of ['gtin_leading_zero', 'gtin_out_of_stock', 'gtin_preorder', 'gtin_stale', 'gtin_unapproved_program']) expect(f[k]).toMatch(/^\d{8,14}$/);
    expect(f.gtin_leading_zero.startsWith('0')).toBe(true);
    for (const k of ['approved_program_id', 'joinable_program_id', 'unapproved_merchant_id']) expect(Number.isInteger(f[k])).toBe(true);
    expect(f.approved_program_landing_url).toMatch(/^https:\/\//);
    expect(f.group_query.length).toBeGreaterThanOrEqual(3);
    expect(f.analyst_login).toEqual({ email: expect.stringMatching(/^analyst@/), password: expect.stringMatching(/^.{12,}$/) });
  });

  it('tells local tools where its database is while it runs', () => {
    expect(JSON.parse(readFileSync(join(dir, 'platform.json'), 'utf8')).mongodb_uri).toMatch(/^mongodb:\/\//);
  });

  it('answers probes and metrics before any rate limit: no probe spends or meets the per-address budget', async () => {
    const scraper = { Authorization: `Bearer ${JSON.parse(readFileSync(credentialsPath, 'utf8')).metrics_token}` };
    for (let i = 0; i < 5; i++) {
      for (const path of ['/healthz', '/readyz', '/metrics']) {
        const res = await get(path, path === '/metrics' ? scraper : {});
        expect(res.status, path).toBe(200);
        expect(res.headers.get('ratelimit-limit'), path).toBeNull();
      }
    }
    // Without the credentials file's token, no metrics.
    expect((await get('/metrics')).status).toBe(401);
    const metrics = await (await get('/metrics', scraper)).text();
    expect(metrics).toContain('http_requests_total');
    // What an operator watches: the driver's pool, the postback pipeline, the queue, the click buffer.
    expect(Number(/^mongodb_pool_connections\{state="open"\} (\d+)/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    expect(metrics).toMatch(/^mongodb_pool_connections\{state="in_use"\} \d+/m);
    expect(metrics).toMatch(/^mongodb_pool_checkout_failures 0$/m);
    for (const status of ['pending', 'succeeded', 'failed', 'dead'])
      expect(metrics).toMatch(new RegExp(`^postback_deliveries\\{status="${status}"\\} \\d+$`, 'm'));
    expect(Number(/^outbox_oldest_pending_seconds (\S+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(0);
    expect(Number(/^agenda_jobs_due (\S+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(0);
    expect(metrics).toMatch(/^tracker_click_buffer \d+$/m);
  });

  it('answers /healthz 200 when every app is ready', async () => {
    const res = await get('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok' });
  });

  it('routes each prefix to its app; unknown paths get the error shape with X-Request-Id', async () => {
    for (const path of [
      '/api/v1/publisher/nope',
      '/api/v1/affiliate-reporting/nope',
      '/api/v1/monetize/nope',
      '/api/v1/feeds/nope',
      '/api/v1/mcp/nope',
      '/c/x/y',
      '/elsewhere',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ code: 'not_found', request_id: res.headers.get('x-request-id') });
      expect(res.headers.get('ratelimit-limit')).not.toBeNull();
    }
  });

  it('authenticates the seeded keys: live works, revoked and inactive do not', async () => {
    const c = JSON.parse(readFileSync(credentialsPath, 'utf8'));
    expect((await get('/api/v1/publisher/me/', { 'X-API-Key': c.publishers[0].keys.live })).status).toBe(200);
    expect((await get('/api/v1/publisher/me/', { Authorization: `Bearer ${c.publishers[1].keys.live}` })).status).toBe(200);
    expect((await get('/api/v1/publisher/me/', { 'X-API-Key': c.publishers[0].keys.revoked })).status).toBe(401);
    expect((await get('/api/v1/publisher/me/', { 'X-API-Key': c.special_keys.inactive_account })).status).toBe(401);
  });

  it('writes the credentials file readable by its owner only (0600)', () => {
    expect(statSync(credentialsPath).mode & 0o777).toBe(0o600);
  });

  it('applies an operator CLI revocation (another process, no Redis) to the very next request, though keys are cached', async () => {
    const c = JSON.parse(readFileSync(credentialsPath, 'utf8'));
    const cli = async (...args: string[]) =>
      JSON.parse((await runCli([...args, '--json'], { MONGODB_URI: platform.mongoUri }, dir)).out) as Record<string, string>;
    const issued = await cli('key:issue', '--publisher', c.publishers[0].account_id, '--kind', 'live');
    for (let i = 0; i < 3; i++) expect((await get('/api/v1/publisher/products/?country=DE', { 'X-API-Key': issued.secret })).status).toBe(200);
    await cli('credential:revoke', '--id', issued.id);
    expect((await get('/api/v1/publisher/products/?country=DE', { 'X-API-Key': issued.secret })).status).toBe(401);
  });

  it('answers an operator CLI catalog import (another process, no Redis) from the very next page nobody asked for, though the platform held the row', async () => {
    const c = JSON.parse(readFileSync(credentialsPath, 'utf8'));
    const key = { 'X-API-Key': c.publishers[0].keys.live as string };
    const page = async (n: number) => {
      const res = await get(`/api/v1/publisher/products/?country=DE&limit=5&min_price=0.00${n}`, key);
      expect(res.status).toBe(200);
      return ((await res.json()) as { products: Array<{ id: string; price: string }> }).products;
    };
    // Pages nobody asked for over the same rows: the platform reads them as ids and holds the rows.
    for (let n = 1; n <= 10; n++) await page(n);
    const [first] = await page(11);
    const client = await MongoClient.connect(platform.mongoUri);
    const row = (await client
      .db()
      .collection('products')
      .findOne({ _id: first!.id as never }))!;
    await client.close();
    const feed = join(dir, 'import.csv');
    writeFileSync(
      feed,
      `gtin,title,link,price,availability\n${row.gtin},${String(row.title).replace(/,/g, ' ')},${row.source_url},4321.99 ${row.currency},in stock\n`,
    );
    const imported = await runCli(
      ['catalog:import', '--file', feed, '--program', String(row.program_id), '--country', 'DE', '--json'],
      { MONGODB_URI: platform.mongoUri },
      dir,
    );
    expect(imported.code, imported.out).toBe(0);
    expect((await page(12)).find((p) => p.id === first!.id)?.price).toBe('4321.99');
  });

  it('serves the OpenAPI document and the docs page', async () => {
    const doc = (await (await get('/api/v1/publisher/openapi.json')).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/api/v1/publisher/me/');
    const page = await get('/api/v1/publisher/docs');
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect((await get('/api/v1/publisher/docs/redoc.standalone.js')).status).toBe(200);
  });

  it('links every API reference from /docs (and / for programs): a page for browsers, JSON for programs; every link answers', async () => {
    // A browser opening / is sent to the portal (its sign-in without a session); a program gets the index.
    const root = await fetch(`${platform.url}/`, { headers: { Accept: 'text/html,application/xhtml+xml' }, redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/signin?next=%2Fdashboard');
    expect(((await (await get('/', { Accept: 'application/json' })).json()) as { data: unknown[] }).data.length).toBeGreaterThan(5);
    const html = await get('/docs/', { Accept: 'text/html,application/xhtml+xml' });
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/text\/html/);
    const listed = (await (await get('/docs/', { Accept: 'application/json' })).json()) as { data: Array<{ title: string; docs: string; openapi: string }> };
    expect(listed.data.map((d) => d.title)).toEqual([
      'Publisher Affiliate API',
      'Reporting API',
      'Product feeds',
      'Instant monetization API',
      'MCP',
      'Tracking API',
      'Publisher portal API',
    ]);
    const page = await html.text();
    for (const d of listed.data) {
      expect(page).toContain(`href="${d.docs}"`);
      expect((await get(d.docs)).status, d.docs).toBe(200);
      const doc = (await (await get(d.openapi)).json()) as {
        info: { description: string };
        components: { securitySchemes: Record<string, { description?: string }> };
      };
      expect(doc.info.description, d.openapi).toContain('## Getting started');
      for (const [name, scheme] of Object.entries(doc.components.securitySchemes)) expect(scheme.description, `${d.openapi} ${name}`).toBeTruthy();
    }
  });

  it('follows a link created through the API: 302 with the click id, and the click shows in GET /clicks/', async () => {
    const c = JSON.parse(readFileSync(credentialsPath, 'utf8'));
    const key = c.publishers[1].keys.live;
    const created = await fetch(`${platform.url}/api/v1/publisher/links/`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'Idempotency-Key': 'e2e-link-1' },
      body: JSON.stringify({ program_id: c.fixtures.approved_program_id, subid: 'e2e-run' }),
    });
    expect(created.status).toBe(201);
    const link = (await created.json()) as { id: string; url: string };
    expect(link.url).toBe(`${platform.config.trackingUrl}/c/${link.id}`);
    const followed = await fetch(`${platform.url}/c/${link.id}`, {
      redirect: 'manual',
      headers: { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0' },
    });
    expect(followed.status).toBe(302);
    const clickId = new URL(followed.headers.get('location')!).searchParams.get('cw_click_id');
    expect(clickId).toMatch(/^clk_/);
    let clicks: Array<{ id: string; sub_id: string }> = [];
    for (let i = 0; i < 50 && !clicks.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      clicks = ((await (await get(`/api/v1/publisher/clicks/?deeplink_id=${link.id}`, { 'X-API-Key': key })).json()) as { data: typeof clicks }).data;
    }
    expect(clicks.map((k) => [k.id, k.sub_id])).toEqual([[clickId, 'e2e-run']]);
    const other = (await (await get(`/api/v1/publisher/clicks/?deeplink_id=${link.id}`, { 'X-API-Key': c.publishers[0].keys.live })).json()) as {
      data: unknown[];
    };
    expect(other.data).toEqual([]);
  });

  it('removes its platform info file when it stops', async () => {
    const p2 = await startPlatform({
      env: { PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'silent' },
      seedProducts: 200,
      credentialsPath: join(dir, 'second', 'credentials.json'),
    });
    expect(existsSync(join(dir, 'second', 'platform.json'))).toBe(true);
    await p2.stop();
    expect(existsSync(join(dir, 'second', 'platform.json'))).toBe(false);
    // A whole second platform seeded and started in the test: the first one's 120 s, as the other starts here have.
  }, 120_000);
});

describe('local platform on a data directory', () => {
  it('keeps keys, links and clicks across a stop and start, without reseeding', async () => {
    const home = mkdtempSync(join(tmpdir(), 'platform-durable-'));
    const opts = {
      env: { PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'silent', CLICK_FLUSH_INTERVAL_MS: '20' },
      seedProducts: 200,
      credentialsPath: join(home, 'credentials.json'),
      dataDir: join(home, 'data'),
    };
    const first = await startPlatform(opts);
    expect(first.seeded).toBeDefined();
    const creds = JSON.parse(readFileSync(opts.credentialsPath, 'utf8'));
    const key = creds.publishers[0].keys.live;
    const made = await fetch(`${first.url}/api/v1/publisher/links/`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ program_id: creds.fixtures.approved_program_id, subid: 'durable' }),
    });
    expect(made.status).toBe(201);
    const link = (await made.json()) as { id: string };
    expect(
      (await fetch(`${first.url}/c/${link.id}`, { redirect: 'manual', headers: { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' } })).status,
    ).toBe(302);
    await first.stop();
    // As a file written before the portal existed: no logins in it (their people are in the data, but their passwords are not).
    for (const p of creds.publishers) delete p.portal_login;
    delete creds.fixtures.analyst_login;
    writeFileSync(opts.credentialsPath, JSON.stringify(creds));

    const second = await startPlatform(opts);
    try {
      expect(second.seeded).toBeUndefined();
      const upgraded = JSON.parse(readFileSync(opts.credentialsPath, 'utf8'));
      expect(upgraded.fixtures.analyst_login.email).toMatch(/^analyst\+2@/);
      // The metrics token stays what the file says: a scraper set up once keeps working.
      expect(upgraded.metrics_token).toBe(creds.metrics_token);
      expect(second.config.metricsToken).toBe(creds.metrics_token);
      const signin = await fetch(`${second.url}/portal/api/signin`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: second.url },
        body: JSON.stringify(upgraded.publishers[0].portal_login),
      });
      expect(signin.status).toBe(200);
      expect(((await signin.json()) as { accounts: Array<{ account_id: string; role: string }> }).accounts).toEqual([
        expect.objectContaining({ account_id: creds.publishers[0].account_id, role: 'owner' }),
      ]);
      expect(JSON.parse(readFileSync(opts.credentialsPath, 'utf8')).publishers[0].keys.live).toBe(key);
      const listed = await fetch(`${second.url}/api/v1/publisher/links/?subid=durable`, { headers: { 'X-API-Key': key } });
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as { data: Array<{ id: string }> }).data.map((l) => l.id)).toEqual([link.id]);
      const clicks = (await (await fetch(`${second.url}/api/v1/publisher/clicks/?deeplink_id=${link.id}`, { headers: { 'X-API-Key': key } })).json()) as {
        data: unknown[];
      };
      expect(clicks.data).toHaveLength(1);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
