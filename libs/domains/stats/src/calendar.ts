/**
 * Calendar days of a time zone (an IANA name) or a fixed offset, as UTC instants: where each local
 * day starts. Exact across daylight-saving changes and for zones offset by 30 or 45 minutes (every
 * offset in use since 1980 is a whole number of quarter hours, the stats model's slot).
 */
import { ApiError } from '@cw/errors';
import { DAY_MS, QUARTER_MS } from './cells';

export interface Calendar {
  /** The name the answer echoes. */
  readonly name: string;
  /** The instant the local day `YYYY-MM-DD` starts. */
  dayStart(day: string): number;
  /** The local day of an instant. */
  dayOf(t: number): string;
}

const utcDay = (day: string) => Date.parse(`${day}T00:00:00.000Z`);
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

/** A fixed offset from UTC in milliseconds (HasOffers' `hour_offset`). */
export function offsetCalendar(offsetMs: number, name = 'UTC'): Calendar {
  return { name, dayStart: (day) => utcDay(day) - offsetMs, dayOf: (t) => isoDay(t + offsetMs) };
}

export const UTC_CALENDAR = offsetCalendar(0);

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The IANA zone's calendar; an unknown zone is 400 invalid_parameter on `param`. */
export function zoneCalendar(zone: string, param = 'timezone'): Calendar {
  if (zone === 'UTC') return UTC_CALENDAR;
  let fmt = formatters.get(zone);
  if (!fmt) {
    try {
      fmt = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
    } catch {
      throw new ApiError({
        code: 'invalid_parameter',
        detail: `Invalid parameter '${param}': "${zone}" is not an IANA time zone (e.g. Europe/Berlin, Asia/Kolkata).`,
        errors: [{ param, detail: 'must be an IANA time zone name' }],
      });
    }
    if (formatters.size < 500) formatters.set(zone, fmt);
  }
  const f = fmt;
  const dayOf = (t: number) => f.format(t);
  const starts = new Map<string, number>();
  return {
    name: zone,
    dayOf,
    dayStart(day) {
      const known = starts.get(day);
      if (known !== undefined) return known;
      // The first quarter hour whose local day is `day`: offsets lie within -12h..+14h.
      let lo = Math.floor((utcDay(day) - 15 * 3_600_000) / QUARTER_MS);
      let hi = Math.ceil((utcDay(day) + 13 * 3_600_000) / QUARTER_MS);
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        if (dayOf(mid * QUARTER_MS) >= day) hi = mid;
        else lo = mid + 1;
      }
      const t = lo * QUARTER_MS;
      if (starts.size < 2000) starts.set(day, t);
      return t;
    },
  };
}

export const nextDay = (day: string) => isoDay(utcDay(day) + DAY_MS);
export const addDays = (day: string, n: number) => isoDay(utcDay(day) + n * DAY_MS);
export const daysBetween = (from: string, to: string) => Math.round((utcDay(to) - utcDay(from)) / DAY_MS);

/** Monday of the week of a day (ISO weeks). */
export function mondayOf(day: string): string {
  const t = utcDay(day);
  return isoDay(t - ((new Date(t).getUTCDay() + 6) % 7) * DAY_MS);
}

/** A report's time bucket. */
export type Bucket = 'day' | 'week' | 'month';

/** The key of the bucket a local day falls in: the day, its week's Monday, or `YYYY-MM`. */
export const bucketOf = (day: string, bucket: Bucket) => (bucket === 'week' ? mondayOf(day) : bucket === 'month' ? day.slice(0, 7) : day);
