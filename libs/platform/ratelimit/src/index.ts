export { BatchedCounter } from './batched-counter';
export type { BatchedCounterOptions } from './batched-counter';
export { createMemoryRateLimiter, createRedisRateLimiter, MEMORY_TALLY_MAX_TTL_SECONDS, RateLimitStoreError, WINDOW_SECONDS } from './limiter';
export type { RateLimiter, RateLimiterOptions, RateLimitResult, Tally } from './limiter';
export { countOnly, countRequest, enforceRateLimit, rateLimit, rateLimitHeaders, setRateLimitHeaders, STORE_RETRY_SECONDS } from './rate-limit.middleware';
export { openRedis } from './redis-client';
export type { RedisClient } from './redis-client';
export { createMemorySlots, createRedisSlots } from './slots';
export type { Slot, Slots } from './slots';
