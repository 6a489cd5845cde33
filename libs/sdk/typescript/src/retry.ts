/** When to retry a call, and how long to wait: exponential backoff with full jitter, Retry-After first. */

export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 turns retries off). */
  maxRetries?: number;
  /** First backoff step (default 500 ms); doubles per retry. */
  baseDelayMs?: number;
  /** Largest backoff step (default 20 s). */
  maxDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the error is thrown (default 60 s). */
  maxRetryAfterMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 20_000, maxRetryAfterMs: 60_000 };

/** Full jitter: a uniformly random wait up to min(max, base * 2^attempt). `attempt` counts from 0. */
export function backoffDelay(attempt: number, opts: Pick<Required<RetryOptions>, 'baseDelayMs' | 'maxDelayMs'>, random: () => number = Math.random): number {
  const ceiling = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** attempt);
  return Math.round(random() * ceiling);
}

/** Retry-After (delta seconds or an HTTP date) in milliseconds; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before the next attempt after a refusal that asked for one: the Retry-After plus a
 * little jitter (so many clients told the same second do not return together), never less.
 */
export function retryAfterDelay(retryAfterMs: number, random: () => number = Math.random): number {
  return retryAfterMs + Math.round(random() * Math.min(1_000, 100 + retryAfterMs * 0.1));
}

/** Methods that are safe or idempotent by HTTP's definition. */
export const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
