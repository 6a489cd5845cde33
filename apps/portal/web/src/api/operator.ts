/** The operator area's calls (`/portal/api/operator/...`): the network's operators, same sign-in. */
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import type { Answer, SentAnswer } from './answers';
import { api } from './client';

export type OperatorRole = NonNullable<AuditEntry['actor']['operator_role']>;

export type OperatorPublisher = Answer<'/portal/api/operator/publishers/'>['data'][number];

export interface OperatorClaim {
  application_id: string;
  status: string;
  publisher_id: string;
  source: string;
  publisher_url: string | null;
  placement_description: string | null;
  channel: string | null;
  profile?: { display_name?: string | null; website?: string | null; claim_email?: string | null } | null;
  links: number;
  claim_deadline: string;
  overdue: boolean;
  created_at: string;
}

export type OperatorCredential = Answer<'/portal/api/operator/publishers/{publisher}/keys/'>['data'][number];

/** The publisher's delivery view (its schema, @cw/postbacks', marks no member required: read as written, `SentAnswer`). */
type OperatorDeliveries = SentAnswer<'/portal/api/operator/publishers/{publisher}/deliveries/'>;

export type OperatorDelivery = OperatorDeliveries['data'][number];

type AuditPage = Answer<'/portal/api/operator/audit/'>;

export type AuditEntry = AuditPage['data'][number];

export interface AuditFilters {
  account?: string;
  actor?: string;
  action?: string;
}

const enc = encodeURIComponent;

export const operatorKeys = {
  publishers: (status: string) => ['operator', 'publishers', status] as const,
  claims: (status: string) => ['operator', 'claims', status] as const,
  credentials: (publisher: string) => ['operator', 'keys', publisher] as const,
  deliveries: (publisher: string) => ['operator', 'deliveries', publisher] as const,
  audit: (f: AuditFilters) => ['operator', 'audit', f] as const,
};

export const publishersQuery = (status: string) =>
  queryOptions({
    queryKey: operatorKeys.publishers(status),
    queryFn: () => api<Answer<'/portal/api/operator/publishers/'>>('/operator/publishers', { query: { status } }),
    staleTime: 0,
  });

export const reviewPublisher = (publisher: string, decision: 'approve' | 'reject') =>
  api<Answer<'/portal/api/operator/publishers/{publisher}/approve/', 'post'>>(`/operator/publishers/${enc(publisher)}/${decision}`, { method: 'POST' });

export const claimsQuery = (status: string) =>
  queryOptions({
    queryKey: operatorKeys.claims(status),
    queryFn: () => api<{ data: OperatorClaim[] }>('/operator/claims', { query: { status } }),
    staleTime: 0,
  });

export const reviewClaim = (id: string, decision: 'approve' | 'reject', note?: string) =>
  api<{ application_id: string; status: string; account_id: string; api_key?: { id: string; prefix: string; secret?: string } }>(
    `/operator/claims/${enc(id)}/${decision}`,
    decision === 'reject' ? { method: 'POST', body: note ? { note } : {} } : { method: 'POST' },
  );

export const credentialsQuery = (publisher: string) =>
  queryOptions({
    queryKey: operatorKeys.credentials(publisher),
    queryFn: () => api<Answer<'/portal/api/operator/publishers/{publisher}/keys/'>>(`/operator/publishers/${enc(publisher)}/keys`),
    staleTime: 0,
    enabled: !!publisher,
    retry: false,
  });

export const revokeCredential = (id: string) =>
  api<Answer<'/portal/api/operator/keys/{id}/revoke/', 'post'>>(`/operator/keys/${enc(id)}/revoke`, { method: 'POST' });

export const deliveriesQuery = (publisher: string) =>
  queryOptions({
    queryKey: operatorKeys.deliveries(publisher),
    queryFn: () => api<OperatorDeliveries>(`/operator/publishers/${enc(publisher)}/deliveries`, { query: { status: 'dead' } }),
    staleTime: 0,
    enabled: !!publisher,
    retry: false,
  });

export const redeliver = (publisher: string, id: string) =>
  api<Answer<'/portal/api/operator/publishers/{publisher}/deliveries/{id}/redeliver/', 'post'>>(
    `/operator/publishers/${enc(publisher)}/deliveries/${enc(id)}/redeliver`,
    { method: 'POST' },
  );

export const AUDIT_PAGE_SIZE = 50;

export const auditQuery = (f: AuditFilters) =>
  infiniteQueryOptions({
    queryKey: operatorKeys.audit(f),
    queryFn: ({ pageParam }) =>
      api<AuditPage>('/operator/audit', {
        query: { ...f, cursor: pageParam || undefined, limit: AUDIT_PAGE_SIZE },
      }),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    staleTime: 0,
    retry: false,
  });
