import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestTargets } from '@cw/config';
import { MemoryAccessVersions, RedisAccessVersions, type AccessVersions } from './access-versions';

let redis: Redis;
beforeAll(async () => {
  redis = new Redis(loadTestTargets().redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
});
afterAll(() => redis?.disconnect());

async function stamp(v: AccessVersions, account: string): Promise<string | null> {
  return v.stamp(account);
}

describe('access versions', () => {
  for (const kind of ['redis', 'memory'] as const) {
    it(`${kind}: an account's stamp changes with its own, program and unknown-scope changes only`, async () => {
      const v = kind === 'redis' ? new RedisAccessVersions(redis, `t_${randomBytes(4).toString('hex')}`) : new MemoryAccessVersions();
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

  for (const kind of ['redis', 'memory'] as const) {
    it(`${kind}: a catalog change moves the catalog version seen by the next stamp read, and no account's stamp`, async () => {
      const v = kind === 'redis' ? new RedisAccessVersions(redis, `t_${randomBytes(4).toString('hex')}`) : new MemoryAccessVersions();
      await stamp(v, 'pub_a');
      const a0 = await stamp(v, 'pub_a');
      const c0 = v.catalogStamp();
      expect(c0).not.toBeNull();
      await v.bump('catalog');
      expect(await stamp(v, 'pub_a')).toBe(a0);
      expect(v.catalogStamp()).not.toBe(c0);
    });
  }

  it('memory: trusts no stamp once what reports the writes (the embedded engine) has stopped', () => {
    let fed = true;
    const v = new MemoryAccessVersions(() => fed);
    expect(v.stamp('pub_a')).not.toBeNull();
    expect(v.catalogStamp()).not.toBeNull();
    fed = false;
    expect(v.stamp('pub_a')).toBeNull();
    expect(v.catalogStamp()).toBeNull();
  });

  it('redis: trusts no stamp from before Redis lost its data (epoch gone), then starts a new epoch', async () => {
    const prefix = `t_${randomBytes(4).toString('hex')}`;
    const v = new RedisAccessVersions(redis, prefix);
    expect(await v.stamp('pub_a')).toBeNull();
    const first = await v.stamp('pub_a');
    expect(first).not.toBeNull();
    await redis.del(`{${prefix}}:epoch`); // what a restart without persistence or a flush leaves
    expect(await v.stamp('pub_a')).toBeNull();
    expect(v.catalogStamp()).toBeNull();
    const next = await v.stamp('pub_a');
    expect(next).not.toBeNull();
    expect(next).not.toBe(first);
  });
});
