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
import { BatchedCounter } from './batched-counter';

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

const stores: Array<[string, (windowSeconds?: number) => RateLimiter]> = [
  ['memory', (windowSeconds) => createMemoryRateLimiter(`t${randomBytes(4).toString('hex')}`, { windowSeconds })],
  ['redis', (windowSeconds) => createRedisRateLimiter(redis, `t${randomBytes(4).toString('hex')}`, { windowSeconds })],
  ['redis cluster', (windowSeconds) => createRedisRateLimiter(cluster, `t${randomBytes(4).toString('hex')}`, { windowSeconds })],
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

  it('keeps a shortened window when a test asks for one (windowSeconds), and says so in its results', async () => {
    const short = make(1);
    expect(short.windowSeconds).toBe(1);
    expect((await short.consume('offers', 'a', 1)).allowed).toBe(true);
    const refused = await short.consume('offers', 'a', 1);
    expect(refused).toMatchObject({ allowed: false, resetSeconds: 1, windowSeconds: 1 });
    // Waited for a condition: the next window lets the key in again.
    let again = refused;
    for (let i = 0; i < 100 && !again.allowed; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await short.consume('offers', 'a', 1);
    }
    expect(again.allowed).toBe(true);
    expect((await make().consume('offers', 'a', 1)).windowSeconds).toBe(60);
  });

  it('keeps budgets and keys apart', async () => {
    const limiter = make();
    expect((await limiter.consume('products', 'a', 1)).allowed).toBe(true);
    expect((await limiter.consume('products', 'a', 1)).allowed).toBe(false);
    expect((await limiter.consume('products', 'b', 1)).allowed).toBe(true);
    expect((await limiter.consume('trending', 'a', 1)).allowed).toBe(true);
  });

  it('keeps tallies the caller counts, takes points back and forgets them, never refusing', async () => {
    const limiter = make();
    const failures = limiter.tally('signinFailures', 7200);
    expect(await failures.get('acct:1')).toBe(0);
    for (let i = 1; i <= 5; i++) expect(await failures.add('acct:1')).toBe(i);
    expect(await failures.add('acct:1', -1)).toBe(4);
    expect(await failures.add('acct:1', 3)).toBe(7);
    expect(await failures.get('acct:1')).toBe(7);
    expect(await failures.get('acct:2')).toBe(0);
    expect(await limiter.tally('otherTally', 7200).get('acct:1')).toBe(0);
    await failures.delete('acct:1');
    expect(await failures.get('acct:1')).toBe(0);
  });
});

describe.each(stores)('%s: hits counted in batches (BatchedCounter)', (_name, make) => {
  it('answers each hit at once, exactly within the process, and every hit reaches the store', async () => {
    const limiter = make();
    const counter = new BatchedCounter(limiter, 'ip', 5, { flushMs: 60_000 });
    const first = [1, 2, 3].map(() => counter.hit('addr'));
    expect(first.map((r) => [r.allowed, r.remaining])).toEqual([
      [true, 4],
      [true, 3],
      [true, 2],
    ]);
    expect(first[0]!.resetSeconds).toBe(60);
    await counter.flush();
    // The store holds the three hits: another process sees them.
    expect(await limiter.consume('ip', 'addr', 5)).toMatchObject({ allowed: true, remaining: 1 });
    // And this process sees the other's hit after its next batch.
    const fifth = counter.hit('addr');
    expect([fifth.allowed, fifth.remaining]).toEqual([true, 1]);
    await counter.flush();
    const sixth = counter.hit('addr');
    expect([sixth.allowed, sixth.remaining]).toEqual([false, 0]);
    expect(sixth.resetSeconds).toBeLessThanOrEqual(60);
    await counter.close();
    expect((await limiter.consume('ip', 'addr', 5)).allowed).toBe(false);
    expect(counter.hit('other')).toMatchObject({ allowed: true, remaining: 4 });
  });

  it('bounds the keys it keeps: beyond maxKeys an idle key under its limit is forgotten, and counted from the store again', async () => {
    const limiter = make();
    const counter = new BatchedCounter(limiter, 'ip', 5, { flushMs: 60_000, maxKeys: 1 });
    counter.hit('first');
    counter.hit('second');
    await counter.flush();
    // One of the two was forgotten: it answers from its own hits alone until its next batch answers...
    const again = [counter.hit('first'), counter.hit('second')];
    expect(again.map((r) => r.remaining).sort()).toEqual([3, 4]);
    await counter.close();
    // ...and nothing it counted was lost: the store holds both hits of each.
    expect((await limiter.consume('ip', 'first', 5)).remaining).toBe(2);
    expect((await limiter.consume('ip', 'second', 5)).remaining).toBe(2);
  });

  it('keeps a key over its limit flagged across batches until its window ends', async () => {
    const limiter = make();
    const counter = new BatchedCounter(limiter, 'ip', 2, { flushMs: 60_000 });
    for (let i = 0; i < 3; i++) counter.hit('busy');
    await counter.flush();
    expect(counter.hit('busy').allowed).toBe(false);
    await counter.flush();
    expect(counter.hit('busy').allowed).toBe(false);
    await counter.flush();
    // Past the window's end the count starts again.
    expect(counter.hit('busy', Date.now() + 61_000)).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 60 });
    await counter.close();
  });
});

describe('redis rate limiter store failure', () => {
  it('a batch the store refuses is kept and sent with the next one: no hit is lost', async () => {
    let down = true;
    const redisLimiter = createRedisRateLimiter(redis, `t${randomBytes(4).toString('hex')}`);
    const flaky: RateLimiter = {
      windowSeconds: redisLimiter.windowSeconds,
      consume: (...args) => (down ? Promise.reject(new RateLimitStoreError(new Error('connection refused'))) : redisLimiter.consume(...args)),
      tally: (...args) => redisLimiter.tally(...args),
    };
    const errors: Error[] = [];
    const counter = new BatchedCounter(flaky, 'ip', 100, { flushMs: 60_000, onStoreError: (e) => errors.push(e) });
    for (let i = 0; i < 4; i++) counter.hit('addr');
    await counter.flush();
    expect(errors).toHaveLength(1);
    expect(counter.hit('addr').remaining).toBe(95);
    down = false;
    await counter.flush();
    expect(await redisLimiter.consume('ip', 'addr', 100)).toMatchObject({ remaining: 94 });
    await counter.close();
  });

  it('raises a store error, never an unlimited pass', async () => {
    const dead = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    dead.on('error', () => undefined);
    const limiter = createRedisRateLimiter(dead, 'dead');
    await expect(limiter.consume('products', 'a', 60)).rejects.toBeInstanceOf(RateLimitStoreError);
    await expect(limiter.tally('signinFailures', 60).add('a')).rejects.toBeInstanceOf(RateLimitStoreError);
    dead.disconnect();
  });
});
