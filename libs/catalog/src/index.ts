export { GTIN_LENGTHS, gtinCheckDigit, isValidGtin, withCheckDigit } from './gtin';
export { productId } from './product-id';
export { importFeedRows, parseCsvFeed, parseXmlFeed } from './feed-import';
export type { FeedRow, ImportOptions, ImportResult } from './feed-import';
export { catalogScope } from './scope';
export type { CatalogScope } from './scope';
export { FRESHNESS_HOURS, lookupProducts, MAX_OFFSET, searchProducts } from './search.service';
export type { CatalogRow, LookupParams, Page, SearchParams } from './search.service';
