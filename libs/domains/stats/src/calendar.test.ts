/** A zone's calendar days as UTC instants, across daylight-saving changes and odd offsets, and the report buckets. */
import { describe, expect, it } from 'vitest';
import { ApiError } from '@cw/errors';
import { addDays, bucketOf, daysBetween, mondayOf, nextDay, offsetCalendar, zoneCalendar } from './calendar';

const iso = (t: number) => new Date(t).toISOString();

describe('zone calendars', () => {
  it('start each local day at its local midnight, with the offset of that day', () => {
    const berlin = zoneCalendar('Europe/Berlin');
    expect(iso(berlin.dayStart('2026-01-15'))).toBe('2026-01-14T23:00:00.000Z');
    expect(iso(berlin.dayStart('2026-07-15'))).toBe('2026-07-14T22:00:00.000Z');
    // The day clocks go forward is 23 hours long, the day they go back 25.
    expect(berlin.dayStart('2026-03-30') - berlin.dayStart('2026-03-29')).toBe(23 * 3_600_000);
    expect(berlin.dayStart('2026-10-26') - berlin.dayStart('2026-10-25')).toBe(25 * 3_600_000);
    expect(iso(zoneCalendar('Asia/Kolkata').dayStart('2026-11-02'))).toBe('2026-11-01T18:30:00.000Z');
    expect(iso(zoneCalendar('Asia/Kathmandu').dayStart('2026-11-02'))).toBe('2026-11-01T18:15:00.000Z');
  });

  it('give the local day of an instant, the inverse of its start', () => {
    const ny = zoneCalendar('America/New_York');
    for (const day of ['2026-03-08', '2026-11-01', '2026-12-31']) {
      expect(ny.dayOf(ny.dayStart(day))).toBe(day);
      expect(ny.dayOf(ny.dayStart(day) - 1)).toBe(addDays(day, -1));
    }
  });

  it('refuse an unknown zone as invalid_parameter naming the parameter', () => {
    let err: unknown;
    try {
      zoneCalendar('Mars/Olympus', 'tz');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('invalid_parameter');
    expect((err as ApiError).detail).toContain("'tz'");
  });

  it('a fixed offset shifts every day by the same amount', () => {
    const minus5 = offsetCalendar(-5 * 3_600_000, 'UTC-5');
    expect(iso(minus5.dayStart('2026-07-01'))).toBe('2026-07-01T05:00:00.000Z');
    expect(minus5.dayOf(Date.parse('2026-07-01T04:59:59Z'))).toBe('2026-06-30');
  });
});

describe('days and buckets', () => {
  it('steps days across months and years', () => {
    expect(nextDay('2026-02-28')).toBe('2026-03-01');
    expect(nextDay('2028-02-28')).toBe('2028-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(daysBetween('2026-01-01', '2027-01-01')).toBe(365);
  });

  it('buckets a day into itself, its ISO week (Monday) or its month', () => {
    expect(mondayOf('2026-11-01')).toBe('2026-10-26'); // a Sunday belongs to the week before
    expect(mondayOf('2026-11-02')).toBe('2026-11-02');
    expect(bucketOf('2026-11-04', 'day')).toBe('2026-11-04');
    expect(bucketOf('2026-11-04', 'week')).toBe('2026-11-02');
    expect(bucketOf('2026-11-04', 'month')).toBe('2026-11');
  });
});
