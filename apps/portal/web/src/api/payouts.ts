/**
 * Money out (`/portal/api/accounts/:account/payout-settings`, `/balance`, `/payouts`) and the
 * operator area's payout runs (`/portal/api/operator/payout-runs`, `/payouts`, `/fx`).
 */
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import type { Answer, RequestBody } from './answers';
import { api } from './client';
import type { MoneyAmount, PaymentStatus } from './types';

const enc = encodeURIComponent;
const acct = (account: string) => `/accounts/${enc(account)}`;

type PayoutPage = Answer<'/portal/api/accounts/{account}/payouts/'>;
type EntryPage = Answer<'/portal/api/accounts/{account}/balance/transactions/'>;

export type Payout = PayoutPage['data'][number];

/** A method as every answer shows it: its type and last 4 (PayPal: the masked address). */
export type MaskedMethod = Payout['method'];

export type PayoutMethodType = MaskedMethod['type'];
export type PayoutSchedule = 'monthly' | 'on_request';

export interface PayoutSettings {
  method: (MaskedMethod & { failed: boolean }) | null;
  currency: string;
  threshold: string;
  minimum_threshold: string;
  minimum_thresholds: Record<string, string>;
  schedule: PayoutSchedule;
  method_hold_until: string | null;
}

export type PayoutSettingsInput = RequestBody<'/portal/api/accounts/{account}/payout-settings/', 'put'>;

export type PayoutMethodInput = NonNullable<PayoutSettingsInput['method']>;

export type BalanceEntry = EntryPage['data'][number];

export interface AccountBalance {
  balances: MoneyAmount[];
  payment_status: PaymentStatus;
  next_payout: {
    amount: string;
    currency: string;
    threshold: string;
    minimum_threshold: string;
    schedule: PayoutSchedule;
    method: (MaskedMethod & { failed: boolean }) | null;
    holds: string[];
    method_hold_until: string | null;
    /** What "Request payment" would answer now (null: it would be made). */
    request_refused: { code: string; detail: string } | null;
  };
}

export const payoutKeys = {
  settings: (id: string) => ['payout-settings', id] as const,
  balance: (id: string) => ['balance', id] as const,
  payouts: (id: string) => ['payouts', id] as const,
  entries: (id: string) => ['balance-entries', id] as const,
};

export const payoutSettingsQuery = (id: string) =>
  queryOptions({ queryKey: payoutKeys.settings(id), queryFn: () => api<PayoutSettings>(`${acct(id)}/payout-settings`) });

export const putPayoutSettings = (id: string, input: PayoutSettingsInput) => api<PayoutSettings>(`${acct(id)}/payout-settings`, { method: 'PUT', body: input });

export const balanceQuery = (id: string) =>
  queryOptions({ queryKey: payoutKeys.balance(id), queryFn: () => api<AccountBalance>(`${acct(id)}/balance`), staleTime: 0 });

export const PAYOUTS_PAGE_SIZE = 20;

export const payoutsQuery = (id: string) =>
  infiniteQueryOptions({
    queryKey: payoutKeys.payouts(id),
    queryFn: ({ pageParam }) => api<PayoutPage>(`${acct(id)}/payouts`, { query: { cursor: pageParam || undefined, page_size: PAYOUTS_PAGE_SIZE } }),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    staleTime: 0,
  });

/** The ledger entries payouts made and returned (newest first, up to 500 of each): a payout's entries are those naming it. */
export const payoutEntriesQuery = (id: string) =>
  queryOptions({
    queryKey: [...payoutKeys.entries(id), 'payouts'] as const,
    queryFn: async () => {
      const [paid, returned] = await Promise.all(
        (['payout', 'payout_return'] as const).map((type) => api<EntryPage>(`${acct(id)}/balance/transactions`, { query: { type, page_size: 500 } })),
      );
      return [...paid!.data, ...returned!.data].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
    },
    staleTime: 0,
  });

export const ENTRIES_PAGE_SIZE = 25;

/** Every ledger entry of the account, newest first. */
export const balanceEntriesQuery = (id: string) =>
  infiniteQueryOptions({
    queryKey: [...payoutKeys.entries(id), 'all'] as const,
    queryFn: ({ pageParam }) => api<EntryPage>(`${acct(id)}/balance/transactions`, { query: { cursor: pageParam || undefined, page_size: ENTRIES_PAGE_SIZE } }),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    staleTime: 0,
  });

export const requestPayout = (id: string) => api<Payout>(`${acct(id)}/payouts`, { method: 'POST' });

/** A paid payout's self-billing statement (PDF): a link the browser downloads with the session cookie. */
export const statementUrl = (id: string, payoutId: string) => `/portal/api${acct(id)}/payouts/${enc(payoutId)}/statement`;

// Operators

export interface PayoutRun {
  _id: string;
  kind: 'scheduled' | 'request';
  status: 'draft' | 'approving' | 'approved' | 'settled';
  created_by: string;
  created_at: string;
  approved_by?: string;
  approved_at?: string;
  exported_at?: string;
  settled_at?: string;
  totals: Array<{ currency: string; rail: string; count: number; amount: string }>;
  held: number;
}

export type RunPayout = Omit<Payout, 'status'> & {
  status: Payout['status'] | 'held';
  publisher_id: string;
  rail: 'sepa' | 'paypal' | 'csv';
  run_id: string;
};

export interface RunFile {
  name: string;
  rail: string;
  content_type: string;
  bytes: number;
}

export interface SettleResult {
  run: PayoutRun;
  paid: number;
  failed: number;
  pending: number;
  unknown: number;
}

/** The largest file the portal takes (the JSON body's 1 MB); larger ones go through the admin CLI. */
export const MAX_UPLOAD_CHARS = 1_000_000;

export const operatorPayoutKeys = {
  runs: ['operator', 'payout-runs'] as const,
  run: (id: string) => ['operator', 'payout-runs', id] as const,
  files: (id: string) => ['operator', 'payout-runs', id, 'files'] as const,
};

export const payoutRunsQuery = () =>
  queryOptions({
    queryKey: operatorPayoutKeys.runs,
    queryFn: () => api<{ data: PayoutRun[] }>('/operator/payout-runs', { query: { limit: 50 } }),
    staleTime: 0,
  });

export const payoutRunQuery = (id: string) =>
  queryOptions({
    queryKey: operatorPayoutKeys.run(id),
    queryFn: () => api<{ run: PayoutRun; payouts: RunPayout[] }>(`/operator/payout-runs/${enc(id)}`),
    staleTime: 0,
    enabled: !!id,
    retry: false,
  });

/** Listing the files exports them (audited), so it is asked for, never prefetched. */
export const runFilesQuery = (id: string, wanted: boolean) =>
  queryOptions({
    queryKey: operatorPayoutKeys.files(id),
    queryFn: () => api<{ data: RunFile[] }>(`/operator/payout-runs/${enc(id)}/files`),
    enabled: !!id && wanted,
    staleTime: Infinity,
    retry: false,
  });

/** Where a file downloads from (a plain link: the session cookie, no body). */
export const runFileUrl = (id: string, name: string) => `/portal/api/operator/payout-runs/${enc(id)}/files/${enc(name)}`;

export const createPayoutRun = () => api<PayoutRun>('/operator/payout-runs', { method: 'POST' });

export const approvePayoutRun = (id: string) => api<PayoutRun>(`/operator/payout-runs/${enc(id)}/approve`, { method: 'POST' });

export const settlePayoutRun = (id: string, input: { file: string } | { sandbox: true }) =>
  api<SettleResult>(`/operator/payout-runs/${enc(id)}/settle`, { method: 'POST', body: input });

export const decideHeldPayout = (id: string, action: 'release' | 'cancel') => api<RunPayout>(`/operator/payouts/${enc(id)}/${action}`, { method: 'POST' });

export const importFxRates = (xml: string) => api<{ days: number; from: string | null; to: string | null }>('/operator/fx', { method: 'POST', body: { xml } });
