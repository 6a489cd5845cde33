/**
 * The platform on a real Redis Cluster (three primaries with a replica each, started here from
 * redis-server): rate budgets and the cached principals' access stamps (one MGET over hash-tagged
 * keys: no CROSSSLOT) work through HTTP; an operator CLI revocation on the cluster reaches the
 * very next request; with the primary of the access keys killed, answers are 200, 429 or 503
 * (never the revoked key), and the same app recovers once the replica took over.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '@cw-tools/admin-cli';
import { createTestDeps, startRedisCluster, type PrivateRedisCluster, type TestDeps } from '@cw-tools/testing';
import { createApp as publisherApi } from '@cw/app-publisher-api';

let cluster: PrivateRedisCluster;
let deps: TestDeps;
let api: ReturnType<ReturnType<typeof publisherApi>['callback']>;

beforeAll(async () => {
  cluster = await startRedisCluster({ nodeTimeoutMs: 1000 });
  deps = await createTestDeps({
    seedProducts: 20,
    redisCluster: cluster.nodes,
    env: { RATELIMIT_REPORTING_PER_MIN: '5', RATELIMIT_ACCOUNT_PER_MIN: '100000', RATELIMIT_IP_PER_MIN: '100000' },
  });
  api = publisherApi(deps).callback();
}, 120_000);
afterAll(async () => {
  await deps?.close();
  await cluster?.stop();
});

const me = (key: string) => request(api).get('/api/v1/publisher/me/').set('X-API-Key', key);

describe('on a Redis Cluster', () => {
  it('counts the account budget and answers 429 past it, with the RateLimit headers', async () => {
    const clicks = () => request(api).get('/api/v1/publisher/clicks/').set('X-API-Key', deps.demo!.publishers[1].keys.live);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await clicks()).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect((await clicks()).headers['ratelimit-limit']).toBe('5');
  });

  it('refuses a key revoked with the operator CLI on the very next request, though principals are cached', async () => {
    const issued = await runCli(
      ['key:issue', '--publisher', deps.demo!.publishers[0].account_id, '--kind', 'live', '--json'],
      { MONGODB_URI: deps.tdb.uri, REDIS_CLUSTER_NODES: cluster.nodes.join(',') },
      '/tmp',
    );
    const { id, secret } = JSON.parse(issued.out) as { id: string; secret: string };
    expect((await me(secret)).status).toBe(200);
    expect((await me(secret)).status).toBe(200);
    const revoked = await runCli(
      ['credential:revoke', '--id', id, '--json'],
      { MONGODB_URI: deps.tdb.uri, REDIS_CLUSTER_NODES: cluster.nodes.join(',') },
      '/tmp',
    );
    expect(revoked.code).toBe(0);
    expect((await me(secret)).status).toBe(401);
  });

  it("answers only 200/429/503 while the access keys' primary is down, never lets a revoked key in, and recovers without a restart", async () => {
    const cliEnv = { MONGODB_URI: deps.tdb.uri, REDIS_CLUSTER_NODES: cluster.nodes.join(',') };
    const issued = JSON.parse(
      (await runCli(['key:issue', '--publisher', deps.demo!.publishers[0].account_id, '--kind', 'live', '--json'], cliEnv, '/tmp')).out,
    ) as { id: string; secret: string };
    const live = deps.demo!.publishers[0].keys.live;
    expect((await me(issued.secret)).status).toBe(200);
    expect((await runCli(['credential:revoke', '--id', issued.id, '--json'], cliEnv, '/tmp')).code).toBe(0);
    await cluster.killPrimaryOf('{access}:epoch');
    const seen: number[] = [];
    const until = Date.now() + 6_000;
    while (Date.now() < until) {
      const [a, b] = await Promise.all([me(live), me(issued.secret)]);
      seen.push(a.status);
      expect([200, 429, 503]).toContain(a.status);
      expect([401, 503]).toContain(b.status);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen.length).toBeGreaterThan(10);
    let last = 0;
    for (let i = 0; i < 100 && last !== 200; i++) {
      last = (await me(live)).status;
      if (last !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(last).toBe(200);
    expect((await me(issued.secret)).status).toBe(401);
  }, 60_000);
});
