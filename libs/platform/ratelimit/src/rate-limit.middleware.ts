import type { Context, Middleware, Next } from 'koa';
import { ApiError } from '@cw/errors';
import { RateLimitStoreError, type RateLimiter, type RateLimitResult } from './limiter';

/** Retry-After while the limiter's store is failing. */
export const STORE_RETRY_SECONDS = 5;

/**
 * The four RateLimit headers of a result, as a flat list of names and values (what node's
 * `writeHead` takes): a node route answers with them without building an object per request.
 */
export function rateLimitHeaders(r: RateLimitResult): string[] {
  return [
    'RateLimit-Limit',
    String(r.limit),
    'RateLimit-Remaining',
    String(r.remaining),
    'RateLimit-Reset',
    String(r.resetSeconds),
    'RateLimit-Policy',
    `${r.limit};w=${r.windowSeconds}`,
  ];
}

export function setRateLimitHeaders(ctx: Context, r: RateLimitResult): void {
  const headers = rateLimitHeaders(r);
  for (let i = 0; i < headers.length; i += 2) ctx.set(headers[i]!, headers[i + 1]!);
}

/**
 * Spends one point without refusing (framework-free): the result, or, when the store fails,
 * a spent result that promises nothing until it is back (the caller logs `failed`).
 */
export async function countOnly(limiter: RateLimiter, budget: string, key: string, limit: number): Promise<RateLimitResult & { failed?: RateLimitStoreError }> {
  try {
    return await limiter.consume(budget, key, limit);
  } catch (e) {
    if (!(e instanceof RateLimitStoreError)) throw e;
    return { allowed: false, limit, remaining: 0, resetSeconds: STORE_RETRY_SECONDS, windowSeconds: limiter.windowSeconds, failed: e };
  }
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
      detail: `Rate limit of ${limit} requests per ${outcome.windowSeconds} seconds exceeded. Retry after ${outcome.resetSeconds} seconds.`,
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
  const result = await countOnly(limiter, budget, key, limit);
  // The headers are promised on every response; while the store fails nothing may be spent.
  setRateLimitHeaders(ctx, result);
  if (result.failed) {
    ctx.state.log?.error({ err: result.failed.message, budget, request_id: ctx.state.requestId }, 'rate limit store failure');
    return 'unavailable';
  }
  return result.allowed ? 'allowed' : result;
}

/** Koa middleware for a budget keyed by something in the context (address, account...). */
export function rateLimit(opts: { limiter: RateLimiter; budget: string; limit: number; key: (ctx: Context) => string }): Middleware {
  return async (ctx: Context, next: Next) => {
    await enforceRateLimit(ctx, opts.limiter, opts.budget, opts.key(ctx), opts.limit);
    await next();
  };
}
