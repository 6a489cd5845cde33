export { CONTENT_TYPES, encodeFeed, FEED_FIELDS, FEED_FORMATS, feedItem } from './feed-formats';
export type { FeedFormat, FeedItem } from './feed-formats';
export { feedFiles, feedRows, MAX_PER_COUNTRY, MAX_PER_PROGRAM, regenerateMarket, staleMarkets } from './feed-source';
export type { FeedRecord } from './feed-source';
export { FEED_PATH, RENEW_BEFORE_DAYS, signedFeedUrl, VALIDITY_DAYS, verifyFeedSignature } from './feed-url';
export { FEED_PRODUCTS_INPUT, FEED_URL_INPUT, FEEDS_POLICY, issueFeedUrl, prepareFeed, SAMPLE_CAP, SAMPLE_CSV_CAP, signedFeedAccount } from './feeds.service';
export type { PreparedFeed } from './feeds.service';
export { FeedsData, feedsDomain } from './data/feeds.data';
export type { FeedsDeps, FeedSourceData } from './deps';
