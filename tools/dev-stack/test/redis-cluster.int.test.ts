/**
 * The platform on a real Redis Cluster (three primaries with a replica each, started here from
 * redis-server): rate budgets and the cached principals' access stamps (one MGET over hash-tagged
 * keys: no CROSSSLOT) work through HTTP, and an operator CLI revocation on the cluster reaches the
 * very next request.
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
  deps = await createTestDeps({ seedProducts: 20, redisCluster: cluster.nodes, env: { RATELIMIT_REPORTING_PER_MIN: '5', RATELIMIT_ACCOUNT_PER_MIN: '100000', RATELIMIT_IP_PER_MIN: '100000' } });
  api = publisherApi(deps).callback();
}, 120_000);
afterAll(async () => {
  await deps?.close();
  await cluster?.stop();
});

const me = (key: string) => request(api).get('/api/v1/publisher/me/').set('X-API-Key', key);

describe('on a Redis Cluster', () => {
  it('counts the account budget and answers 429 past it, with the RateLimit headers', async () => {
    const clicks = () => request(api).get('/api/v1/publisher/clicks/').set('X-API-Key', deps.data!.publishers[1].keys.live);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await clicks()).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect((await clicks()).headers['ratelimit-limit']).toBe('5');
  });

  it('refuses a key revoked with the operator CLI on the very next request, though principals are cached', async () => {
    const issued = await runCli(['key:issue', '--publisher', deps.data!.publishers[0].account_id, '--kind', 'live', '--json'], { MONGODB_URI: deps.tdb.uri, REDIS_CLUSTER_NODES: cluster.nodes.join(',') }, '/tmp');
    const { id, secret } = JSON.parse(issued.out) as { id: string; secret: string };
    expect((await me(secret)).status).toBe(200);
    expect((await me(secret)).status).toBe(200);
    const revoked = await runCli(['credential:revoke', '--id', id, '--json'], { MONGODB_URI: deps.tdb.uri, REDIS_CLUSTER_NODES: cluster.nodes.join(',') }, '/tmp');
    expect(revoked.code).toBe(0);
    expect((await me(secret)).status).toBe(401);
  });
});
