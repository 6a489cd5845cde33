export { createMemoryRateLimiter, createRedisRateLimiter, RateLimitStoreError, WINDOW_SECONDS } from './limiter';
export type { RateLimiter, RateLimitResult } from './limiter';
export { countRequest, enforceRateLimit, rateLimit, setRateLimitHeaders } from './rate-limit.middleware';
