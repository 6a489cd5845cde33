/**
 * The retry schedule: 8 attempts in all; the wait before attempt n (n >= 2) is
 * min(6 h, 1 min x 4^(n-2)), with +-10% jitter. `unitMs` is the schedule's minute (tests shorten
 * it to run the whole schedule in seconds; the cap scales with it).
 */
export const MAX_ATTEMPTS = 8;

export function retryDelayMs(nextAttempt: number, unitMs = 60_000, random: () => number = Math.random): number {
  const cap = 360 * unitMs;
  const base = Math.min(cap, unitMs * 4 ** (nextAttempt - 2));
  return Math.min(cap, Math.round(base * (0.9 + 0.2 * random())));
}

/**
 * The wake-up slot of a retry due at `at` (epoch ms), decided at `now`: `at` rounded up to a
 * multiple of the largest power of two milliseconds not above 1/64 of the wait (at least 1 ms). A
 * retry is woken at most 1/64 of its wait late (under 1 s for the first, minute-long, wait), and the
 * slots in use at any time stay few whatever the number of failing deliveries: at most 64 or so
 * per doubling of the wait, about 1,200 over the whole 6-hour schedule.
 */
export function retrySlot(at: number, now: number): number {
  const width = 2 ** Math.max(0, Math.floor(Math.log2(Math.max(1, (at - now) / 64))));
  return Math.ceil(at / width) * width;
}
