/**
 * The catalog's caches, one set per process (the composition root builds them; use cases find them
 * in `deps.caches`): namespaces of the one cache abstraction (`@cw/cache`,
 * docs/decisions/0045-one-cache-abstraction.md). What each keeps, its bound and what ends an
 * entry: the declarations below and beside each, rendered in docs/caches.md.
 */
import { PRINCIPALS_CACHE, PrincipalMemo, type AccessCache, type Principal } from '@cw/auth';
import { CacheNamespace, type CacheSpec, type NamespaceStats } from '@cw/cache';
import type { PlatformConfig } from '@cw/config';
import type { CatalogVersion } from './catalog-version';
import { PageCache, PRODUCT_PAGES_CACHE } from './page-cache';
import { PRODUCT_ROWS_CACHE, ProductRows } from './row-cache';
import type { CatalogScope } from './scope';
import type { NetworkStats } from './types';

/** How long the public network statistics are kept before they are counted again. */
export const NETWORK_STATS_TTL_MS = 5 * 60_000;

export const CATALOG_SCOPES_CACHE: CacheSpec = {
  name: 'catalog.scopes',
  keeps: "A cached principal's catalog scope (markets, active approved programs), by principal object",
  maxEntries: PRINCIPALS_CACHE.maxEntries,
  freshMs: PRINCIPALS_CACHE.freshMs,
  invalidation: "Its principal's entry in `auth.principals` ends (the bound and freshness are that namespace's).",
};

export const NETWORK_STATS_CACHE: CacheSpec = {
  name: 'catalog.networkStats',
  keeps: 'The public network statistics (programs, merchants, markets, fresh products per market): one value',
  maxEntries: 1,
  freshMs: NETWORK_STATS_TTL_MS,
  invalidation: 'Nothing else (nothing account-specific).',
};

/** The catalog's namespaces, as declared (the docs' table). */
export const CATALOG_CACHES: readonly CacheSpec[] = [CATALOG_SCOPES_CACHE, PRODUCT_PAGES_CACHE, PRODUCT_ROWS_CACHE, NETWORK_STATS_CACHE];

export interface CatalogCaches {
  /** Each cached principal's scope (markets, active approved programs): goes with its principal. */
  catalogScopes: PrincipalMemo<CatalogScope>;
  /** Product pages (search and lookup): PRODUCT_PAGE_CACHE_ENTRIES, checked against the principal and the catalog version. */
  productPages: PageCache<string>;
  /** Catalog rows as read, for pages read as ids: PRODUCT_ROW_CACHE_ENTRIES, one catalog version at a time. */
  productRows: ProductRows;
  /** The public network statistics: one value, recomputed after NETWORK_STATS_TTL_MS. */
  networkStats: CacheNamespace<'all', NetworkStats>;
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
    catalogScopes: new PrincipalMemo<CatalogScope>(principals, CATALOG_SCOPES_CACHE),
    productPages: new PageCache<string>(catalogVersion, config.productPageCacheEntries, config.productPageCacheMaxAgeMs),
    productRows: new ProductRows(catalogVersion, config.productRowCacheEntries),
    networkStats: new CacheNamespace<'all', NetworkStats>(NETWORK_STATS_CACHE),
  };
}

/** Every namespace of the catalog's caches (for the metrics). */
export function catalogNamespaces(caches: CatalogCaches): NamespaceStats[] {
  return [caches.catalogScopes.values, caches.productPages.pages, caches.productRows.rows, caches.networkStats];
}
