/**
 * The lib's service app through HTTP (supertest). Not @cw-tools/testing, which builds on libs that
 * build on this one: the one error body is checked by `expectErrorShape` below.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import request, { type Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@cw/logging';
import { createMemoryRateLimiter } from '@cw/ratelimit';
import { buildOpenApi, buildRouter, createServiceApp, mountRouter, type RouteSpec } from '../src/index';

/** The one error body, with X-Request-Id matching request_id and the four RateLimit headers. */
function expectErrorShape(res: Response, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/application\/json/);
  expect(typeof res.body.detail).toBe('string');
  expect(res.body.detail.length).toBeGreaterThan(0);
  expect(res.body.code).toBe(code);
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
  expect(res.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
  for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy']) expect(res.headers[h], h).toBeDefined();
}

const logLines: string[] = [];
const logger = createLogger({ destination: new Writable({ write: (c, _e, cb) => (logLines.push(String(c)), cb()) }) });

const routes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/items',
    operationId: 'listItems',
    summary: 'List',
    query: { properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 }, q: { type: 'string', minLength: 3 } } },
    responses: { 200: { description: 'ok' } },
    handler: (ctx, { query }) => {
      ctx.body = { query };
    },
  },
  {
    method: 'POST',
    path: '/items',
    operationId: 'createItem',
    summary: 'Create',
    body: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
    responses: { 201: { description: 'created' } },
    handler: (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = body;
    },
  },
  {
    method: 'GET',
    path: '/boom',
    operationId: 'boom',
    summary: 'Fails',
    responses: { 200: { description: 'never' } },
    handler: () => {
      throw new Error('database password=hunter2 exploded');
    },
  },
];

function app(ipLimit = 1000) {
  const a = createServiceApp({ name: 'test', logger, limiter: createMemoryRateLimiter(`t${Math.random()}`), ipLimit });
  mountRouter(a, buildRouter('/api', routes));
  return a.callback();
}

describe('service app kit', () => {
  const server = app();

  it('validates and coerces query parameters, with defaults', async () => {
    const res = await request(server).get('/api/items?limit=5&q=shoe');
    expect(res.status).toBe(200);
    expect(res.body.query).toEqual({ limit: 5, q: 'shoe' });
    expect((await request(server).get('/api/items')).body.query).toEqual({ limit: 20 });
  });

  it('accepts paths with and without the trailing slash, without redirecting', async () => {
    expect((await request(server).get('/api/items/')).status).toBe(200);
    expect((await request(server).get('/api/items')).status).toBe(200);
  });

  it('rejects unknown, repeated, empty and out-of-bounds parameters, naming them', async () => {
    const unknown = await request(server).get('/api/items?colour=red');
    expectErrorShape(unknown, 400, 'unknown_parameter');
    expect(unknown.body.errors).toEqual([{ param: 'colour', detail: 'is not a known parameter' }]);
    expectErrorShape(await request(server).get('/api/items?limit=1&limit=2'), 400, 'repeated_parameter');
    expectErrorShape(await request(server).get('/api/items?limit='), 400, 'invalid_parameter');
    const big = await request(server).get('/api/items?limit=101');
    expectErrorShape(big, 400, 'invalid_parameter');
    expect(big.body.errors[0].param).toBe('limit');
    expectErrorShape(await request(server).get('/api/items?limit=abc'), 400, 'invalid_parameter');
    expectErrorShape(await request(server).get('/api/items?limit=2.5'), 400, 'invalid_parameter');
  });

  it('answers malformed JSON, non-JSON bodies, oversized bodies and invalid bodies with clear 4xx', async () => {
    expectErrorShape(await request(server).post('/api/items').set('Content-Type', 'application/json').send('{"name":'), 400, 'invalid_json');
    expectErrorShape(await request(server).post('/api/items').set('Content-Type', 'text/plain').send('name=x'), 415, 'unsupported_media_type');
    expectErrorShape(
      await request(server)
        .post('/api/items')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ name: 'x'.repeat(2_000_000) })),
      413,
      'payload_too_large',
    );
    const missing = await request(server).post('/api/items').send({});
    expectErrorShape(missing, 400, 'invalid_parameter');
    expect(missing.body.errors).toEqual([{ param: 'name', detail: 'is required' }]);
    expectErrorShape(await request(server).post('/api/items').send({ name: 'a', extra: 1 }), 400, 'unknown_parameter');
    expect((await request(server).post('/api/items').send({ name: 'a' })).status).toBe(201);
  });

  it('answers other methods with 405 and an Allow header', async () => {
    const res = await request(server).delete('/api/items');
    expectErrorShape(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toContain('GET');
  });

  it('turns an unexpected error into a generic logged 500 without leaking its message', async () => {
    const res = await request(server).get('/api/boom');
    expectErrorShape(res, 500, 'internal_error');
    expect(JSON.stringify(res.body)).not.toContain('hunter2');
    expect(logLines.join('')).toContain(res.body.request_id);
  });

  it('limits per client address before anything else, with Retry-After on 429', async () => {
    const limited = app(2);
    await request(limited).get('/api/items');
    await request(limited).get('/api/items');
    const res = await request(limited).get('/nowhere');
    expectErrorShape(res, 429, 'rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers['ratelimit-remaining']).toBe('0');
  });

  it('answers a request target over 8 KiB with 414 in the error shape, counted against the address budget', async () => {
    const a = app();
    const long = await request(a).get(`/api/items?q=${'x'.repeat(8_200)}`);
    expectErrorShape(long, 414, 'uri_too_long');
    expect(long.headers['ratelimit-limit']).toBeDefined();
    expect((await request(a).get(`/api/items?q=${'x'.repeat(8_000)}`)).status).toBe(200);
  });
});

describe('protocol abuse', () => {
  it('refuses a thousand unknown query parameters with 400 naming one (10,000 are over the 16 KiB header bound: 431, see libs/platform/runtime)', async () => {
    const many = Array.from({ length: 1_000 }, (_, i) => `p${i}=1`).join('&');
    expectErrorShape(await request(app()).get(`/api/items?${many}`), 400, 'unknown_parameter');
  });

  it('answers JSON nested 200,000 deep with a 4xx, not a crash', async () => {
    const res = await request(app())
      .post('/api/items')
      .set('Content-Type', 'application/json')
      .send(`${'['.repeat(200_000)}${']'.repeat(200_000)}`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.code).toEqual(expect.any(String));
  });

  it('refuses a compressed body that inflates past 1 MB (a gzip bomb: 200 MB in 200 KB) with 413, without holding it in memory', async () => {
    const handler = app();
    const server = http.createServer((req, res) => void handler(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024));
      const before = process.memoryUsage().rss;
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/items`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: bomb,
      });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { code: string }).code).toBe('payload_too_large');
      expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
    } finally {
      server.close();
    }
  });
});

describe('OpenAPI document', () => {
  it('describes every route with its parameters, bodies and the error schema', () => {
    const doc = buildOpenApi({
      title: 'T',
      version: '1',
      description: 'd',
      serverUrl: 'http://x',
      securitySchemes: {},
      groups: [{ prefix: '/api', routes }],
    }) as {
      openapi: string;
      paths: Record<string, Record<string, { parameters: Array<{ name: string }>; requestBody?: unknown }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(['/api/items/', '/api/boom/']);
    expect(doc.paths['/api/items/'].get.parameters.map((p) => p.name)).toEqual(['limit', 'q']);
    expect(doc.paths['/api/items/'].post.requestBody).toBeDefined();
  });
});
