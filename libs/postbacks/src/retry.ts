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
