import { describe, expect, it } from 'vitest';
import { addDays, daysBetween, isDay, MAX_DAYS, presetRange, rangeProblem, todayIn } from './ranges';

describe('today in the account’s time zone', () => {
  it('is the calendar day of the account’s zone, not the reader’s', () => {
    const now = new Date('2026-06-30T20:00:00Z');
    expect(todayIn('Pacific/Auckland', now)).toBe('2026-07-01');
    expect(todayIn('America/Los_Angeles', now)).toBe('2026-06-30');
    expect(todayIn('UTC', now)).toBe('2026-06-30');
  });

  it('moves to the next day at local midnight on both sides of the change to summer time', () => {
    // Berlin is UTC+1 on 28 March 2026 and UTC+2 from 29 March.
    expect(todayIn('Europe/Berlin', new Date('2026-03-28T22:30:00Z'))).toBe('2026-03-28');
    expect(todayIn('Europe/Berlin', new Date('2026-03-28T23:30:00Z'))).toBe('2026-03-29');
    expect(todayIn('Europe/Berlin', new Date('2026-03-29T21:30:00Z'))).toBe('2026-03-29');
    expect(todayIn('Europe/Berlin', new Date('2026-03-29T22:30:00Z'))).toBe('2026-03-30');
  });

  it('is the UTC day when the zone is unknown', () => {
    expect(todayIn('Nowhere/Special', new Date('2026-06-30T23:30:00Z'))).toBe('2026-06-30');
  });
});

describe('the presets', () => {
  it('"Last 7 days" is seven calendar days ending today, across the change to summer time', () => {
    const r = presetRange('7d', '2026-03-31');
    expect(r).toEqual({ date_from: '2026-03-25', date_to: '2026-03-31' });
    expect(daysBetween(r.date_from, r.date_to)).toBe(7);
  });

  it('"Last 30 days" is thirty calendar days across the change back to winter time', () => {
    const r = presetRange('30d', '2026-11-15');
    expect(r).toEqual({ date_from: '2026-10-17', date_to: '2026-11-15' });
    expect(daysBetween(r.date_from, r.date_to)).toBe(30);
  });

  it('"Last 90 days" and "Last 12 months" end today and span 90 and 365 days', () => {
    const ninety = presetRange('90d', '2026-03-01');
    expect(ninety.date_to).toBe('2026-03-01');
    expect(daysBetween(ninety.date_from, ninety.date_to)).toBe(90);
    const year = presetRange('12m', '2026-03-01');
    expect(year).toEqual({ date_from: '2025-03-02', date_to: '2026-03-01' });
    expect(daysBetween(year.date_from, year.date_to)).toBe(365);
  });

  it('"This month" starts on its first day', () => {
    expect(presetRange('month', '2026-03-31')).toEqual({ date_from: '2026-03-01', date_to: '2026-03-31' });
    expect(presetRange('month', '2026-03-01')).toEqual({ date_from: '2026-03-01', date_to: '2026-03-01' });
  });

  it('"Last month" is the whole month before, December in January and the 29th of February in a leap year', () => {
    expect(presetRange('last-month', '2026-01-15')).toEqual({ date_from: '2025-12-01', date_to: '2025-12-31' });
    expect(presetRange('last-month', '2024-03-31')).toEqual({ date_from: '2024-02-01', date_to: '2024-02-29' });
    expect(presetRange('last-month', '2026-03-10')).toEqual({ date_from: '2026-02-01', date_to: '2026-02-28' });
  });
});

describe('a custom range', () => {
  it('asks for both days when one is missing or is not a day of the calendar', () => {
    expect(rangeProblem('', '2026-03-01')).toBe('Enter both days.');
    expect(rangeProblem('2026-02-30', '2026-03-01')).toBe('Enter both days.');
    expect(rangeProblem('2026-3-1', '2026-03-02')).toBe('Enter both days.');
  });

  it('refuses a first day after the last', () => {
    expect(rangeProblem('2026-03-02', '2026-03-01')).toBe('The first day must not be after the last.');
  });

  it('takes up to 366 days (a leap year), not one more', () => {
    expect(MAX_DAYS).toBe(366);
    expect(rangeProblem('2024-01-01', '2024-12-31')).toBeNull();
    expect(rangeProblem('2024-01-01', '2025-01-01')).toBe('A range covers at most 366 days.');
    expect(rangeProblem('2026-03-01', '2026-03-01')).toBeNull();
  });

  it('reads a day only as the calendar has it', () => {
    expect(isDay('2024-02-29')).toBe(true);
    expect(isDay('2026-02-29')).toBe(false);
    expect(isDay('2026-13-01')).toBe(false);
    expect(isDay(null)).toBe(false);
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });
});
