import type { Principal } from '@cw/auth';

/**
 * The catalog's version (products, merchant names): what cached catalog answers (product pages,
 * catalog rows) are checked against, so a catalog change ends them everywhere. The catalog
 * declares it; the composition root provides it (`@cw/runtime`), read on the request's hot path
 * without a round trip of its own (on Redis it travels in the access stamp's read).
 */
export interface CatalogVersion {
  /**
   * The catalog version `principal`'s request may use cached catalog data under, as read on this
   * request; null when it may not (compute, keep nothing).
   */
  of(principal: Principal): string | null;
}
