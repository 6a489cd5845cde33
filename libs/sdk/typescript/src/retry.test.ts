import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter, retryAfterDelay } from './retry';

describe('retry timing', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7000);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:10 GMT', Date.parse('Wed, 21 Oct 2026 07:28:00 GMT'))).toBe(10_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('backs off exponentially with full jitter up to the cap, and never waits less than Retry-After', () => {
    const opts = { baseDelayMs: 500, maxDelayMs: 20_000 };
    expect(backoffDelay(0, opts, () => 1)).toBe(500);
    expect(backoffDelay(3, opts, () => 1)).toBe(4000);
    expect(backoffDelay(10, opts, () => 1)).toBe(20_000);
    expect(backoffDelay(3, opts, () => 0)).toBe(0);
    expect(retryAfterDelay(3000, () => 0)).toBe(3000);
    expect(retryAfterDelay(3000, () => 1)).toBeLessThanOrEqual(4000);
  });
});
