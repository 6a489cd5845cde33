/**
 * The dashboard's figures in words, apart from its components: the account's status, percentages,
 * the change from the previous period, the chart's period labels, a short URL and a list of sums.
 * `locale` undefined is the browser's language (tests name one).
 */
import type { Overview, Sums } from '../api/dashboard';
import type { PillTone } from '../components/feedback';
import { relativeChange } from '../lib/decimal';
import type { Formatters } from '../lib/format';
import { words } from '../lib/words';

const REVIEW = new Set(['pending', 'provisional', 'under_review', 'claimed']);

/** Whether the account is still under the network's review (every status the review goes through). */
export const underReview = (status: string): boolean => REVIEW.has(status);

export function statusOf(status: string): { label: string; tone: PillTone } {
  if (status === 'active') return { label: 'Active', tone: 'success' };
  if (REVIEW.has(status)) return { label: 'Under review', tone: 'warning' };
  if (status === 'inactive') return { label: 'Inactive', tone: 'danger' };
  return { label: words(status), tone: 'neutral' };
}

/** A ratio (a decimal string, 0.125 is 12.5%) as a percentage; "—" when there is none. */
export function percent(ratio: string | null, fmtOpts: Intl.NumberFormatOptions = {}, locale?: string): string {
  if (ratio === null) return '—';
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 2, ...fmtOpts }).format(ratio as Intl.StringNumericLiteral);
}

export interface Change {
  sign: 'up' | 'down' | 'flat';
  /** "Up 12.5%", "Down 3%", "No change". */
  text: string;
}

/** The change from `previous` to `current` in words (null: no earlier value to compare). */
export function changeOf(current: string | number, previous: string | number, locale?: string): Change | null {
  const change = relativeChange(current, previous);
  if (change === null) return null;
  const sign = change.startsWith('-') ? 'down' : /^0\.0+$/.test(change) ? 'flat' : 'up';
  const text = sign === 'flat' ? 'No change' : `${sign === 'up' ? 'Up' : 'Down'} ${percent(change.replace('-', ''), { maximumFractionDigits: 1 }, locale)}`;
  return { sign, text };
}

/** A period of the series ("2026-03-29", "2026-03") as the chart and the table label it. */
export function periodLabel(period: string, bucket: Overview['bucket'], fmt: Formatters, locale?: string): string {
  if (bucket === 'month') {
    const d = new Date(`${period}-01T00:00:00Z`);
    return new Intl.DateTimeFormat(locale, { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(d);
  }
  const d = new Date(`${period}T00:00:00Z`);
  const day = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(d);
  return bucket === 'week' ? `Week of ${day}` : fmt.day(period) === '—' ? period : day;
}

/** A landing URL without its scheme (and without a lone "/"), as the top links show it. */
export function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return url;
  }
}

/** Sums per currency, each in its own currency, comma separated; "—" when there is none. */
export const sumsInWords = (sums: Sums, fmt: Formatters): string =>
  Object.entries(sums)
    .map(([cur, v]) => fmt.money(v, cur))
    .join(', ') || '—';
