/** The retry schedule: 8 attempts in all; the wait before attempt n (n >= 2) is min(6 h, 1 min x 4^(n-2)), with +-10% jitter. */
export const MAX_ATTEMPTS = 8;
const MINUTE = 60_000;
const CAP = 6 * 3_600_000;

export function retryDelayMs(nextAttempt: number, random: () => number = Math.random): number {
  const base = Math.min(CAP, MINUTE * 4 ** (nextAttempt - 2));
  return Math.min(CAP, Math.round(base * (0.9 + 0.2 * random())));
}
