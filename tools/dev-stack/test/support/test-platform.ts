/**
 * The one-process platform as the suites start it: from the run's seed of its size and settings
 * when a platform before it saved one, else seeded and saved for the ones after it
 * (tools/testing/src/seed-snapshots.ts). A seed is about the CPU of a whole suite's tests; a
 * snapshot loads in a fraction of it. Outside `npm test` (no run directory) it seeds as before.
 */
import { findSeed, saveSeed, seedPlace } from '@cw-tools/testing';
import { startPlatform as start, type PlatformOptions, type SeedStore } from '../../src/platform';

export type { Platform } from '../../src/platform';

/** The platform's database name (the seed's snapshot holds it). */
const DB_NAME = 'cw_platform';

function runSeeds(env: PlatformOptions['env']): SeedStore {
  return {
    find: (products) => {
      const place = seedPlace(products, env, 'platform');
      return place ? findSeed(place) : undefined;
    },
    save: async (products, engine, demo, at) => {
      const place = seedPlace(products, env, 'platform');
      if (place) await saveSeed(place, engine, DB_NAME, demo, at);
    },
  };
}

export const startPlatform = (opts: PlatformOptions) => start({ seeds: runSeeds(opts.env), ...opts });
