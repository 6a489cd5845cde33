/**
 * The catalog's caches, one set per process (the composition root builds them; use cases find them
 * in `deps.caches`). What each keeps, its bound and what ends an entry: docs/decisions/0039-caches-access.md.
 */
import { PrincipalMemo, type AccessCache, type Principal } from '@cw/auth';
import type { PlatformConfig } from '@cw/config';
import type { CatalogVersion } from './catalog-version';
import { PageCache } from './page-cache';
import { ProductRows } from './row-cache';
import type { CatalogScope } from './scope';
import type { NetworkStats, ProductPageBody } from './types';

/** How long the public network statistics are kept before they are counted again. */
export const NETWORK_STATS_TTL_MS = 5 * 60_000;

export interface CatalogCaches {
  /** Each cached principal's scope (markets, active approved programs): goes with its principal. */
  catalogScopes: PrincipalMemo<CatalogScope>;
  /** Product pages (search and lookup): PRODUCT_PAGE_CACHE_ENTRIES, checked against the principal and the catalog version. */
  productPages: PageCache<ProductPageBody>;
  /** Catalog rows as read, for pages read as ids: PRODUCT_ROW_CACHE_ENTRIES, one catalog version at a time. */
  productRows: ProductRows;
  /** The public network statistics: one value, recomputed after NETWORK_STATS_TTL_MS. */
  networkStats: TimedValue<NetworkStats>;
}

/**
 * `principals`: the access cache whose principals the scopes are kept against; `version`: the
 * catalog's version as this request read it (what the product pages and rows are checked against).
 */
export function createCatalogCaches(
  config: Pick<PlatformConfig, 'productPageCacheEntries' | 'productPageCacheMaxAgeMs' | 'productRowCacheEntries'>,
  principals: AccessCache,
  version: CatalogVersion,
): CatalogCaches {
  const catalogVersion = (p: Principal) => version.of(p);
  return {
    catalogScopes: new PrincipalMemo<CatalogScope>(principals),
    productPages: new PageCache<ProductPageBody>(catalogVersion, config.productPageCacheEntries, config.productPageCacheMaxAgeMs),
    productRows: new ProductRows(catalogVersion, config.productRowCacheEntries),
    networkStats: new TimedValue<NetworkStats>(NETWORK_STATS_TTL_MS),
  };
}

/** One value computed at most once per `ttlMs` (concurrent callers share the computation; a failure is not remembered). */
export class TimedValue<T> {
  private held?: { at: number; value: Promise<T> };

  constructor(private readonly ttlMs: number) {}

  get(compute: () => Promise<T>, now = Date.now()): Promise<T> {
    if (this.held && now - this.held.at < this.ttlMs) return this.held.value;
    const held = { at: now, value: compute() };
    this.held = held;
    held.value.catch(() => {
      if (this.held === held) this.held = undefined;
    });
    return held.value;
  }
}
