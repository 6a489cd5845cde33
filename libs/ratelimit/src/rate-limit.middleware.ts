import type { Context, Middleware, Next } from 'koa';
import { ApiError } from '@cw/errors';
import { RateLimitStoreError, WINDOW_SECONDS, type RateLimiter, type RateLimitResult } from './limiter';

const STORE_RETRY_SECONDS = 5;

export function setRateLimitHeaders(ctx: Context, r: RateLimitResult): void {
  ctx.set('RateLimit-Limit', String(r.limit));
  ctx.set('RateLimit-Remaining', String(r.remaining));
  ctx.set('RateLimit-Reset', String(r.resetSeconds));
  ctx.set('RateLimit-Policy', `${r.limit};w=${WINDOW_SECONDS}`);
}

/**
 * Spends one point of a budget and sets the four RateLimit headers; 429 with Retry-After when
 * spent, 503 when the store fails. The last limiter to run decides the headers a response shows.
 */
export async function enforceRateLimit(ctx: Context, limiter: RateLimiter, budget: string, key: string, limit: number): Promise<void> {
  const outcome = await countRequest(ctx, limiter, budget, key, limit);
  if (outcome === 'unavailable') {
    throw new ApiError({
      code: 'service_unavailable',
      detail: 'Rate limiting is temporarily unavailable. Retry with backoff.',
      headers: { 'Retry-After': String(STORE_RETRY_SECONDS) },
    });
  }
  if (outcome !== 'allowed') {
    throw new ApiError({
      code: 'rate_limited',
      detail: `Rate limit of ${limit} requests per ${WINDOW_SECONDS} seconds exceeded. Retry after ${outcome.resetSeconds} seconds.`,
      headers: { 'Retry-After': String(outcome.resetSeconds) },
    });
  }
}

/**
 * Spends one point and sets the four RateLimit headers, without throwing: 'allowed', the spent
 * result when over the limit, or 'unavailable' when the store failed (logged). For callers that
 * only count (the tracker flags instead of refusing).
 */
export async function countRequest(
  ctx: Context,
  limiter: RateLimiter,
  budget: string,
  key: string,
  limit: number,
): Promise<'allowed' | 'unavailable' | RateLimitResult> {
  let result: RateLimitResult;
  try {
    result = await limiter.consume(budget, key, limit);
  } catch (e) {
    if (!(e instanceof RateLimitStoreError)) throw e;
    ctx.state.log?.error({ err: e.message, budget, request_id: ctx.state.requestId }, 'rate limit store failure');
    // The headers are still promised on every response: nothing may be spent until the store is back.
    setRateLimitHeaders(ctx, { allowed: false, limit, remaining: 0, resetSeconds: STORE_RETRY_SECONDS });
    return 'unavailable';
  }
  setRateLimitHeaders(ctx, result);
  return result.allowed ? 'allowed' : result;
}

/** Koa middleware for a budget keyed by something in the context (address, account...). */
export function rateLimit(opts: { limiter: RateLimiter; budget: string; limit: number; key: (ctx: Context) => string }): Middleware {
  return async (ctx: Context, next: Next) => {
    await enforceRateLimit(ctx, opts.limiter, opts.budget, opts.key(ctx), opts.limit);
    await next();
  };
}
