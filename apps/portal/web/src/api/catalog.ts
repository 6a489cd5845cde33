/**
 * Products, Programs, Links (with each link's clicks and sales): the portal's calls under
 * `/accounts/:account/...` (docs/portal.md), answering as the publisher API's `/products/`,
 * `/programs/` and `/links/` do, and their types.
 */
import { infiniteQueryOptions, keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { Answer, RequestBody, Sent } from './answers';
import { api } from './client';

const acct = (account: string) => `/accounts/${encodeURIComponent(account)}`;

// Types (the API's answers, as the pages read them)

/** A page of products (`total`: with group=1, the number of groups). */
export type ProductPage = Answer<'/portal/api/accounts/{account}/products/'>;

/** `price`: a decimal string in `currency`; `gtin`: a string (leading zeroes kept); `url`: the account's own tracked link. */
export type Product = ProductPage['products'][number];

export type Availability = Product['availability'];

/** Search filters as the API names them (strings, as in a URL). */
export interface ProductSearch {
  q?: string;
  brand?: string;
  category?: string;
  country?: string;
  merchant?: string;
  group?: string;
  min_price?: string;
  max_price?: string;
  currency?: string;
  limit?: string;
  offset?: string;
}

export const SEARCH_FIELDS = ['q', 'brand', 'category', 'country', 'merchant', 'group', 'min_price', 'max_price', 'currency', 'limit', 'offset'] as const;

export type ProgramPage = Answer<'/portal/api/accounts/{account}/programs/'>;

/** `commission`: in words, as the merchant states it (e.g. "8% of the sale"). */
export type Program = ProgramPage['data'][number];

export type Relationship = Program['relationship'];

/** `created`: false when an assignment already existed. */
export type Application = Answer<'/portal/api/accounts/{account}/programs/apply/', 'post'>;

export type LinkPage = Answer<'/portal/api/accounts/{account}/links/'>;

/** `routes`: smart link routes, tried in order; `fallback`: the link's own GTIN fallback switch (product links; decision 0063). */
export type TrackingLink = LinkPage['data'][number];

export type LinkRoute = NonNullable<TrackingLink['routes']>[number];

export type LinkRequest = RequestBody<'/portal/api/accounts/{account}/links/', 'post'>;

/** A line's error: the schema leaves it a free object (written by hand until it names its members). */
export interface BatchItemError {
  code: string;
  detail: string;
  errors?: Array<{ param: string; detail: string }>;
}

type BatchAnswer = Answer<'/portal/api/accounts/{account}/links/batch/', 'post'>;

/** One outcome per line: `link` when created or existing, `error` when not. */
export type BatchResult = Sent<Omit<BatchAnswer, 'results'>> & {
  results: Array<Omit<Sent<NonNullable<BatchAnswer['results']>[number]>, 'link' | 'error'> & { link?: TrackingLink; error?: BatchItemError }>;
};

export interface LinkTotal {
  link_id: string;
  clicks: number;
  /** Every status: pending + approved + declined. */
  conversions: number;
  pending: number;
  approved: number;
  declined: number;
  /** Pending and approved commission: currency -> decimal string. */
  commission: Record<string, string>;
}

export interface LinkTotals {
  timezone: string;
  date_from: string | null;
  date_to: string | null;
  data: LinkTotal[];
}

export interface LinkTotalsInput {
  ids: string[];
  date_from?: string;
  date_to?: string;
  timezone?: string;
}

// Keys

export const catalogKeys = {
  products: (account: string) => ['products', account] as const,
  lookup: (account: string) => ['products-lookup', account] as const,
  programs: (account: string) => ['programs', account] as const,
  links: (account: string) => ['links', account] as const,
  linkTotals: (account: string) => ['link-totals', account] as const,
};

// Products

const only = (q: ProductSearch) => Object.fromEntries(SEARCH_FIELDS.filter((k) => q[k] !== undefined && q[k] !== '').map((k) => [k, q[k]]));

export const productSearchQuery = (account: string, search: ProductSearch) =>
  queryOptions({
    queryKey: [...catalogKeys.products(account), only(search)] as const,
    queryFn: ({ signal }) => api<ProductPage>(`${acct(account)}/products`, { query: only(search), signal }),
    // The catalog moves (prices, stock): a search is read afresh when the page is opened again.
    staleTime: 30_000,
    retry: false,
  });

export const LOOKUP_PAGE_SIZE = 100;

/** Products of up to 100 GTINs, every page (a GTIN may match several merchants and markets: next_offset is followed). */
export const productLookupQuery = (account: string, gtins: readonly string[], country: string) =>
  infiniteQueryOptions({
    queryKey: [...catalogKeys.lookup(account), gtins.join(','), country] as const,
    queryFn: ({ pageParam, signal }) =>
      api<ProductPage>(`${acct(account)}/products/lookup`, {
        query: { gtins: gtins.join(','), country: country || undefined, limit: LOOKUP_PAGE_SIZE, offset: pageParam || undefined },
        signal,
      }),
    initialPageParam: 0,
    getNextPageParam: (last) => last.next_offset ?? undefined,
    enabled: gtins.length > 0,
    retry: false,
  });

// Programs

export const PROGRAMS_PAGE_SIZE = 50;

/** The account's programs (approved, pending review, rejected). */
export const programsQuery = (account: string, search: string) =>
  infiniteQueryOptions({
    queryKey: [...catalogKeys.programs(account), 'mine', search] as const,
    queryFn: ({ pageParam, signal }) =>
      api<ProgramPage>(`${acct(account)}/programs`, {
        query: { search: search || undefined, cursor: pageParam || undefined, page_size: PROGRAMS_PAGE_SIZE },
        signal,
      }),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });

/** Programs open for application the account has no assignment to. */
export const joinableProgramsQuery = (account: string, search: string) =>
  infiniteQueryOptions({
    queryKey: [...catalogKeys.programs(account), 'joinable', search] as const,
    queryFn: ({ pageParam, signal }) =>
      api<ProgramPage>(`${acct(account)}/programs/joinable`, {
        query: { search: search || undefined, cursor: pageParam || undefined, page_size: PROGRAMS_PAGE_SIZE },
        signal,
      }),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });

/** Every program of the account in one list (the link builder's choice; the API pages up to 1000). */
export const allProgramsQuery = (account: string) =>
  queryOptions({
    queryKey: [...catalogKeys.programs(account), 'all'] as const,
    queryFn: ({ signal }) => api<ProgramPage>(`${acct(account)}/programs`, { query: { page_size: 1000 }, signal }),
  });

/** Applies (the idempotent use case: applying again answers the existing assignment). */
export const applyToProgram = (account: string, programId: number) =>
  api<Application>(`${acct(account)}/programs/apply`, { method: 'POST', body: { program_id: programId } });

// Links

export interface LinkFilters {
  subid?: string;
  campaign_id?: string;
}

/** One page of the account's links (cursor paging, kept in the URL by the page). */
export const linksQuery = (account: string, filters: LinkFilters, paging: { cursor?: string; page_size: number }) =>
  queryOptions({
    queryKey: [...catalogKeys.links(account), filters.subid ?? '', filters.campaign_id ?? '', paging.cursor ?? '', paging.page_size] as const,
    queryFn: ({ signal }) =>
      api<LinkPage>(`${acct(account)}/links`, {
        query: { subid: filters.subid || undefined, campaign_id: filters.campaign_id || undefined, cursor: paging.cursor, page_size: paging.page_size },
        signal,
      }),
    placeholderData: keepPreviousData,
  });

/** Creates one link, or answers the same link when it existed (one link per program, landing URL and sub-ID). */
export const createLink = (account: string, input: LinkRequest) => api<TrackingLink>(`${acct(account)}/links`, { method: 'POST', body: input });

export const createLinkBatch = (account: string, links: LinkRequest[]) => api<BatchResult>(`${acct(account)}/links/batch`, { method: 'POST', body: { links } });

/** Clicks, sales and commission of up to 100 links (the stats read model). */
export const linkTotalsQuery = (account: string, input: LinkTotalsInput) =>
  queryOptions({
    queryKey: [...catalogKeys.linkTotals(account), input] as const,
    queryFn: ({ signal }) =>
      api<LinkTotals>(`${acct(account)}/links/totals`, {
        query: { ids: input.ids.join(','), date_from: input.date_from, date_to: input.date_to, timezone: input.timezone },
        signal,
      }),
    enabled: input.ids.length > 0,
    staleTime: 30_000,
  });
