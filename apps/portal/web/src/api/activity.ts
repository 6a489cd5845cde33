/**
 * The activity calls (docs/portal.md "Activity"): conversions, a conversion with its history,
 * clicks, their CSV exports (plain links: the browser downloads them with the session cookie),
 * and the events feed the live updates read (src/lib/live.ts).
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { Answer, Sent } from './answers';
import { api, API_BASE } from './client';

type ConversionsAnswer = Answer<'/portal/api/accounts/{account}/conversions/'>;

export type ConversionStatus = ConversionsAnswer['data'][number]['status'];
export const CONVERSION_STATUSES: ConversionStatus[] = ['pending', 'approved', 'declined'];
/** How a sale was attributed: a tracked link, a coupon code, an AI agent's token, or a missing-sale inquiry. */
export type ConversionChannel = NonNullable<ConversionsAnswer['data'][number]['channel']>;
export const CONVERSION_CHANNELS: ConversionChannel[] = ['link', 'code', 'agent', 'inquiry'];

export type Merchant = NonNullable<Conversion['merchant']>;

/**
 * A conversion as GET /conversions/ shows it (money: decimal strings). `channel` is absent on
 * ledger entries (and before channels existed): a link.
 */
export type Conversion = ConversionsAnswer['data'][number];

export type ConversionDetail = Answer<'/portal/api/accounts/{account}/conversions/{id}/'>;

export type ConversionEvent = ConversionDetail['events'][number];

export type SubidRollup = Sent<NonNullable<ConversionsAnswer['subid_rollup']>[number]>;

/** `subid_rollup`: always written (its schema, declared by @cw/reports, lists no required members). */
export type ConversionsPage = Omit<ConversionsAnswer, 'subid_rollup'> & { subid_rollup: SubidRollup[] };

export type ClicksPage = Answer<'/portal/api/accounts/{account}/clicks/'>;

export type Click = ClicksPage['data'][number];

/** A sale event (the postback body, an entry of the events feed and of its stream). */
export type SaleEvent = Sent<Extract<Answer<'/portal/api/accounts/{account}/events/'>['data'][number], { type: `sale.${string}` }>>;

/** The conversions list's filters, as the API takes them (dates: UTC days, inclusive). */
export interface ConversionFilters {
  date_from?: string;
  date_to?: string;
  status?: ConversionStatus;
  subid?: string;
  channel?: ConversionChannel;
}

/** The clicks list's filters, as the API takes them. */
export interface ClickFilters {
  sub_id?: string;
  /** The merchant (campaign) id. */
  campaign_id?: string;
  /** The link id. */
  deeplink_id?: string;
  include_bots?: boolean;
}

export interface Paging {
  cursor?: string;
  page_size: number;
}

export const PAGE_SIZES = [25, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 50;

const acct = (account: string) => `/accounts/${encodeURIComponent(account)}`;

/** Keys of the cached answers; the live updates invalidate `activityKeys.conversions(account)`. */
export const activityKeys = {
  conversions: (account: string) => ['activity', account, 'conversions'] as const,
  conversion: (account: string, id: string) => ['activity', account, 'conversion', id] as const,
  clicks: (account: string) => ['activity', account, 'clicks'] as const,
};

type Query = Record<string, string | number | boolean | undefined>;

function queryString(q: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '' && v !== false) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

export const conversionsQuery = (account: string, filters: ConversionFilters, paging: Paging) =>
  queryOptions({
    queryKey: [...activityKeys.conversions(account), 'list', filters, paging] as const,
    queryFn: ({ signal }) => api<ConversionsPage>(`${acct(account)}/conversions`, { query: { ...filters, ...paging }, signal }),
    // The previous page stays on screen while the next loads (no jump, the focus kept).
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });

export const conversionQuery = (account: string, id: string) =>
  queryOptions({
    queryKey: activityKeys.conversion(account, id),
    queryFn: ({ signal }) => api<ConversionDetail>(`${acct(account)}/conversions/${encodeURIComponent(id)}`, { signal }),
    retry: (n, e) => n < 2 && !(e && typeof e === 'object' && 'status' in e && (e as { status: number }).status === 404),
  });

export const clicksQuery = (account: string, filters: ClickFilters, paging: Paging) =>
  queryOptions({
    queryKey: [...activityKeys.clicks(account), 'list', filters, paging] as const,
    queryFn: ({ signal }) => api<ClicksPage>(`${acct(account)}/clicks`, { query: { ...filters, ...paging }, signal }),
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });

/** The CSV of every conversion of these filters (exactly what the list shows, all pages). */
export const conversionsExportUrl = (account: string, filters: ConversionFilters) =>
  `${API_BASE}${acct(account)}/conversions/export${queryString({ ...filters })}`;

/** The CSV of every click of these filters (exactly what the list shows, all pages). */
export const clicksExportUrl = (account: string, filters: ClickFilters) => `${API_BASE}${acct(account)}/clicks/export${queryString({ ...filters })}`;

/** The cursor after the account's newest event: the live stream starts there. */
export const latestEventCursor = (account: string) => api<Answer<'/portal/api/accounts/{account}/events/latest/'>>(`${acct(account)}/events/latest`);

/** The account's SSE stream from `cursor` (EventSource sends the session cookie). */
export const eventStreamUrl = (account: string, cursor: string) => `${API_BASE}${acct(account)}/events/stream${queryString({ cursor })}`;

/** One event of the feed after `cursor`: asked only to learn why a stream was refused (410 expired, 404, 401). */
export const probeEvents = (account: string, cursor: string) => api<unknown>(`${acct(account)}/events`, { query: { cursor, limit: 1 } });
