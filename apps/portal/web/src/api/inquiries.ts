/**
 * Missing sales: the account's missing-sale inquiries (`/portal/api/accounts/:account/inquiries`)
 * and the operator area's (`/portal/api/operator/inquiries`).
 */
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import type { Answer, RequestBody } from './answers';
import { api } from './client';

const enc = encodeURIComponent;
const acct = (account: string) => `/accounts/${enc(account)}`;

type InquiryPage = Answer<'/portal/api/accounts/{account}/inquiries/'>;

export type Inquiry = InquiryPage['data'][number];
export type InquiryStatus = Inquiry['status'];
export type RejectReason = NonNullable<Inquiry['reason']>;
export const REJECT_REASONS: readonly RejectReason[] = ['duplicate', 'no_order', 'returned', 'outside_window', 'other'];

export type InquiryInput = RequestBody<'/portal/api/accounts/{account}/inquiries/', 'post'>;

export const inquiryKeys = {
  all: (id: string) => ['inquiries', id] as const,
  list: (id: string, status: string) => ['inquiries', id, 'list', status] as const,
};

export const INQUIRIES_PAGE_SIZE = 20;

export const inquiriesQuery = (account: string, status: InquiryStatus | '') =>
  infiniteQueryOptions({
    queryKey: inquiryKeys.list(account, status),
    queryFn: ({ pageParam, signal }) =>
      api<InquiryPage>(`${acct(account)}/inquiries`, {
        query: { status: status || undefined, cursor: pageParam || undefined, page_size: INQUIRIES_PAGE_SIZE },
        signal,
      }),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    staleTime: 0,
  });

/** Files an inquiry; `idempotencyKey` makes a retry of the same form answer the first call. */
export const fileInquiry = (account: string, input: InquiryInput, idempotencyKey: string) =>
  api<Inquiry>(`${acct(account)}/inquiries`, { method: 'POST', body: input, headers: { 'Idempotency-Key': idempotencyKey } });

// Operators

type OperatorInquiries = Answer<'/portal/api/operator/inquiries/'>;

/** The publisher's view, whose it is, which merchant decides it, and whether it is overdue. */
export type OperatorInquiry = OperatorInquiries['data'][number];
/** What the operator's list shows: open ones by deadline, only the overdue ones, or decided ones. */
export type OperatorInquiryFilter = 'open' | 'overdue' | 'accepted' | 'rejected';

export const operatorInquiryKeys = { all: ['operator', 'inquiries'] as const };

export const operatorInquiriesQuery = (filter: OperatorInquiryFilter) =>
  queryOptions({
    queryKey: [...operatorInquiryKeys.all, filter] as const,
    queryFn: () =>
      api<OperatorInquiries>('/operator/inquiries', {
        query: filter === 'overdue' ? { overdue: true, limit: 100 } : { status: filter, limit: 100 },
      }),
    staleTime: 0,
  });

export const decideInquiry = (id: string, decision: { accept: true } | { accept: false; reason: RejectReason }) =>
  decision.accept
    ? api<OperatorInquiry>(`/operator/inquiries/${enc(id)}/accept`, { method: 'POST' })
    : api<OperatorInquiry>(`/operator/inquiries/${enc(id)}/reject`, { method: 'POST', body: { reason: decision.reason } });
