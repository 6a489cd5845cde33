export { CacheNamespace } from './namespace';
export type { CacheCounts, CacheSpec, CallOptions, NamespaceOptions, ThroughOptions } from './namespace';
export { registerCacheMetrics } from './metrics';
export { cacheTableRows, readMarkdownTable, renderCacheTable } from './table';
