/**
 * One contract, every store: the memory limiter, the Redis limiter on one server and on a Redis
 * Cluster (the run's shared six-node cluster) behave the same.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Cluster, Redis } from 'ioredis';
import { loadTestTargets } from '@cw/config';
// Not @cw-tools/testing: that lib builds on this one.
import { createMemoryRateLimiter, createRedisRateLimiter, RateLimitStoreError, type RateLimiter } from './limiter';

const redis = new Redis(loadTestTargets().redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
const cluster = new Cluster(
  inject('redisClusterNodes').map((n) => ({ host: n.split(':')[0]!, port: Number(n.split(':')[1]) })),
  { lazyConnect: true, enableOfflineQueue: false, redisOptions: { maxRetriesPerRequest: 1 } },
);
beforeAll(() => Promise.all([redis.connect(), cluster.connect()]));
afterAll(() => {
  redis.disconnect();
  cluster.disconnect();
});

const stores: Array<[string, () => RateLimiter]> = [
  ['memory', () => createMemoryRateLimiter(`t${randomBytes(4).toString('hex')}`)],
  ['redis', () => createRedisRateLimiter(redis, `t${randomBytes(4).toString('hex')}`)],
  ['redis cluster', () => createRedisRateLimiter(cluster, `t${randomBytes(4).toString('hex')}`)],
];

describe.each(stores)('%s rate limiter', (_name, make) => {
  it('allows exactly the limit per window, then refuses with a reset time', async () => {
    const limiter = make();
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter.consume('products', 'acct_1', 3));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    expect(results[3].resetSeconds).toBeGreaterThanOrEqual(1);
    expect(results[3].resetSeconds).toBeLessThanOrEqual(60);
  });

  it('keeps budgets and keys apart', async () => {
    const limiter = make();
    expect((await limiter.consume('products', 'a', 1)).allowed).toBe(true);
    expect((await limiter.consume('products', 'a', 1)).allowed).toBe(false);
    expect((await limiter.consume('products', 'b', 1)).allowed).toBe(true);
    expect((await limiter.consume('trending', 'a', 1)).allowed).toBe(true);
  });
});

describe('redis rate limiter store failure', () => {
  it('raises a store error, never an unlimited pass', async () => {
    const dead = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    dead.on('error', () => undefined);
    const limiter = createRedisRateLimiter(dead, 'dead');
    await expect(limiter.consume('products', 'a', 60)).rejects.toBeInstanceOf(RateLimitStoreError);
    dead.disconnect();
  });
});
