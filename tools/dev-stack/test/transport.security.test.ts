/**
 * The transport holes an outside probe found, each tried as the probe tried it, through HTTP:
 *
 * - postback targets on loopback or private addresses, in every spelling, with no setting that
 *   allows them (a service run without NODE_ENV=production used to take them: SSRF);
 * - answers a browser could sniff into another type (no nosniff), and HTML pages without a
 *   Content-Security-Policy or frame protection (the API reference pages);
 * - `/metrics` open to whoever reaches a service's port.
 *
 * The headers and /metrics are checked on the one-process platform (every app, the tracker's node
 * route, the probes and the edge as `npm start` serves them); postbacks and a service's own port on
 * the services as deployed (no POSTBACK_ALLOW_INSECURE, no METRICS_TOKEN unless said).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp as trackerApp } from '@cw/app-tracker';
import * as runtime from '@cw/runtime';
import { API_REFERENCES } from '@cw/runtime';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { startPlatform, type Platform } from './support/test-platform';

const METRICS_TOKEN = 'transport-probe-metrics-token-0123';

/** Every spelling of loopback the probe used, and the private and link-local ranges behind them. */
const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]', '2130706433', '0x7f000001', '127.1', '0177.0.0.1', '[::ffff:127.0.0.1]', '0'];
const PRIVATE = ['10.0.0.1', '172.16.0.1', '192.168.1.1', '169.254.169.254', '[fd00::1]', '[fe80::1]', '100.64.0.1'];

describe('postback targets, on a service run without POSTBACK_ALLOW_INSECURE', () => {
  let deps: TestDeps;
  let lifted: TestDeps;
  let receiver: http.Server;
  let received = 0;
  let port = 0;

  beforeAll(async () => {
    deps = await createTestDeps({ seedProducts: 20, env: { RATELIMIT_POSTBACKS_PER_MIN: '100000', RATELIMIT_IP_PER_MIN: '100000' } });
    // The same database with the rule lifted: what a target saved before the setting was turned off looks like.
    lifted = await createTestDeps({ sameDatabaseAs: deps, env: { POSTBACK_ALLOW_INSECURE: 'true', RATELIMIT_POSTBACKS_PER_MIN: '100000' } });
    receiver = http.createServer((_req, res) => {
      received++;
      res.writeHead(204).end();
    });
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    port = (receiver.address() as AddressInfo).port;
  }, 60_000);
  afterAll(async () => {
    await new Promise((ok) => receiver?.close(ok));
    await lifted?.close();
    await deps?.close();
  });

  const save = (d: TestDeps, url: string) =>
    request(publisherApi(d).callback())
      .put('/api/v1/publisher/postback/')
      .set('Authorization', `Bearer ${d.demo!.publishers[0].portal_token}`)
      .send({ url, http_method: 'POST' });

  it('refuses every spelling of loopback and every private address, over http and https, with 400 naming url', async () => {
    const tried: string[] = [];
    for (const host of [...LOOPBACK, ...PRIVATE])
      for (const scheme of ['http', 'https']) {
        const url = `${scheme}://${host}:${port}/hook?e={event}`;
        const res = await save(deps, url);
        expectErrorShape(res, 400, 'invalid_parameter');
        expect(res.body.errors, url).toEqual([expect.objectContaining({ param: 'url' })]);
        tried.push(url);
      }
    expect(tried).toHaveLength(2 * (LOOPBACK.length + PRIVATE.length));
    expect(
      (await request(publisherApi(deps).callback()).get('/api/v1/publisher/postback/').set('X-API-Key', deps.demo!.publishers[0].keys.live)).body,
    ).toMatchObject({ configured: false });
    expect(received).toBe(0);
  });

  it('refuses again at delivery a loopback target saved while the rule was lifted, by its literal address and by the name the connection looks up', async () => {
    const send = () =>
      request(publisherApi(deps).callback()).post('/api/v1/publisher/postback/test/').set('Authorization', `Bearer ${deps.demo!.publishers[0].portal_token}`);
    for (const url of [
      `http://127.0.0.1:${port}/hook`,
      `https://127.0.0.1:${port}/hook`,
      `https://localhost:${port}/hook`,
      `https://2130706433:${port}/hook`,
    ]) {
      expect((await save(lifted, url)).status, url).toBeLessThan(300);
      const res = await send();
      expect(res.status, url).toBe(200);
      expect(res.body, url).toMatchObject({ status: 'failed', last_error: expect.stringMatching(/^refused: /) });
    }
    expect(received).toBe(0);
  });
});

describe('answers of every service, on the one-process platform', () => {
  let platform: Platform;
  let link = '';

  beforeAll(async () => {
    platform = await startPlatform({
      env: { PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'silent', METRICS_TOKEN, RATELIMIT_IP_PER_MIN: '100000' },
      seedProducts: 50,
      credentialsPath: null,
    });
    const created = await fetch(`${platform.url}/api/v1/publisher/links/`, {
      method: 'POST',
      headers: { 'X-API-Key': pub().keys.live, 'Content-Type': 'application/json' },
      body: JSON.stringify({ program_id: platform.credentials!.fixtures.approved_program_id, subid: 'transport' }),
    });
    link = new URL(((await created.json()) as { url: string }).url).pathname;
  }, 120_000);
  afterAll(async () => platform?.stop());

  const pub = () => platform.credentials!.publishers[0];
  const get = (path: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
    fetch(`${platform.url}${path}`, { redirect: 'manual', ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } });

  it('marks every answer nosniff: JSON, CSV, feeds, redirects, errors, 404s and probes of every service', async () => {
    const feed = (await (await get('/api/v1/affiliates/feed/?country=DE&format=csv', { 'X-API-Key': pub().keys.live })).json()) as { url: string };
    const today = new Date().toISOString().slice(0, 10);
    const json = { 'Content-Type': 'application/json' };
    const answers: Array<[string, Response, number | RegExp, RegExp?]> = [
      // publisher-api
      ['publisher-api JSON', await get('/api/v1/publisher/me/', { 'X-API-Key': pub().keys.live }), 200, /json/],
      ['publisher-api 401', await get('/api/v1/publisher/me/'), 401, /json/],
      ['publisher-api 404', await get('/api/v1/publisher/nope/'), 404, /json/],
      ['publisher-api bad JSON', await get('/api/v1/publisher/links/', { 'X-API-Key': pub().keys.live, ...json }, { method: 'POST', body: '{' }), 400, /json/],
      ['publisher-api OpenAPI', await get('/api/v1/publisher/openapi.json'), 200, /json/],
      ['API index JSON', await get('/docs', { Accept: 'application/json' }), 200, /json/],
      // reporting-api
      [
        'reporting-api CSV',
        await get(`/api/v1/affiliate-reporting/sales/export/?date_from=${today}&date_to=${today}`, { Authorization: `Bearer ${pub().reporting_token}` }),
        200,
        /text\/csv/,
      ],
      ['reporting-api 401', await get('/api/v1/affiliate-reporting/sales/'), 401, /json/],
      ['HasOffers envelope', await get('/Apiv3/json?Target=Affiliate_Report&Method=getStats'), /^[24]/],
      // feed-service
      ['feed-service CSV feed', await get(feed.url.slice(platform.config.feedUrl.length)), 200, /text\/csv/],
      ['feed-service XML 403', await get('/api/v1/feeds/products/?account=x&country=DE&format=xml&expires=1&sig=x'), /^4/],
      // monetize-api
      ['monetize-api 400', await get('/api/v1/monetize/links/', json, { method: 'POST', body: '{' }), 400, /json/],
      ['monetize-api 404', await get('/api/v1/monetize/nope/'), 404, /json/],
      // mcp-server
      [
        'mcp-server JSON-RPC',
        await get(
          '/api/v1/mcp/',
          { ...json, Accept: 'application/json, text/event-stream' },
          {
            method: 'POST',
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'initialize',
              params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
            }),
          },
        ),
        200,
      ],
      ['mcp-server 404', await get('/api/v1/mcp/nope'), 404, /json/],
      // tracker: Koa's redirect (first sight of the code), the node route's (cached), an unknown code, the intake's 401
      ['tracker redirect (Koa)', await get(link), 302],
      ['tracker redirect (node route)', await get(link), 302],
      ['tracker HEAD redirect', await get(link, {}, { method: 'HEAD' }), 302],
      ['tracker 404', await get('/c/nosuchcode'), 404, /json/],
      ['tracker 401', await get('/api/v1/track/conversions/', json, { method: 'POST', body: '{}' }), 401, /json/],
      // portal
      ['portal API 401', await get('/portal/api/session'), /^4/, /json/],
      ['portal page redirect', await get('/dashboard', { Accept: 'text/html' }), 302],
      // the edge, the probes
      ['platform 404', await get('/elsewhere'), 404, /json/],
      ['healthz', await get('/healthz'), 200, /json/],
      ['readyz', await get('/readyz'), 200, /json/],
      ['metrics 401', await get('/metrics'), 401, /json/],
      ['metrics', await get('/metrics', { Authorization: `Bearer ${METRICS_TOKEN}` }), 200, /text\/plain/],
    ];
    const missing: string[] = [];
    const unexpected: string[] = [];
    for (const [name, res, status, type] of answers) {
      if (res.headers.get('x-content-type-options') !== 'nosniff') missing.push(`${name} (${res.status})`);
      const statusOk = typeof status === 'number' ? res.status === status : status.test(String(res.status));
      if (!statusOk || (type && !type.test(res.headers.get('content-type') ?? '')))
        unexpected.push(`${name}: ${res.status} ${res.headers.get('content-type')}`);
      await res.body?.cancel();
    }
    expect(missing).toEqual([]);
    // Each answer is the kind it stands for (a CSV really is the export, a 302 the redirect).
    expect(unexpected).toEqual([]);
    expect(answers).toHaveLength(27);
  });

  it('gives every API reference page, and every other HTML answer, a policy, frame protection and no referrer, and Redoc still what it needs', async () => {
    const pages = ['/docs', ...API_REFERENCES.map((r) => `${r.prefix}/docs`)];
    const html: Array<[string, Response]> = [];
    for (const path of pages) html.push([path, await get(path, { Accept: 'text/html' })]);
    html.push(['/signin', await get('/signin', { Accept: 'text/html' })]);
    for (const [path, res] of html) {
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      const csp = res.headers.get('content-security-policy') ?? '';
      const directive = (name: string) =>
        csp
          .split(';')
          .map((d) => d.trim())
          .find((d) => d.startsWith(`${name} `));
      expect(directive('frame-ancestors'), path).toBe("frame-ancestors 'none'");
      expect(directive('default-src'), path).toBe("default-src 'self'");
      expect(directive('object-src'), path).toBe("object-src 'none'");
      expect(directive('base-uri'), path).toBe("base-uri 'none'");
      // Scripts: own origin and, for Redoc's start script, its hash; never inline at large or eval.
      expect(directive('script-src'), path).toMatch(/^script-src 'self'( 'sha256-[A-Za-z0-9+/]+=*')?$/);
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
      await res.body?.cancel();
    }
  });
});

describe("a service's own port", () => {
  let deps: TestDeps;

  beforeAll(async () => {
    deps = await createTestDeps({});
  });
  afterAll(async () => deps?.close());

  /** The listener runHttpService serves a service with (node routes, probes, Koa), on these deps and config. */
  const listener = (config: TestDeps['config']) => {
    const serve = (runtime as unknown as Record<string, unknown>).serviceListener as typeof runtime.serviceListener | undefined;
    if (!serve) throw new Error('@cw/runtime has no serviceListener: a service serves /metrics as it pleases');
    return serve(trackerApp({ ...deps, config }), { config, metrics: deps.metrics, checks: [] });
  };

  it('does not serve /metrics at all without METRICS_TOKEN: 404 in the error shape, like any unknown path', async () => {
    const res = await request(listener(deps.config)).get('/metrics');
    expectErrorShape(res, 404, 'not_found');
    expect(res.text).not.toContain('http_requests_total');
  });

  it('serves /metrics with METRICS_TOKEN only to the bearer of that token', async () => {
    const serve = listener({ ...deps.config, metricsToken: METRICS_TOKEN });
    const refused: string[] = [];
    for (const authorization of [
      undefined,
      'Bearer ',
      `Bearer ${METRICS_TOKEN.slice(0, -1)}`,
      `Bearer ${METRICS_TOKEN}x`,
      METRICS_TOKEN,
      `Basic ${METRICS_TOKEN}`,
    ]) {
      const r = request(serve).get('/metrics');
      const res = await (authorization === undefined ? r : r.set('Authorization', authorization));
      expect(res.status, authorization).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.text).not.toContain('http_requests_total');
      refused.push(String(authorization));
    }
    expect(refused).toHaveLength(6);
    const served = await request(serve).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(served.status).toBe(200);
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.text).toContain('# TYPE');
  });
});
