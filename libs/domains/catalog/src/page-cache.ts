/**
 * Product pages (search and lookup) kept per process and served only while nothing they were
 * built from has changed: the same cached principal (so its access stamp is unchanged: key,
 * account, markets, memberships, program status), the same catalog version (every write to
 * products or merchant names bumps it, whichever process makes it; read in the same round trip as
 * the access stamp) and before the first row read leaves the freshness window. A page also ages
 * out after PRODUCT_PAGE_CACHE_MAX_AGE_MS: rows ahead of it (skipped by the offset, never read)
 * can leave the freshness window by time alone and shift it by a position meanwhile; no row
 * served is ever stale. A principal that is not cached (no versions to validate against) is never
 * served from here. Least recently used pages go first beyond PRODUCT_PAGE_CACHE_ENTRIES.
 *
 * Admission: a page is kept only when its key is asked for a second time (a doorkeeper of keys
 * asked once, at most four times the page bound, emptied when full). Most distinct pages are
 * asked for once (an agent trying filters, a partner paging through a market); keeping each
 * would hold thousands of pages nobody reads again until they age out, and their garbage cost
 * more than the cache saves (issue 32, bench/README.md). A popular page costs one
 * build more, once per version. Requests that miss together still share one build either way.
 *
 * A namespace of the one cache abstraction (`@cw/cache`, docs/decisions/0045-one-cache-abstraction.md),
 * generic over what a page is held as (the page object, or its serialised bytes).
 */
import type { Principal } from '@cw/auth';
import { CacheNamespace, type CacheSpec } from '@cw/cache';

export const PRODUCT_PAGES_CACHE: CacheSpec = {
  name: 'catalog.productPages',
  keeps: 'Product pages (search and lookup, HTTP and MCP), by account and every parameter',
  maxEntries: 2_000,
  maxEntriesSetting: 'PRODUCT_PAGE_CACHE_ENTRIES',
  freshMs: 5_000,
  freshMsSetting: 'PRODUCT_PAGE_CACHE_MAX_AGE_MS',
  invalidation:
    'Another principal object (its access stamp changed), another catalog version, or the first row it read leaves the freshness window. Never served to a principal the access cache does not vouch for.',
  admission: 'second-ask',
};

interface Built<T> {
  value: T;
  /** When the first row the page read leaves the freshness window. */
  validUntil: number;
}

export class PageCache<T> {
  readonly pages: CacheNamespace<string, Built<T>>;

  /**
   * `catalogStamp`: the catalog version a cached principal may be served under on this request
   * (the catalog's `CatalogVersion`), null for a principal that must not be served from here.
   */
  constructor(
    private readonly catalogStamp: (principal: Principal) => string | null,
    maxEntries: number,
    maxAgeMs: number,
  ) {
    this.pages = new CacheNamespace<string, Built<T>>(PRODUCT_PAGES_CACHE, { maxEntries, freshMs: maxAgeMs });
  }

  get size(): number {
    return this.pages.size;
  }

  /**
   * The page for `key` (which must name everything the page depends on besides the principal and
   * the catalog), from memory when still valid, else from `build` (its `validUntil` bounds reuse).
   * Requests that miss together share one build (no stampede when a popular page expires).
   */
  async through(principal: Principal, key: string, build: () => Promise<Built<T>>, now = Date.now()): Promise<T> {
    const catalog = this.pages.enabled ? this.catalogStamp(principal) : null;
    if (catalog === null) return (await build()).value;
    // The catalog version is taken before the read: a change after it makes the entry unusable.
    const built = await this.pages.through(`${principal.publisher._id}\u0000${key}`, build, {
      stamp: [principal, catalog],
      now,
      freshUntil: (b) => b.validUntil,
    });
    return built.value;
  }
}
