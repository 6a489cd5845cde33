/** Dates and money with Intl: dates in the account's time zone when it is known, money per currency. */
import { createContext, useContext } from 'react';

export interface Formatters {
  /** The IANA zone dates are shown in (the account's, else the browser's). */
  timeZone: string;
  dateTime(iso: string | null | undefined, fallback?: string): string;
  /** A calendar date (YYYY-MM-DD), shown as that day wherever the reader is. */
  day(isoDay: string | null | undefined, fallback?: string): string;
  money(amount: string | number, currency: string): string;
  number(n: number): string;
}

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

function dateTimeFormat(timeZone: string, locale: string | undefined): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone });
  } catch {
    // An unknown zone: the browser's.
    return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
  }
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/** An amount in its currency's own digits (JPY none, KWD three); `locale` undefined: the browser's language. */
export function formatMoney(amount: string | number, currency: string, locale?: string): string {
  const key = `${locale ?? ''}|${currency}`;
  let f = moneyFormats.get(key);
  if (!f) {
    try {
      f = new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: 'symbol' });
    } catch {
      return `${amount} ${currency}`;
    }
    moneyFormats.set(key, f);
  }
  // A decimal string is formatted exactly where Intl takes strings (ES2023); a number elsewhere.
  const value = typeof amount === 'string' ? (amount as Intl.StringNumericLiteral) : amount;
  return f.format(value);
}

/** The formatters of a zone (else the browser's); `locale` undefined: the browser's language (tests name one). */
export function makeFormatters(zone?: string | null, locale?: string): Formatters {
  const dtf = dateTimeFormat(zone || browserZone(), locale);
  const timeZone = dtf.resolvedOptions().timeZone;
  const dayFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  const numberFormat = new Intl.NumberFormat(locale);
  return {
    timeZone,
    dateTime(iso, fallback = '—') {
      if (!iso) return fallback;
      const d = new Date(iso);
      return Number.isNaN(d.getTime()) ? iso : dtf.format(d);
    },
    day(isoDay, fallback = '—') {
      if (!isoDay) return fallback;
      const d = new Date(`${isoDay.slice(0, 10)}T00:00:00Z`);
      return Number.isNaN(d.getTime()) ? isoDay : dayFormat.format(d);
    },
    money: (amount, currency) => formatMoney(amount, currency, locale),
    number: (n) => numberFormat.format(n),
  };
}

export const FormatContext = createContext<Formatters>(makeFormatters());

export const useFormat = (): Formatters => useContext(FormatContext);

/** Every IANA zone the browser knows (UTC included), for the time zone select. */
export function timeZones(current?: string | null): string[] {
  let zones: string[] = [];
  try {
    zones = Intl.supportedValuesOf('timeZone');
  } catch {
    zones = [];
  }
  const all = new Set(zones);
  all.add('UTC');
  if (current) all.add(current);
  return [...all].sort((a, b) => a.localeCompare(b));
}
