/**
 * Rate limits and dependency outages on the publisher API, with the Redis limiter against a real
 * Redis: one budget per account shared by search, lookup and both auth headers; a per-address
 * budget before the key is looked at; 503 (never an unlimited pass or an untracked link) when the
 * limiter store or the catalog is down.
 */
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret, rotateCredential } from '@cw/auth';
import { connectDatabase } from '@cw/db';
import { openPlatformData } from '@cw/runtime';
import { createRedisRateLimiter } from '@cw/ratelimit';
import { createTestDeps, expectErrorShape, expectStandardHeaders, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

const B = '/api/v1/publisher';
type Server = ReturnType<ReturnType<typeof createApp>['callback']>;

describe('per-account budget (Redis limiter)', () => {
  let deps: TestDeps;
  let server: Server;
  beforeAll(async () => {
    deps = await createTestDeps({ seedProducts: 30, redis: true, env: { RATELIMIT_PRODUCTS_PER_MIN: '4' } });
    server = createApp(deps).callback();
  });
  afterAll(async () => deps?.close());

  it('shares one budget between search, lookup and both auth headers, then answers 429 with Retry-After', async () => {
    const pub = deps.demo!.publishers[0];
    const key = pub.keys.live;
    const country = deps.demo!.fixtures.country;
    const a = await request(server).get(`${B}/products/?country=${country}`).set('X-API-Key', key);
    expect(a.status).toBe(200);
    expect(a.headers).toMatchObject({ 'ratelimit-limit': '4', 'ratelimit-remaining': '3', 'ratelimit-policy': '4;w=60' });
    const b = await request(server).get(`${B}/products/lookup/?gtins=${deps.demo!.fixtures.gtin_leading_zero}`).set('Authorization', `Bearer ${key}`);
    expect(b.headers['ratelimit-remaining']).toBe('2');
    // Another key of the same account draws on the same budget.
    const c = await request(server).get(`${B}/products/?country=${country}`).set('X-API-Key', pub.keys.test);
    expect(c.headers['ratelimit-remaining']).toBe('1');
    await request(server).get(`${B}/products/?country=${country}`).set('Authorization', `Bearer ${key}`);
    const limited = await request(server).get(`${B}/products/lookup/?gtins=${deps.demo!.fixtures.gtin_leading_zero}`).set('X-API-Key', key);
    expectErrorShape(limited, 429, 'rate_limited');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    const retry = Number(limited.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(Number(limited.headers['ratelimit-reset'])).toBe(retry);
    expect(limited.body.products).toBeUndefined();

    // A rotated key keeps the account's (spent) budget; another account is unaffected.
    const cred = await deps.models.Credential.findOne({ hash: hashSecret(key) }).lean();
    const rotated = await rotateCredential(deps.data.auth, String(cred!._id));
    expectErrorShape(await request(server).get(`${B}/products/?country=${country}`).set('X-API-Key', rotated.secret), 429, 'rate_limited');
    expectErrorShape(await request(server).get(`${B}/products/?country=${country}`).set('X-API-Key', key), 401, 'not_authenticated');
    const other = await request(server).get(`${B}/products/?country=${country}`).set('X-API-Key', deps.demo!.publishers[1].keys.live);
    expect(other.status).toBe(200);
    expect(other.headers['ratelimit-remaining']).toBe('3');
  });

  it('keeps the account budget in Redis, so a second process sees the same count', async () => {
    const key = deps.demo!.publishers[1].keys.live;
    const second = createApp(deps).callback(); // same Redis, same key prefix: another instance
    const res = await request(second).get(`${B}/products/?country=DE`).set('X-API-Key', key);
    expect(res.headers['ratelimit-remaining']).toBe('2');
  });
});

describe('per-address budget', () => {
  let deps: TestDeps;
  let server: Server;
  beforeAll(async () => {
    deps = await createTestDeps({ seedProducts: 10, redis: true, env: { RATELIMIT_IP_PER_MIN: '3' } });
    server = createApp(deps).callback();
  });
  afterAll(async () => deps?.close());

  it('limits a client address before the key is looked at', async () => {
    for (let i = 0; i < 3; i++)
      expectErrorShape(await request(server).get(`${B}/products/?country=DE`).set('X-API-Key', `live_guess${i}aaaaaaaaaaaaaaaaaaaa`), 401);
    const res = await request(server).get(`${B}/products/?country=DE`).set('X-API-Key', deps.demo!.publishers[0].keys.live);
    expectErrorShape(res, 429, 'rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('dependency outages', () => {
  it('answers 503 service_unavailable, with the standard headers, when the limiter store is down', async () => {
    const deps = await createTestDeps({ seedProducts: 10 });
    const dead = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      const server = createApp({ ...deps, limiter: createRedisRateLimiter(dead, 'dead') }).callback();
      const res = await request(server).get(`${B}/products/?country=DE`).set('X-API-Key', deps.demo!.publishers[0].keys.live);
      expectErrorShape(res, 503, 'service_unavailable');
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body.products).toBeUndefined();
    } finally {
      dead.disconnect();
      await deps.close();
    }
  });

  it('answers 503 when a catalog query runs over its time budget (CATALOG_QUERY_TIMEOUT_MS)', async () => {
    const deps = await createTestDeps({ seedProducts: 20_000, env: { CATALOG_QUERY_TIMEOUT_MS: '1' } });
    try {
      const server = createApp(deps).callback();
      const key = deps.demo!.publishers[0].keys.live;
      const res = await request(server)
        .get(`${B}/products/?q=${encodeURIComponent('no product is called this')}&group=1`)
        .set('X-API-Key', key);
      expectErrorShape(res, 503, 'service_unavailable');
      expect(res.body.products).toBeUndefined();
    } finally {
      await deps.close();
    }
  });

  it('bounds every read a request makes by REQUEST_QUERY_TIMEOUT_MS (maxTimeMS), answering 503 over it; background connections have none', async () => {
    const deps = await createTestDeps({ seedProducts: 10, env: { REQUEST_QUERY_TIMEOUT_MS: '1' } });
    try {
      const server = createApp(deps).callback();
      const caller = deps.demo!.publishers[0];
      // An account with 30,000 conversions: with updated_since (which the stats read model does not
      // key) the list's sub-ID rollup reads every one of them.
      const [base] = await deps.models.Conversion.find({ publisher_id: caller.account_id }).limit(1).lean();
      await deps.models.Conversion.collection.insertMany(Array.from({ length: 30_000 }, (_, i) => ({ ...base, _id: `cv_budget_${i}` }) as never));
      const sent: Array<{ collection: string; maxTimeMS?: number }> = [];
      deps.db.connection.set('debug', (collection: string, method: string, ...args: unknown[]) => {
        const options = args[1] as { maxTimeMS?: number } | undefined; // (filter or pipeline, options)
        sent.push({ collection, maxTimeMS: options?.maxTimeMS });
      });
      const res = await request(server).get(`${B}/conversions/?page_size=1&updated_since=2000-01-01T00:00:00Z`).set('X-API-Key', caller.keys.live);
      expectErrorShape(res, 503, 'service_unavailable');
      expect(sent.filter((c) => c.collection === deps.models.Conversion.collection.collectionName).every((c) => c.maxTimeMS === 1)).toBe(true);
      // Background work (the worker, a job, the CLI) reads through a connection of its own: the same read has no budget and completes.
      const background = await connectDatabase(deps.tdb.uri);
      try {
        sent.length = 0;
        background.connection.set('debug', (collection: string, _method: string, ...args: unknown[]) => {
          sent.push({ collection, maxTimeMS: (args[1] as { maxTimeMS?: number } | undefined)?.maxTimeMS });
        });
        const { models } = openPlatformData(background.connection);
        expect(await models.Conversion.countDocuments({ publisher_id: caller.account_id })).toBeGreaterThan(30_000);
        expect(sent.map((c) => c.maxTimeMS)).toEqual([undefined]);
      } finally {
        await background.close();
      }
    } finally {
      await deps.close();
    }
  });

  it('answers 503 service_unavailable when the catalog database goes away, and never an untracked link', async () => {
    const deps = await createTestDeps({ seedProducts: 10, ownEngine: true, serverSelectionTimeoutMS: 300 });
    try {
      const server = createApp(deps).callback();
      const key = deps.demo!.publishers[0].keys.live;
      expect((await request(server).get(`${B}/products/?country=DE`).set('X-API-Key', key)).status).toBe(200);
      await deps.tdb.embedded!.stop();
      for (const path of ['/products/?country=DE', `/products/lookup/?gtins=${deps.demo!.fixtures.gtin_leading_zero}`, '/me/']) {
        const res = await request(server).get(`${B}${path}`).set('X-API-Key', key);
        expectErrorShape(res, 503, 'service_unavailable');
        expect(res.headers['retry-after']).toBeDefined();
        expectStandardHeaders(res);
      }
    } finally {
      await deps.close();
    }
  });
});
