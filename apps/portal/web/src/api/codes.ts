/**
 * Personal coupon codes: the account's codes (`/portal/api/accounts/:account/codes`), a program's
 * code rules (`.../code-rules`) and asking for a code (POST `.../codes`).
 */
import { queryOptions } from '@tanstack/react-query';
import type { Answer } from './answers';
import { api } from './client';

const enc = encodeURIComponent;
const acct = (account: string) => `/accounts/${enc(account)}`;

export type CodePage = Answer<'/portal/api/accounts/{account}/codes/'>;

export type CouponCode = CodePage['data'][number];

export type CodeStatus = CouponCode['status'];

export type CodeRules = Answer<'/portal/api/accounts/{account}/code-rules/'>;

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
