export { createMemoryRateLimiter, createRedisRateLimiter, RateLimitStoreError, WINDOW_SECONDS } from './limiter';
export type { RateLimiter, RateLimitResult } from './limiter';
export { enforceRateLimit, rateLimit, setRateLimitHeaders } from './rate-limit.middleware';
