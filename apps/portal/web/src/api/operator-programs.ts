/** Merchants and programs in the operator area (`/portal/api/operator/merchants`, `/programs`). */
import { queryOptions } from '@tanstack/react-query';
import type { Answer, RequestBody } from './answers';
import { api } from './client';

export type OperatorMerchant = Answer<'/portal/api/operator/merchants/'>['data'][number];

/** `commission_rate` (a fraction) or `commission_fixed` (per sale): decimal strings. */
export type OperatorProgram = Answer<'/portal/api/operator/programs/'>['data'][number];

export type NewMerchant = RequestBody<'/portal/api/operator/merchants/', 'post'>;

export type NewProgram = RequestBody<'/portal/api/operator/programs/', 'post'>;

export const merchantsQuery = () =>
  queryOptions({
    queryKey: ['operator', 'merchants'] as const,
    queryFn: () => api<Answer<'/portal/api/operator/merchants/'>>('/operator/merchants', { query: { limit: 500 } }),
  });

export const programsQuery = () =>
  queryOptions({
    queryKey: ['operator', 'programs'] as const,
    queryFn: () => api<Answer<'/portal/api/operator/programs/'>>('/operator/programs', { query: { limit: 500 } }),
  });

export const createMerchant = (m: NewMerchant) => api<Answer<'/portal/api/operator/merchants/', 'post'>>('/operator/merchants', { method: 'POST', body: m });

export const createProgram = (p: NewProgram) => api<Answer<'/portal/api/operator/programs/', 'post'>>('/operator/programs', { method: 'POST', body: p });
