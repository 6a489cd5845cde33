/** Merchants and programs in the operator area (`/portal/api/operator/merchants`, `/programs`). */
import { queryOptions } from '@tanstack/react-query';
import type { RequestBody } from './answers';
import { api } from './client';

export interface OperatorMerchant {
  id: number;
  name: string;
  domains: string[];
}

export interface OperatorProgram {
  id: number;
  name: string;
  merchant: { id: number; name: string | null };
  status: string;
  joinable: boolean;
  auto_approve: boolean;
  countries: string[];
  currency: string;
  cookie_days: number | null;
  default_landing_url: string;
}

export type NewMerchant = RequestBody<'/portal/api/operator/merchants/', 'post'>;

export type NewProgram = RequestBody<'/portal/api/operator/programs/', 'post'>;

export const merchantsQuery = () =>
  queryOptions({
    queryKey: ['operator', 'merchants'] as const,
    queryFn: () => api<{ data: OperatorMerchant[] }>('/operator/merchants', { query: { limit: 500 } }),
  });

export const programsQuery = () =>
  queryOptions({
    queryKey: ['operator', 'programs'] as const,
    queryFn: () => api<{ data: OperatorProgram[] }>('/operator/programs', { query: { limit: 500 } }),
  });

export const createMerchant = (m: NewMerchant) => api<OperatorMerchant>('/operator/merchants', { method: 'POST', body: m });

export const createProgram = (p: NewProgram) => api<{ id: number; name: string }>('/operator/programs', { method: 'POST', body: p });
