/** Date ranges of the dashboard: presets and custom days, as calendar days of the account's time zone. */

export type PresetId = '7d' | '30d' | '90d' | 'month' | 'last-month' | '12m';

export const PRESETS: ReadonlyArray<{ id: PresetId; label: string }> = [
  { id: '7d', label: 'Last 7 days' },
  { id: '30d', label: 'Last 30 days' },
  { id: '90d', label: 'Last 90 days' },
  { id: 'month', label: 'This month' },
  { id: 'last-month', label: 'Last month' },
  { id: '12m', label: 'Last 12 months' },
];

export const MAX_DAYS = 366;
const DAY_MS = 86_400_000;
const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

/** Today in a time zone, YYYY-MM-DD. */
export function todayIn(timeZone: string, now = new Date()): string {
  try {
    return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
  } catch {
    return now.toISOString().slice(0, 10);
  }
}

const utc = (day: string) => Date.parse(`${day}T00:00:00Z`);
const iso = (t: number) => new Date(t).toISOString().slice(0, 10);
export const addDays = (day: string, n: number) => iso(utc(day) + n * DAY_MS);
export const daysBetween = (from: string, to: string) => Math.round((utc(to) - utc(from)) / DAY_MS) + 1;
export const isDay = (s: string | null | undefined): s is string => !!s && DAY_RE.test(s) && !Number.isNaN(utc(s)) && iso(utc(s)) === s;

/** The days of a preset, ending today in the zone. */
export function presetRange(id: PresetId, today: string): { date_from: string; date_to: string } {
  switch (id) {
    case '7d':
      return { date_from: addDays(today, -6), date_to: today };
    case '90d':
      return { date_from: addDays(today, -89), date_to: today };
    case 'month':
      return { date_from: `${today.slice(0, 7)}-01`, date_to: today };
    case 'last-month': {
      const end = addDays(`${today.slice(0, 7)}-01`, -1);
      return { date_from: `${end.slice(0, 7)}-01`, date_to: end };
    }
    case '12m':
      return { date_from: addDays(today, -364), date_to: today };
    default:
      return { date_from: addDays(today, -29), date_to: today };
  }
}

/** What is wrong with a custom range (null: nothing). */
export function rangeProblem(from: string, to: string): string | null {
  if (!isDay(from) || !isDay(to)) return 'Enter both days.';
  if (from > to) return 'The first day must not be after the last.';
  if (daysBetween(from, to) > MAX_DAYS) return `A range covers at most ${MAX_DAYS} days.`;
  return null;
}
