/**
 * Catalog rows as read for responses, kept per process for one catalog version, so that a page
 * nobody asked for (a new filter, a new offset) can be read as the ids of its rows alone: the
 * database still selects every row on every call (scope, markets, freshness, filters, order), and
 * the row's content comes from here when this process read it under the same catalog version.
 *
 * - Every write to products bumps the catalog version (read with the request's access stamp); a
 *   request under another version empties the cache and starts it again under that version. A
 *   row is kept only under the version the request that read it had seen before reading, so what
 *   is kept is never older than the version it is kept under.
 * - Which read to make is decided by what the cache held lately (`idsFirst`): while most rows
 *   pages need are held, a page is read as ids, then the rows not held by id (a second read only
 *   for those); while most are not (a walk through a market, a catalog just changed), a page is
 *   read whole, as before, and its rows kept.
 * - Bound: PRODUCT_ROW_CACHE_ENTRIES rows (0: off), least recently used first out.
 *
 * A namespace of the one cache abstraction (`@cw/cache`, docs/decisions/0045-one-cache-abstraction.md).
 */
import type { Principal } from '@cw/auth';
import { CacheNamespace, type CacheSpec } from '@cw/cache';
import type { CatalogRow } from './types';

export const PRODUCT_ROWS_CACHE: CacheSpec = {
  name: 'catalog.productRows',
  keeps: 'Catalog rows as read (~1 KB each), by product id, for pages read as ids',
  maxEntries: 20_000,
  maxEntriesSetting: 'PRODUCT_ROW_CACHE_ENTRIES',
  freshMs: Infinity,
  invalidation: 'Another catalog version: a request under it empties the namespace. Never used for a principal the access cache does not vouch for.',
};

/** Weight of the latest read in the held-rows average. */
const ALPHA = 0.1;

export class ProductRows {
  private version: string | null = null;
  readonly rows: CacheNamespace<string, CatalogRow>;
  /** Moving average of the share of a page's rows that were held. */
  private heldShare = 0;

  /**
   * `catalogStamp`: the catalog version a principal's request may use cached catalog data under
   * (the catalog's `CatalogVersion`, read with its access stamp), null when it may not.
   */
  constructor(
    private readonly catalogStamp: (principal: Principal) => string | null,
    maxEntries: number,
  ) {
    this.rows = new CacheNamespace<string, CatalogRow>(PRODUCT_ROWS_CACHE, { maxEntries });
  }

  get size(): number {
    return this.rows.size;
  }

  /**
   * What `principal`'s request may use, under the catalog version as of now (take it before the
   * reads); undefined when nothing may be used (the cache is off, or no version vouches for it).
   */
  at(principal: Principal): RowsAt | undefined {
    const version = this.rows.enabled ? this.catalogStamp(principal) : null;
    if (version === null) return undefined;
    if (version !== this.version) {
      this.rows.clear();
      this.version = version;
    }
    return new RowsAt(this, version);
  }

  /** @internal */ held(version: string, id: string): CatalogRow | undefined {
    return version === this.version ? this.rows.get(id) : undefined;
  }

  /** @internal */ holds(version: string, id: string): boolean {
    return version === this.version && this.rows.has(id);
  }

  /** @internal */ keep(version: string, rows: readonly CatalogRow[]): void {
    if (version !== this.version) return;
    for (const r of rows) if (!this.rows.has(r._id)) this.rows.set(r._id, r);
  }

  /** @internal */ observe(held: number, of: number): void {
    if (of > 0) this.heldShare += ALPHA * (held / of - this.heldShare);
  }

  /** @internal */ get idsFirst(): boolean {
    return this.heldShare >= 0.5;
  }
}

/** The cache as one request may use it: under the catalog version it read before any row. */
export class RowsAt {
  constructor(
    private readonly cache: ProductRows,
    readonly version: string,
  ) {}

  /** Whether to read pages as ids first (most rows lately were held). */
  get idsFirst(): boolean {
    return this.cache.idsFirst;
  }

  /** Splits `ids` into the rows held (in order, undefined where not) and the ids to read. */
  take(ids: readonly string[]): { rows: Array<CatalogRow | undefined>; missing: string[] } {
    const missing: string[] = [];
    const rows = ids.map((id) => {
      const r = this.cache.held(this.version, id);
      if (!r) missing.push(id);
      return r;
    });
    this.cache.observe(ids.length - missing.length, ids.length);
    return { rows, missing };
  }

  /** Keeps rows read whole (counting how many were held already, for `idsFirst`). */
  keepRead(rows: readonly CatalogRow[]): void {
    let held = 0;
    for (const r of rows) if (this.cache.holds(this.version, r._id)) held++;
    this.cache.observe(held, rows.length);
    this.cache.keep(this.version, rows);
  }

  /** Keeps rows read by id (already counted by `take`). */
  keep(rows: readonly CatalogRow[]): void {
    this.cache.keep(this.version, rows);
  }
}
