/** The dashboard's call: GET /accounts/:account/overview (docs/portal.md). */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api } from './client';

/** Decimal strings per ISO 4217 currency. */
export type Sums = Record<string, string>;

export interface OverviewTotals {
  clicks: number;
  conversions: { total: number; pending: number; approved: number; declined: number };
  commission: { earned: Sums; pending: Sums; approved: Sums; declined: Sums };
  earned_in_payout_currency: { currency: string; amount: string; approximate: boolean; not_converted?: string[] };
  conversion_rate: string | null;
  epc: Sums;
}

export interface OverviewRow {
  clicks: number;
  conversions: number;
  earned: Sums;
  conversion_rate: string | null;
}

export interface Overview {
  timezone: string;
  date_from: string;
  date_to: string;
  bucket: 'day' | 'week' | 'month';
  payout_currency: string;
  /** Every conversion change up to this instant is counted (decision record 0046). */
  as_of?: string;
  totals: OverviewTotals;
  previous: { date_from: string; date_to: string; totals: OverviewTotals };
  series: Array<OverviewRow & { period: string }>;
}

/** GET /accounts/:account/overview/top: read apart (it costs a cell per sub-ID, program and link). */
export interface TopLists {
  subids: Array<OverviewRow & { subid: string | null }>;
  programs: Array<OverviewRow & { program_id: number | null; merchant: { id: number; name: string } | null }>;
  links: Array<
    OverviewRow & {
      link_id: string;
      landing_url: string | null;
      subid: string | null;
      program_id: number | null;
      merchant: { id: number; name: string } | null;
    }
  >;
}

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

export type Channel = 'link' | 'code' | 'agent' | 'inquiry';

/** GET /accounts/:account/overview/channels: the range's conversions and commission by channel (every channel, zeros included). */
export interface ChannelSplit {
  timezone: string;
  date_from: string;
  date_to: string;
  channels: Array<{
    channel: Channel;
    conversions: { total: number; pending: number; approved: number; declined: number };
    commission: { earned: Sums; pending: Sums; approved: Sums; declined: Sums };
  }>;
}

export const channelsQuery = (account: string, range: OverviewRange) =>
  queryOptions({
    queryKey: [...overviewKey(account), 'channels', range.timezone, range.date_from, range.date_to] as const,
    queryFn: ({ signal }) => api<ChannelSplit>(`/accounts/${encodeURIComponent(account)}/overview/channels`, { query: { ...range }, signal }),
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
