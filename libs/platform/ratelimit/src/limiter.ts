/**
 * Framework-free rate limiting: one interface, two stores (Redis for production, memory for the
 * one-process dev stack), both from rate-limiter-flexible. Windows are 60 s. A store failure
 * raises RateLimitStoreError: callers answer 503, never an unlimited pass.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Cluster, Redis } from 'ioredis';

export const WINDOW_SECONDS = 60;

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1 while consumed). */
  resetSeconds: number;
}

export interface RateLimiter {
  /** Spends one point (or `points`) of `budget` for `key`, whose limit per window is `limit`. */
  consume(budget: string, key: string, limit: number, points?: number): Promise<RateLimitResult>;
}

export class RateLimitStoreError extends Error {
  constructor(cause: unknown) {
    super(`rate limit store failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'RateLimitStoreError';
  }
}

type Factory = (opts: { points: number; duration: number; keyPrefix: string }) => RateLimiterAbstract;

class FlexibleLimiter implements RateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(
    private readonly factory: Factory,
    private readonly prefix: string,
  ) {}

  private limiterFor(budget: string, limit: number): RateLimiterAbstract {
    const id = `${budget}:${limit}`;
    let l = this.limiters.get(id);
    if (!l) this.limiters.set(id, (l = this.factory({ points: limit, duration: WINDOW_SECONDS, keyPrefix: `${this.prefix}:${budget}` })));
    return l;
  }

  async consume(budget: string, key: string, limit: number, points = 1): Promise<RateLimitResult> {
    const toResult = (res: RateLimiterRes, allowed: boolean): RateLimitResult => ({
      allowed,
      limit,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    });
    try {
      return toResult(await this.limiterFor(budget, limit).consume(key, points), true);
    } catch (e) {
      if (e instanceof RateLimiterRes) return toResult(e, false);
      throw new RateLimitStoreError(e);
    }
  }
}

export function createMemoryRateLimiter(prefix = 'rl'): RateLimiter {
  return new FlexibleLimiter((o) => new RateLimiterMemory(o), prefix);
}

export function createRedisRateLimiter(redis: Redis | Cluster, prefix = 'rl'): RateLimiter {
  return new FlexibleLimiter((o) => new RateLimiterRedis({ ...o, storeClient: redis, rejectIfRedisNotReady: true }), prefix);
}
