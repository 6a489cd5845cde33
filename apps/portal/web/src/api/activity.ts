/**
 * The activity calls (docs/portal.md "Activity"): conversions, a conversion with its history,
 * clicks, their CSV exports (plain links: the browser downloads them with the session cookie),
 * and the events feed the live updates read (src/lib/live.ts).
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api, API_BASE } from './client';

export type ConversionStatus = 'pending' | 'approved' | 'declined';
export const CONVERSION_STATUSES: ConversionStatus[] = ['pending', 'approved', 'declined'];
/** How a sale was attributed: a tracked link, a coupon code, an AI agent's token, or a missing-sale inquiry. */
export type ConversionChannel = 'link' | 'code' | 'agent' | 'inquiry';
export const CONVERSION_CHANNELS: ConversionChannel[] = ['link', 'code', 'agent', 'inquiry'];

export interface Merchant {
  id: number;
  name: string;
}

/** A conversion as GET /conversions/ shows it (money: decimal strings). */
export interface Conversion {
  id: string;
  status: ConversionStatus;
  subid: string | null;
  campaign_id: number | null;
  program_id: number | null;
  merchant: Merchant | null;
  sale_amount: string;
  commission: string;
  currency: string;
  click_id: string | null;
  deeplink_id: string | null;
  /** Absent on ledger entries (and before channels existed): a link. */
  channel?: ConversionChannel;
  source: 'v1' | 'ledger';
  reason?: string | null;
  reversed: boolean;
  occurred_at: string;
  updated_at: string;
}

export interface ConversionEvent {
  id: string;
  type: string;
  event: 'created' | 'approved' | 'declined' | 'reversed';
  status: ConversionStatus;
  created_at: string;
  logged_at: string | null;
}

export interface ConversionDetail extends Conversion {
  events: ConversionEvent[];
}

export interface ListPage<T> {
  data: T[];
  page: number;
  page_size: number;
  has_more: boolean;
  next_page: number | null;
  next_cursor: string | null;
}

export interface SubidRollup {
  subid: string | null;
  conversions: number;
  /** Decimal strings per currency. */
  commission: Record<string, string>;
}

export interface ConversionsPage extends ListPage<Conversion> {
  subid_rollup: SubidRollup[];
}

export interface Click {
  id: string;
  created_at: string;
  deeplink_id: string;
  program_id: number;
  campaign_id: number;
  sub_id: string | null;
  referrer: string | null;
  user_agent: string | null;
  is_bot: boolean;
  bot_reason: string | null;
}

/** A sale event (the postback body, an entry of the events feed and of its stream). */
export interface SaleEvent {
  id: string;
  type: 'sale.created' | 'sale.approved' | 'sale.declined' | 'sale.reversed';
  event: string;
  created_at: string;
  publisher_id: string;
  conversion: {
    id: string;
    status: ConversionStatus;
    subid: string | null;
    commission: string;
    sale_amount: string;
    currency: string;
    program_id: number | null;
    campaign_id: number | null;
    merchant: Merchant | null;
    click_id: string | null;
    occurred_at: string;
  };
}

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
    queryFn: ({ signal }) => api<ListPage<Click>>(`${acct(account)}/clicks`, { query: { ...filters, ...paging }, signal }),
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });

/** The CSV of every conversion of these filters (exactly what the list shows, all pages). */
export const conversionsExportUrl = (account: string, filters: ConversionFilters) =>
  `${API_BASE}${acct(account)}/conversions/export${queryString({ ...filters })}`;

/** The CSV of every click of these filters (exactly what the list shows, all pages). */
export const clicksExportUrl = (account: string, filters: ClickFilters) => `${API_BASE}${acct(account)}/clicks/export${queryString({ ...filters })}`;

/** The cursor after the account's newest event: the live stream starts there. */
export const latestEventCursor = (account: string) => api<{ cursor: string }>(`${acct(account)}/events/latest`);

/** The account's SSE stream from `cursor` (EventSource sends the session cookie). */
export const eventStreamUrl = (account: string, cursor: string) => `${API_BASE}${acct(account)}/events/stream${queryString({ cursor })}`;

/** One event of the feed after `cursor`: asked only to learn why a stream was refused (410 expired, 404, 401). */
export const probeEvents = (account: string, cursor: string) => api<unknown>(`${acct(account)}/events`, { query: { cursor, limit: 1 } });
