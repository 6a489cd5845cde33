import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, retryDelayMs, retrySlot } from './retry';

describe('retry wake-up slots', () => {
  it('wake a retry at or after its time, late by at most 1/64 of its wait', () => {
    const now = Date.UTC(2026, 10, 25);
    for (let n = 2; n <= MAX_ATTEMPTS; n++) {
      for (let i = 0; i < 200; i++) {
        const at = now + retryDelayMs(n);
        const slot = retrySlot(at, now);
        expect(slot).toBeGreaterThanOrEqual(at);
        expect(slot - at).toBeLessThanOrEqual(Math.max(1, (at - now) / 64));
      }
    }
  });

  it('stay few however many deliveries fail: with 100,000 retries pending, about a thousand slot jobs are live', () => {
    const start = Date.UTC(2026, 10, 25);
    const live = new Set<number>();
    let most = 0;
    for (let i = 0; i < 100_000; i++) {
      const now = start + Math.floor((i / 100_000) * 6 * 3_600_000); // a failure every ~0.2 s for six hours
      for (const s of live) if (s <= now) live.delete(s); // a slot's job ran and was removed
      const attempt = 2 + (i % (MAX_ATTEMPTS - 1));
      live.add(retrySlot(now + retryDelayMs(attempt), now));
      most = Math.max(most, live.size);
    }
    // One job per retry would be up to 100,000 live jobs; slots are bounded by the schedule's shape.
    expect(most).toBeLessThan(1_500);
  });
});
