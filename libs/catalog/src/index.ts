export { GTIN_LENGTHS, gtinCheckDigit, isValidGtin, withCheckDigit } from './gtin';
export { productId } from './product-id';
export { importFeedRows, parseCsvFeed, parseXmlFeed } from './feed-import';
export type { FeedRow, ImportOptions, ImportResult } from './feed-import';
