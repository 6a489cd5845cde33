/**
 * The Redis part of the operator metrics, against a real Redis and the run's Redis Cluster: a
 * PING's round trip at each scrape, errors counted.
 */
import { Cluster, Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadTestTargets } from '@cw/config';
import { eventsFeedDomain, type EventsFeedData } from '@cw/events-feed';
import { postbacksDomain, type PostbacksData } from '@cw/postbacks';
import { openDomain, startTestDatabase, type TestDatabase } from '@cw-tools/test-engine';
import { registerOperatorMetrics } from './operator-metrics';

// Not @cw-tools/testing: it builds on this lib. The metrics read the database's pool and two domains.
let engine: TestDatabase;
let data: { eventsFeed: EventsFeedData; postbacks: PostbacksData };

beforeAll(async () => {
  engine = await startTestDatabase();
  data = { eventsFeed: await openDomain(engine, eventsFeedDomain), postbacks: await openDomain(engine, postbacksDomain) };
}, 60_000);
afterAll(() => engine?.stop());
const redisUrl = () => loadTestTargets().redisUrl;

const clients = {
  redis: () => new Redis(redisUrl(), { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false }),
  'redis cluster': () =>
    new Cluster(
      inject('redisClusterNodes').map((n) => ({ host: n.split(':')[0]!, port: Number(n.split(':')[1]) })),
      { lazyConnect: true, enableOfflineQueue: false, redisOptions: { maxRetriesPerRequest: 1 } },
    ),
};

describe.each(Object.keys(clients) as Array<keyof typeof clients>)('operator metrics (%s)', (kind) => {
  it('report the Redis round trip at each scrape, and -1 when Redis does not answer', async () => {
    const redis = clients[kind]();
    await redis.connect();
    const registry = new Registry();
    registerOperatorMetrics(registry, { db: engine.db, data, redis });
    const ping = Number(/^redis_ping_seconds (\S+)$/m.exec(await registry.metrics())?.[1]);
    expect(ping).toBeGreaterThan(0);
    redis.disconnect();
    expect(await registry.metrics()).toMatch(/^redis_ping_seconds -1$/m);
    expect(await registry.metrics()).toMatch(/^redis_errors_total \d+$/m);
  });
});
