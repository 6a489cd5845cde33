/**
 * Framework-free rate limiting: one interface, two stores (Redis for production, memory for the
 * one-process dev stack), both from rate-limiter-flexible. Windows are 60 s (a test may shorten
 * them: `windowSeconds`, RATELIMIT_WINDOW_SECONDS). A store failure raises RateLimitStoreError:
 * callers answer 503, never an unlimited pass.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Cluster, Redis } from 'ioredis';

export const WINDOW_SECONDS = 60;

export interface RateLimiterOptions {
  /** The length of every budget's window (default WINDOW_SECONDS; tests shorten it to meet a Retry-After in seconds). */
  windowSeconds?: number;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1 while consumed). */
  resetSeconds: number;
  /** The window's length (RateLimit-Policy's `w`). */
  windowSeconds: number;
}

export interface RateLimiter {
  /** The length of every budget's window, in seconds. */
  readonly windowSeconds: number;
  /** Spends one point (or `points`) of `budget` for `key`, whose limit per window is `limit`. */
  consume(budget: string, key: string, limit: number, points?: number): Promise<RateLimitResult>;
  /** The counts of `budget`, in the same store; store failures raise RateLimitStoreError. */
  tally(budget: string, ttlSeconds: number): Tally;
}

/**
 * A count per key that the caller reads and changes itself, kept `ttlSeconds` from its first point
 * (the caller names the windows in its keys, by its own clock: the sign-in limits keep this window
 * and the one before, so a budget holds over any span, whatever the boundaries).
 */
export interface Tally {
  /** Adds `points` to `key`'s count (negative: takes them back) and answers the count after it. */
  add(key: string, points?: number): Promise<number>;
  /** `key`'s count (0 when it has none). */
  get(key: string): Promise<number>;
  /** Forgets `key`'s count. */
  delete(key: string): Promise<void>;
}

/** A tally kept in memory lives at most this long (a timer longer than 2^31 ms would fire at once). */
export const MEMORY_TALLY_MAX_TTL_SECONDS = 24 * 86_400;

export class RateLimitStoreError extends Error {
  constructor(cause: unknown) {
    super(`rate limit store failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'RateLimitStoreError';
  }
}

type Factory = (opts: { points: number; duration: number; keyPrefix: string }) => RateLimiterAbstract;

class FlexibleLimiter implements RateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly tallies = new Map<string, Tally>();

  constructor(
    private readonly factory: Factory,
    private readonly prefix: string,
    private readonly maxTtlSeconds = Number.MAX_SAFE_INTEGER,
    readonly windowSeconds = WINDOW_SECONDS,
  ) {}

  tally(budget: string, ttlSeconds: number): Tally {
    const id = `${budget}:${ttlSeconds}`;
    let t = this.tallies.get(id);
    if (!t)
      this.tallies.set(
        id,
        (t = flexibleTally(this.factory({ points: 1, duration: Math.min(ttlSeconds, this.maxTtlSeconds), keyPrefix: `${this.prefix}:${budget}` }))),
      );
    return t;
  }

  private limiterFor(budget: string, limit: number): RateLimiterAbstract {
    const id = `${budget}:${limit}`;
    let l = this.limiters.get(id);
    if (!l) this.limiters.set(id, (l = this.factory({ points: limit, duration: this.windowSeconds, keyPrefix: `${this.prefix}:${budget}` })));
    return l;
  }

  async consume(budget: string, key: string, limit: number, points = 1): Promise<RateLimitResult> {
    const toResult = (res: RateLimiterRes, allowed: boolean): RateLimitResult => ({
      allowed,
      limit,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
      windowSeconds: this.windowSeconds,
    });
    try {
      return toResult(await this.limiterFor(budget, limit).consume(key, points), true);
    } catch (e) {
      if (e instanceof RateLimiterRes) return toResult(e, false);
      throw new RateLimitStoreError(e);
    }
  }
}

/** rate-limiter-flexible's penalty, reward, get and delete: counts that never refuse. */
function flexibleTally(l: RateLimiterAbstract): Tally {
  const store = async <T>(op: () => Promise<T>): Promise<T> => {
    try {
      return await op();
    } catch (e) {
      throw new RateLimitStoreError(e);
    }
  };
  return {
    add: (key, points = 1) => store(async () => (points >= 0 ? await l.penalty(key, points) : await l.reward(key, -points)).consumedPoints),
    get: (key) => store(async () => Math.max(0, (await l.get(key))?.consumedPoints ?? 0)),
    delete: (key) => store(async () => void (await l.delete(key))),
  };
}

export function createMemoryRateLimiter(prefix = 'rl', opts: RateLimiterOptions = {}): RateLimiter {
  return new FlexibleLimiter((o) => new RateLimiterMemory(o), prefix, MEMORY_TALLY_MAX_TTL_SECONDS, opts.windowSeconds);
}

export function createRedisRateLimiter(redis: Redis | Cluster, prefix = 'rl', opts: RateLimiterOptions = {}): RateLimiter {
  return new FlexibleLimiter(
    (o) => new RateLimiterRedis({ ...o, storeClient: redis, rejectIfRedisNotReady: true }),
    prefix,
    Number.MAX_SAFE_INTEGER,
    opts.windowSeconds,
  );
}
