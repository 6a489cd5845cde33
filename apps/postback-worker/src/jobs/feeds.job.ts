/**
 * `feeds:refresh`, recurring: rewrites the prepared feed files of every market whose catalog
 * changed since its files were written (a catalog import marks it) or whose files are older than
 * 6 hours. One market after another: the files of a market are rewritten as a whole.
 */
import { regenerateMarket, staleMarkets } from '@cw/feeds';
import type { PlatformData } from '@cw/runtime';
import type { UseCaseDeps } from '@cw/usecase';
import type { JobDefinition } from './job';

export const FEED_MAX_AGE_MS = 6 * 3_600_000;
export const FEEDS_REFRESH_JOB = 'feeds:refresh';

export function feedJobs(
  deps: UseCaseDeps<PlatformData>,
  onRegenerated: (r: { country: string; files: number; products: number; ms: number }) => void,
): JobDefinition[] {
  return [
    {
      name: FEEDS_REFRESH_JOB,
      // One pass at a time; a worker that dies holding it frees it after 30 minutes.
      options: { concurrency: 1, lockLifetime: 30 * 60_000 },
      run: async () => {
        for (const country of await staleMarkets(deps.data, FEED_MAX_AGE_MS)) {
          const t = Date.now();
          const r = await regenerateMarket(deps.data, country);
          onRegenerated({ ...r, ms: Date.now() - t });
        }
      },
    },
  ];
}
