import { describe, expect, it } from 'vitest';
import { formatMoney, makeFormatters, timeZones } from './format';

/** Intl separates with no-break spaces (U+00A0, U+202F): written here as plain spaces. */
const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('money', () => {
  it('shows an amount in the reader’s language: 1,234.50 in en-US, 1.234,50 in de-DE', () => {
    expect(formatMoney('1234.5', 'EUR', 'en-US')).toBe('€1,234.50');
    expect(plain(formatMoney('1234.5', 'EUR', 'de-DE'))).toBe('1.234,50 €');
    expect(formatMoney('1234.5', 'USD', 'en-US')).toBe('$1,234.50');
    expect(plain(formatMoney('1234.5', 'USD', 'de-DE'))).toBe('1.234,50 $');
  });

  it('shows each currency with its own digits: yen without decimals, dinars with three', () => {
    expect(formatMoney('1234', 'JPY', 'en-US')).toBe('¥1,234');
    expect(plain(formatMoney('1234', 'JPY', 'de-DE'))).toBe('1.234 ¥');
    expect(plain(formatMoney('1.5', 'KWD', 'en-US'))).toBe('KWD 1.500');
  });

  it('shows a decimal string exactly, beyond what a float holds', () => {
    expect(formatMoney('12345678901234567.89', 'USD', 'en-US')).toBe('$12,345,678,901,234,567.89');
    expect(formatMoney('0.10', 'EUR', 'en-US')).toBe('€0.10');
    expect(formatMoney('-25.00', 'EUR', 'en-US')).toBe('-€25.00');
  });

  it('shows an amount with a currency code Intl does not take as the amount and the code', () => {
    expect(formatMoney('12.50', 'EURO', 'en-US')).toBe('12.50 EURO');
  });

  it('keeps each language apart: de-DE after en-US still reads 1.234,50', () => {
    expect(plain(formatMoney('1234.5', 'CHF', 'en-US'))).toBe('CHF 1,234.50');
    expect(plain(formatMoney('1234.5', 'CHF', 'de-DE'))).toBe('1.234,50 CHF');
  });

  it('is what the formatters of a language show', () => {
    expect(plain(makeFormatters('UTC', 'de-DE').money('99.9', 'EUR'))).toBe('99,90 €');
  });
});

describe('dates and times', () => {
  it('shows an instant in the account’s time zone, across the change to summer time', () => {
    const berlin = makeFormatters('Europe/Berlin', 'de-DE');
    expect(berlin.timeZone).toBe('Europe/Berlin');
    // 29 March 2026: 01:00 UTC is 02:00 CET, which becomes 03:00 CEST.
    expect(berlin.dateTime('2026-03-29T00:30:00Z')).toBe('29.03.2026, 01:30');
    expect(berlin.dateTime('2026-03-29T01:30:00Z')).toBe('29.03.2026, 03:30');
  });

  it('shows the night New York turns its clocks back as its clocks read: 1:30 AM twice, an hour apart', () => {
    const ny = makeFormatters('America/New_York', 'en-US');
    // 1 November 2026: 1:30 EDT (05:30 UTC), then 1:30 EST (06:30 UTC).
    expect(plain(ny.dateTime('2026-11-01T05:30:00Z'))).toBe('Nov 1, 2026, 1:30 AM');
    expect(plain(ny.dateTime('2026-11-01T06:30:00Z'))).toBe('Nov 1, 2026, 1:30 AM');
    expect(plain(ny.dateTime('2026-11-01T04:30:00Z'))).toBe('Nov 1, 2026, 12:30 AM');
    expect(plain(ny.dateTime('2026-11-01T07:30:00Z'))).toBe('Nov 1, 2026, 2:30 AM');
  });

  it('shows a calendar day as that day wherever the reader is', () => {
    for (const zone of ['Pacific/Honolulu', 'UTC', 'Pacific/Kiritimati']) {
      const f = makeFormatters(zone, 'en-US');
      expect(f.day('2026-03-29')).toBe('Mar 29, 2026');
      expect(f.day('2026-12-31T23:59:59Z')).toBe('Dec 31, 2026');
    }
    expect(makeFormatters('UTC', 'de-DE').day('2026-03-29')).toBe('29.03.2026');
  });

  it('shows a dash for a missing date and the text itself for one it cannot read', () => {
    const f = makeFormatters('UTC', 'en-US');
    expect(f.dateTime(null)).toBe('—');
    expect(f.dateTime(undefined, 'never')).toBe('never');
    expect(f.dateTime('soon')).toBe('soon');
    expect(f.day('')).toBe('—');
    expect(f.day('someday')).toBe('someday');
  });

  it('falls back to the browser’s zone when the account’s is unknown', () => {
    const browser = Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(makeFormatters('Mars/Olympus_Mons', 'en-US').timeZone).toBe(browser);
    expect(makeFormatters(null, 'en-US').timeZone).toBe(browser);
  });
});

describe('numbers', () => {
  it('groups thousands in the reader’s language', () => {
    expect(makeFormatters('UTC', 'en-US').number(1234567)).toBe('1,234,567');
    expect(makeFormatters('UTC', 'de-DE').number(1234567)).toBe('1.234.567');
    expect(plain(makeFormatters('UTC', 'fr-FR').number(1234567))).toBe('1 234 567');
  });
});

describe('the time zone list', () => {
  it('offers UTC and the account’s current zone, sorted, each once', () => {
    const zones = timeZones('Etc/Unknown_Zone');
    expect(zones).toContain('UTC');
    expect(zones).toContain('Europe/Berlin');
    expect(zones).toContain('Etc/Unknown_Zone');
    expect(new Set(zones).size).toBe(zones.length);
    expect([...zones].sort((a, b) => a.localeCompare(b))).toEqual(zones);
  });
});
