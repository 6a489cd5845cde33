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
 * more than the cache saves (issue 32: 117 µs of GC per such search). A popular page costs one
 * build more, once per version. Requests that miss together still share one build either way.
 */
import type { Principal } from '@cw/auth';

interface Entry<T> {
  principal: Principal;
  catalog: string;
  /** Until the build settles: Infinity (requests meanwhile share it). */
  expiresAt: number;
  value: Promise<T>;
}

export class PageCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Keys asked for once since the doorkeeper was last emptied. */
  private readonly askedOnce = new Set<string>();

  /**
   * `catalogStamp`: the catalog version a cached principal may be served under on this request
   * (the catalog's `CatalogVersion`), null for a principal that must not be served from here.
   */
  constructor(
    private readonly catalogStamp: (principal: Principal) => string | null,
    private readonly maxEntries: number,
    private readonly maxAgeMs: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * The page for `key` (which must name everything the page depends on besides the principal and
   * the catalog), from memory when still valid, else from `build` (its `validUntil` bounds reuse).
   * Requests that miss together share one build (no stampede when a popular page expires).
   */
  through(principal: Principal, key: string, build: () => Promise<{ value: T; validUntil: number }>, now = Date.now()): Promise<T> {
    const catalog = this.maxEntries > 0 ? this.catalogStamp(principal) : null;
    if (catalog === null) return build().then((b) => b.value);
    const fullKey = `${principal.publisher._id}\u0000${key}`;
    const hit = this.entries.get(fullKey);
    if (hit) {
      this.entries.delete(fullKey);
      if (hit.principal === principal && hit.catalog === catalog && now < hit.expiresAt) {
        this.entries.set(fullKey, hit); // most recently used last
        return hit.value;
      }
    }
    // A page asked for before (kept once, or its key in the doorkeeper) is kept; a first ask only
    // shares its build with the requests that miss with it.
    const keep = hit !== undefined || this.askedOnce.delete(fullKey);
    if (!keep) {
      if (this.askedOnce.size >= 4 * this.maxEntries) this.askedOnce.clear();
      this.askedOnce.add(fullKey);
    }
    // The catalog version is taken before the read: a change after it makes the entry unusable.
    const entry: Entry<T> = { principal, catalog, expiresAt: Infinity, value: undefined as unknown as Promise<T> };
    entry.value = build().then(
      (built) => {
        entry.expiresAt = keep ? Math.min(now + this.maxAgeMs, built.validUntil) : now;
        if (entry.expiresAt <= now && this.entries.get(fullKey) === entry) this.entries.delete(fullKey);
        return built.value;
      },
      (err: unknown) => {
        if (this.entries.get(fullKey) === entry) this.entries.delete(fullKey);
        throw err;
      },
    );
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(fullKey, entry);
    return entry.value;
  }
}
