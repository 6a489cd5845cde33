/**
 * Personal coupon codes: the account's codes (`/portal/api/accounts/:account/codes`), a program's
 * code rules (`.../code-rules`) and asking for a code (POST `.../codes`).
 */
import { queryOptions } from '@tanstack/react-query';
import { api } from './client';

const enc = encodeURIComponent;
const acct = (account: string) => `/accounts/${enc(account)}`;

export type CodeStatus = 'active' | 'pending_review' | 'rejected';

export interface CouponCode {
  id: string;
  code: string;
  program_id: number;
  status: CodeStatus;
  created_at: string;
}

export interface CodeRules {
  program_id: number;
  prefix: string;
  min_length: number;
  max_length: number;
  review: 'auto' | 'operator';
}

export interface CodePage {
  data: CouponCode[];
  page: number;
  page_size: number;
  has_more: boolean;
  next_page: number | null;
}

export const codeKeys = {
  all: (account: string) => ['codes', account] as const,
  rules: (account: string, programId: number) => ['codes', account, 'rules', programId] as const,
};

/** The account's codes, newest first (a publisher holds at most 10 per program: 100 cover most accounts). */
export const codesQuery = (account: string) =>
  queryOptions({
    queryKey: [...codeKeys.all(account), 'list'] as const,
    queryFn: ({ signal }) => api<CodePage>(`${acct(account)}/codes`, { query: { page_size: 100 }, signal }),
    staleTime: 0,
  });

export const codeRulesQuery = (account: string, programId: number) =>
  queryOptions({
    queryKey: codeKeys.rules(account, programId),
    queryFn: ({ signal }) => api<CodeRules>(`${acct(account)}/code-rules`, { query: { program_id: programId }, signal }),
    staleTime: 5 * 60_000,
  });

/** Asks for a code (the wanted one, or one made under the program's rules); `idempotencyKey` makes a retry of the same form answer the first call. */
export const requestCode = (account: string, input: { program_id: number; code?: string }, idempotencyKey: string) =>
  api<CouponCode>(`${acct(account)}/codes`, { method: 'POST', body: input, headers: { 'Idempotency-Key': idempotencyKey } });
