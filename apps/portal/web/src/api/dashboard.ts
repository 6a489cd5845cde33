/** The dashboard's call: GET /accounts/:account/overview (docs/portal.md). */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { Maybe, SentAnswer } from './answers';
import { api } from './client';

/** Decimal strings per ISO 4217 currency. */
export type Sums = Record<string, string>;

/** `as_of`: every conversion change up to this instant is counted (decision record 0046). */
export type Overview = Maybe<SentAnswer<'/portal/api/accounts/{account}/overview/'>, 'as_of'>;

/** (`earned_in_payout_currency.not_converted`, unread here, is written only when a currency did not convert.) */
export type OverviewTotals = Overview['totals'];

export type OverviewRow = Omit<Overview['series'][number], 'period'>;

/** GET /accounts/:account/overview/top: read apart (it costs a cell per sub-ID, program and link). */
export type TopLists = SentAnswer<'/portal/api/accounts/{account}/overview/top/'>;

export interface OverviewRange {
  date_from: string;
  date_to: string;
  /** The account's IANA zone (the days are its calendar days). */
  timezone: string;
}

export const overviewKey = (account: string) => ['overview', account] as const;

export const overviewQuery = (account: string, range: OverviewRange) =>
  queryOptions({
    queryKey: [...overviewKey(account), range.timezone, range.date_from, range.date_to] as const,
    queryFn: ({ signal }) => api<Overview>(`/accounts/${encodeURIComponent(account)}/overview`, { query: { ...range }, signal }),
    // A new range keeps the last numbers on screen (dimmed) until its own arrive.
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });

export const topQuery = (account: string, range: OverviewRange) =>
  queryOptions({
    queryKey: [...overviewKey(account), 'top', range.timezone, range.date_from, range.date_to] as const,
    queryFn: ({ signal }) => api<TopLists>(`/accounts/${encodeURIComponent(account)}/overview/top`, { query: { ...range, top: 5 }, signal }),
    placeholderData: keepPreviousData,
    staleTime: 30_000,
    // A range too long for the time budget answers 503: said once, not retried three times.
    retry: false,
  });

/** GET /accounts/:account/overview/channels: the range's conversions and commission by channel (every channel, zeros included). */
export type ChannelSplit = SentAnswer<'/portal/api/accounts/{account}/overview/channels/'>;

export type Channel = ChannelSplit['channels'][number]['channel'];

export const channelsQuery = (account: string, range: OverviewRange) =>
  queryOptions({
    queryKey: [...overviewKey(account), 'channels', range.timezone, range.date_from, range.date_to] as const,
    queryFn: ({ signal }) => api<ChannelSplit>(`/accounts/${encodeURIComponent(account)}/overview/channels`, { query: { ...range }, signal }),
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
