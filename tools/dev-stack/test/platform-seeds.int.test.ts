/**
 * The suites' platforms start from a seeded engine's snapshot instead of seeding (the run's seeds,
 * tools/dev-stack/test/support/test-platform.ts): the second platform of a size serves the first
 * one's dataset, keys included, in its own database, and never with a data directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findSeed, saveSeed } from '@cw-tools/testing';
import { startPlatform, type Platform, type SeedStore } from '../src/platform';

const dir = mkdtempSync(join(tmpdir(), 'platform-seeds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A store of seeds in the test's own folder, counting what it was asked. */
function folderSeeds() {
  const asked = { found: 0, saved: 0 };
  const store: SeedStore = {
    find: (products) => {
      const seed = findSeed(join(dir, `seed-${products}`));
      if (seed) asked.found++;
      return seed;
    },
    save: async (products, engine, demo, at) => {
      await saveSeed(join(dir, `seed-${products}`), engine, 'cw_platform', demo, at);
      asked.saved++;
    },
  };
  return { store, asked };
}

const env = { PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'silent' };
const me = (p: Platform, key: string) => fetch(`${p.url}/api/v1/publisher/me/`, { headers: { 'X-API-Key': key } });

describe('platforms started from a seed', () => {
  it('the first seeds and saves; the next starts from its snapshot with the same keys', async () => {
    const { store, asked } = folderSeeds();
    const first = await startPlatform({ env, seedProducts: 10, credentialsPath: null, seeds: store });
    let key: string;
    try {
      expect(asked).toEqual({ found: 0, saved: 1 });
      key = first.credentials!.publishers[0]!.keys.live;
      expect((await me(first, key)).status).toBe(200);
    } finally {
      await first.stop();
    }

    const credentialsPath = join(dir, 'credentials.json');
    const second = await startPlatform({ env, seedProducts: 10, credentialsPath, seeds: store });
    try {
      expect(asked).toEqual({ found: 1, saved: 1 });
      expect(second.credentials!.publishers[0]!.keys.live).toBe(key);
      expect(second.seeded).toEqual(first.seeded);
      const answer = await me(second, key);
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { account_id: string }).account_id).toBe(first.credentials!.publishers[0]!.account_id);
    } finally {
      await second.stop();
    }
  }, 180_000);

  it('a platform on a data directory seeds its own data, whatever the store holds', async () => {
    const { store, asked } = folderSeeds();
    const dataDir = join(dir, 'data');
    const durable = await startPlatform({ env, seedProducts: 10, credentialsPath: join(dir, 'durable.json'), dataDir, seeds: store });
    try {
      expect(asked).toEqual({ found: 0, saved: 0 });
      expect(durable.seeded).toBeDefined();
    } finally {
      await durable.stop();
    }
  }, 180_000);
});
