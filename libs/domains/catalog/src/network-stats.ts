/**
 * Public network statistics (no credential): active programs, their merchants, the markets they
 * serve and the fresh products per market. Nothing account-specific; computed at most once per
 * `NETWORK_STATS_TTL_MS` (./caches.ts) per process (counting the catalog is a scan), concurrent callers share
 * the one computation.
 */
import { own, type CatalogDeps } from './deps';
import { freshness } from './search.service';
import type { NetworkStats } from './types';

async function compute(deps: Pick<CatalogDeps, 'data'>, now: Date): Promise<NetworkStats> {
  const programs = await deps.data.programs.active({}, { merchant_id: 1, countries: 1 });
  const markets = [...new Set(programs.flatMap((p) => p.countries))].sort();
  const counts = (await own(deps).Product.aggregate([
    { $match: { ...freshness(now), country: { $in: markets } } },
    { $group: { _id: '$country', n: { $sum: 1 } } },
  ])) as Array<{ _id: string; n: number }>;
  const byCountry = new Map(counts.map((c) => [c._id, c.n]));
  return {
    programs: programs.length,
    merchants: new Set(programs.map((p) => p.merchant_id)).size,
    markets,
    products_per_market: markets.map((country) => ({ country, products: byCountry.get(country) ?? 0 })),
    generated_at: now.toISOString(),
  };
}

export function networkStats(deps: Pick<CatalogDeps, 'data' | 'caches'>, now = new Date()): Promise<NetworkStats> {
  return deps.caches.networkStats.through('all', () => compute(deps, now), { now: now.getTime() });
}
