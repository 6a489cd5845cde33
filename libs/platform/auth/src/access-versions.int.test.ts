import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadTestTargets } from '@cw/config';
import { MemoryAccessVersions, RedisAccessVersions, type AccessVersions } from './access-versions';

let redis: Redis;
// The run's shared Redis Cluster: every key of a stamp in one slot, so MGET and a bump's pipeline work.
let cluster: Cluster;
beforeAll(async () => {
  redis = new Redis(loadTestTargets().redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  cluster = new Cluster(
    inject('redisClusterNodes').map((n) => ({ host: n.split(':')[0]!, port: Number(n.split(':')[1]) })),
    { lazyConnect: true, redisOptions: { maxRetriesPerRequest: 1 } },
  );
  await Promise.all([redis.connect(), cluster.connect()]);
});
afterAll(() => {
  redis?.disconnect();
  cluster?.disconnect();
});

const KINDS = ['redis', 'redis cluster', 'memory'] as const;
const versionsOf = (kind: (typeof KINDS)[number]): AccessVersions =>
  kind === 'memory' ? new MemoryAccessVersions() : new RedisAccessVersions(kind === 'redis' ? redis : cluster, `t_${randomBytes(4).toString('hex')}`);

async function stamp(v: AccessVersions, account: string): Promise<string | null> {
  return v.stamp(account);
}

describe('access versions', () => {
  for (const kind of KINDS) {
    it(`${kind}: an account's stamp changes with its own, program and unknown-scope changes only`, async () => {
      const v = versionsOf(kind);
      await stamp(v, 'pub_a'); // starts the epoch on a fresh Redis
      const a0 = await stamp(v, 'pub_a');
      const b0 = await stamp(v, 'pub_b');
      expect(a0).not.toBeNull();
      await v.bump({ accounts: ['pub_b'] });
      expect(await stamp(v, 'pub_a')).toBe(a0);
      expect(await stamp(v, 'pub_b')).not.toBe(b0);
      for (const change of ['programs', 'all'] as const) {
        const before = await stamp(v, 'pub_a');
        await v.bump(change);
        expect(await stamp(v, 'pub_a')).not.toBe(before);
      }
    });
  }

  for (const kind of KINDS) {
    it(`${kind}: a catalog change moves the catalog version seen by the next stamp read, and no account's stamp`, async () => {
      const v = versionsOf(kind);
      await stamp(v, 'pub_a');
      const a0 = await stamp(v, 'pub_a');
      const c0 = v.catalogStamp();
      expect(c0).not.toBeNull();
      await v.bump('catalog');
      expect(await stamp(v, 'pub_a')).toBe(a0);
      expect(v.catalogStamp()).not.toBe(c0);
    });
  }

  for (const kind of KINDS) {
    it(`${kind}: a bump of several accounts at once changes each of their stamps (one pipeline, one slot on a cluster)`, async () => {
      const v = versionsOf(kind);
      await stamp(v, 'pub_a');
      const before = await Promise.all(['pub_a', 'pub_b', 'pub_c'].map((a) => stamp(v, a)));
      await v.bump({ accounts: ['pub_a', 'pub_b', 'pub_c'] });
      const after = await Promise.all(['pub_a', 'pub_b', 'pub_c'].map((a) => stamp(v, a)));
      after.forEach((s, i) => expect(s).not.toBe(before[i]));
    });
  }

  it('redis cluster: a bump returns once a replica holds it (WAIT), and fails when none acknowledges in time', async () => {
    const prefix = `t_${randomBytes(4).toString('hex')}`;
    await new RedisAccessVersions(cluster, prefix).bump({ accounts: ['pub_a'] });
    // More replicas than the cluster has: none can acknowledge, so the bump must not pass as announced.
    const strict = new RedisAccessVersions(cluster, prefix, { waitReplicas: 2, waitMs: 100 });
    await expect(strict.bump({ accounts: ['pub_a'] })).rejects.toThrow(/not acknowledged by 2 replica/);
  });

  it('memory: trusts no stamp once what reports the writes (the embedded engine) has stopped', () => {
    let fed = true;
    const v = new MemoryAccessVersions(() => fed);
    expect(v.stamp('pub_a')).not.toBeNull();
    expect(v.catalogStamp()).not.toBeNull();
    fed = false;
    expect(v.stamp('pub_a')).toBeNull();
    expect(v.catalogStamp()).toBeNull();
  });

  it.each(['redis', 'redis cluster'] as const)('%s: trusts no stamp from before Redis lost its data (epoch gone), then starts a new epoch', async (kind) => {
    const prefix = `t_${randomBytes(4).toString('hex')}`;
    const client = kind === 'redis' ? redis : cluster;
    const v = new RedisAccessVersions(client, prefix);
    expect(await v.stamp('pub_a')).toBeNull();
    const first = await v.stamp('pub_a');
    expect(first).not.toBeNull();
    await client.del(`{${prefix}}:epoch`); // what a restart without persistence or a flush leaves
    expect(await v.stamp('pub_a')).toBeNull();
    expect(v.catalogStamp()).toBeNull();
    const next = await v.stamp('pub_a');
    expect(next).not.toBeNull();
    expect(next).not.toBe(first);
  });
});
