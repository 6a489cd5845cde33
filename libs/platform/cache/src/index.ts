export { CacheNamespace } from './namespace';
export type { CacheCounts, CacheSpec, CallOptions, NamespaceOptions, NamespaceStats, ThroughOptions } from './namespace';
export { registerCacheMetrics } from './metrics';
export { cacheTableRows, readMarkdownTable, renderCacheTable } from './table';
