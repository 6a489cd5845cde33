import { describe, expect, it } from 'vitest';
import { makeFormatters } from '../lib/format';
import { changeOf, percent, periodLabel, shortUrl, statusOf, sumsInWords, underReview } from './dashboard-format';

const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('the account’s status', () => {
  it('says "Under review" for every status the review goes through', () => {
    for (const s of ['pending', 'provisional', 'under_review', 'claimed']) {
      expect(statusOf(s)).toEqual({ label: 'Under review', tone: 'warning' });
      expect(underReview(s)).toBe(true);
    }
    expect(underReview('active')).toBe(false);
  });

  it('names active and inactive accounts, and any other status readably', () => {
    expect(statusOf('active')).toEqual({ label: 'Active', tone: 'success' });
    expect(statusOf('inactive')).toEqual({ label: 'Inactive', tone: 'danger' });
    expect(statusOf('on_hold')).toEqual({ label: 'On hold', tone: 'neutral' });
  });
});

describe('percentages', () => {
  it('shows a conversion rate to two places in the reader’s language, a dash when there is none', () => {
    expect(percent('0.0525', {}, 'en-US')).toBe('5.25%');
    expect(plain(percent('0.0525', {}, 'de-DE'))).toBe('5,25 %');
    expect(percent('0.123456', {}, 'en-US')).toBe('12.35%');
    expect(percent(null, {}, 'en-US')).toBe('—');
  });
});

describe('the change from the previous period', () => {
  it('is up or down in words, to one place', () => {
    expect(changeOf('112.50', '100', 'en-US')).toEqual({ sign: 'up', text: 'Up 12.5%' });
    expect(changeOf(90, 120, 'en-US')).toEqual({ sign: 'down', text: 'Down 25%' });
    expect(changeOf('0.0300', '0.0200', 'de-DE')).toEqual({ sign: 'up', text: 'Up 50\u00a0%' });
  });

  it('says "No change" when the two are equal, and nothing when there was nothing before', () => {
    expect(changeOf(1204, 1204, 'en-US')).toEqual({ sign: 'flat', text: 'No change' });
    expect(changeOf('5.00', '0.00', 'en-US')).toBeNull();
  });
});

describe('the chart’s periods', () => {
  const fmt = makeFormatters('Pacific/Honolulu', 'en-US');
  it('labels a day, a week and a month as the calendar has them, wherever the reader is', () => {
    expect(periodLabel('2026-03-29', 'day', fmt, 'en-US')).toBe('Mar 29');
    expect(periodLabel('2026-03-23', 'week', fmt, 'en-US')).toBe('Week of Mar 23');
    expect(periodLabel('2026-03', 'month', fmt, 'en-US')).toBe('Mar 2026');
    expect(periodLabel('2026-03-29', 'day', makeFormatters('UTC', 'de-DE'), 'de-DE')).toBe('29. März');
  });
});

describe('sums per currency and links', () => {
  it('lists each currency’s sum in its own currency, a dash when there is none', () => {
    const fmt = makeFormatters('UTC', 'en-US');
    expect(sumsInWords({ EUR: '12.50', JPY: '300' }, fmt)).toBe('€12.50, ¥300');
    expect(sumsInWords({}, fmt)).toBe('—');
  });

  it('shows a landing URL without its scheme and a lone slash', () => {
    expect(shortUrl('https://shop.example/')).toBe('shop.example');
    expect(shortUrl('https://shop.example:8443/shoes/red?utm=x')).toBe('shop.example:8443/shoes/red');
    expect(shortUrl('not a url')).toBe('not a url');
  });
});
