/** The Redis part of the operator metrics, against a real Redis: a PING's round trip at each scrape, errors counted. */
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOperatorMetrics } from '@cw/runtime';
import { createTestDeps, redisUrl, type TestDeps } from '@cw-tools/testing';

let deps: TestDeps;
let redis: Redis;

beforeAll(async () => {
  deps = await createTestDeps({});
  redis = new Redis(redisUrl(), { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  await redis.connect();
});
afterAll(async () => {
  redis?.disconnect();
  await deps?.close();
});

describe('operator metrics', () => {
  it('report the Redis round trip at each scrape, and -1 when Redis does not answer', async () => {
    const registry = new Registry();
    registerOperatorMetrics(registry, { db: deps.db, models: deps.models, redis });
    const ping = Number(/^redis_ping_seconds (\S+)$/m.exec(await registry.metrics())?.[1]);
    expect(ping).toBeGreaterThan(0);
    redis.disconnect();
    expect(await registry.metrics()).toMatch(/^redis_ping_seconds -1$/m);
    expect(await registry.metrics()).toMatch(/^redis_errors_total \d+$/m);
  });
});
