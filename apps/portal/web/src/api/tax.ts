/**
 * The tax profile (`/portal/api/accounts/:account/tax-profile`, owners) and the operator area's
 * year-end exports (`/portal/api/operator/tax/year-end/:year`, admins).
 */
import { queryOptions } from '@tanstack/react-query';
import type { RequestBody } from './answers';
import { api, API_BASE } from './client';

const enc = encodeURIComponent;
const acct = (account: string) => `/accounts/${enc(account)}`;

export type TaxForm = 'w9' | 'w8ben' | 'w8ben_e';

export interface TaxAddress {
  lines: string[];
  city: string;
  postal_code: string;
  region?: string;
  country: string;
}

/** The profile as its owner sees it: names, address and countries; the ids masked. */
export interface TaxProfileView {
  kind: 'individual' | 'company';
  legal_name: string;
  address: TaxAddress;
  country: string;
  form: TaxForm;
  vat_id: string | null;
  tin_kind: 'ssn' | 'ein' | 'foreign' | null;
  tin: string | null;
  w8: { country: string; treaty: { country: string; article: string; rate: string } | null } | null;
  signed_by: string;
  signed_at: string;
}

export interface TaxProfileState {
  profile: TaxProfileView | null;
  payee_country: string | null;
  required: boolean;
  payouts_held: boolean;
}

export type TaxProfileInput = RequestBody<'/portal/api/accounts/{account}/tax-profile/', 'put'>;

export const taxKeys = { profile: (id: string) => ['tax-profile', id] as const };

export const taxProfileQuery = (id: string) => queryOptions({ queryKey: taxKeys.profile(id), queryFn: () => api<TaxProfileState>(`${acct(id)}/tax-profile`) });

export const putTaxProfile = (id: string, input: TaxProfileInput) => api<TaxProfileState>(`${acct(id)}/tax-profile`, { method: 'PUT', body: input });

export interface YearEnd {
  year: number;
  threshold_usd: string;
  us_payees: number;
  at_or_above_threshold: number;
  missing_tin: number;
  payouts: number;
  files: Array<{ name: string; content_type: string; bytes: number }>;
}

export const yearEndQuery = (year: number) =>
  queryOptions({ queryKey: ['tax-year-end', year] as const, queryFn: () => api<YearEnd>(`/operator/tax/year-end/${year}`), staleTime: 0 });

export const yearEndFileUrl = (year: number, name: string) => `${API_BASE}/operator/tax/year-end/${year}/files/${enc(name)}`;
