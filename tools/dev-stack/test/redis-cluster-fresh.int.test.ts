/**
 * The local platform on a Redis Cluster created a moment before (its replicas maybe still
 * syncing): seeding waits for a replica to acknowledge writes instead of failing on the first
 * access bump no replica acknowledged. And on a cluster without replicas the wait says so in time.
 * A cluster whose state is not ok yet at the first connection is waited for (ioredis's own
 * `connect()` never settles then), and one that stays so is reported in time.
 */
import { Cluster } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisAccessVersions } from '@cw/auth';
import { openRedis } from '@cw/ratelimit';
import { startRedisCluster, type PrivateRedisCluster } from '@cw-tools/testing';
import { startPlatform, type Platform } from './support/test-platform';

const clusters: PrivateRedisCluster[] = [];
const nodesOf = (cluster: PrivateRedisCluster) => cluster.nodes.map((n) => ({ host: n.split(':')[0]!, port: Number(n.split(':')[1]) }));
let platform: Platform | undefined;
afterAll(async () => {
  await platform?.stop();
  for (const c of clusters) await c.stop();
});

describe('a Redis Cluster created a moment before', () => {
  it('the platform starts and seeds on it, and an access change right after is announced', async () => {
    // Replicas that sync only 10 s after the cluster is made: the seed's first access bumps come before.
    const cluster = await startRedisCluster({ waitForSync: false, syncDelaySeconds: 10 });
    clusters.push(cluster);
    const said: string[] = [];
    platform = await startPlatform({
      env: { PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_CLUSTER_NODES: cluster.nodes.join(',') },
      seedProducts: 20,
      credentialsPath: null,
      say: (m) => said.push(m),
    });
    expect(platform.seeded?.products).toBeGreaterThan(0);
    const pub = platform.credentials!.publishers[0]!;
    const me = await fetch(`${platform.url}/api/v1/publisher/me/`, { headers: { 'X-API-Key': pub.keys.live } });
    expect(me.status).toBe(200);
    expect(said.filter((m) => m.includes('no Redis replica acknowledged'))).toEqual([]);
    // A whole platform start plus a 10 s sync delay: on a loaded two-core machine (the full suite
    // running beside it) this has taken over 120 s with nothing wrong.
  }, 300_000);

  it('without replicas, waiting for one gives up after its time and answers false', async () => {
    const cluster = await startRedisCluster({ replicas: 0 });
    clusters.push(cluster);
    const client = new Cluster(nodesOf(cluster), { redisOptions: { maxRetriesPerRequest: 1 } });
    try {
      const waits: string[] = [];
      const started = Date.now();
      expect(await new RedisAccessVersions(client, 'fresh', { waitMs: 100 }).awaitReplicas(1_000, (m) => waits.push(m))).toBe(false);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      expect(waits).toHaveLength(1);
    } finally {
      client.disconnect();
    }
  }, 60_000);

  it('a cluster whose state is not ok at the first connection is waited for; one that stays so is reported', async () => {
    const cluster = await startRedisCluster({ replicas: 0 });
    clusters.push(cluster);
    const config = { redisClusterNodes: nodesOf(cluster) };
    const ignore = () => {};
    let restore = await cluster.uncoverSlots(12_000, 16_383);
    const opening = openRedis(config, ignore);
    await new Promise((r) => setTimeout(r, 1_500));
    await restore();
    const client = (await opening)!;
    try {
      await client.set('fresh:{a}', 'kept');
      expect(await client.get('fresh:{a}')).toBe('kept');
    } finally {
      client.disconnect();
    }

    restore = await cluster.uncoverSlots(0, 99);
    await expect(openRedis(config, ignore, 1_000)).rejects.toThrow(/did not become ready in 1 s/);
    await restore();
  }, 60_000);
});
