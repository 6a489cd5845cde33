/**
 * Apps acting for an account through OAuth: the calls of the sign-in and consent page (under
 * `/oauth/interaction/<uid>/`, where the provider's cookie for that authorization is sent), and
 * Settings, Apps (`/portal/api/accounts/:account/apps`).
 */
import { queryOptions } from '@tanstack/react-query';
import type { Answer } from './answers';
import { api, ApiError, type ParamError } from './client';
import type { Role, SessionAccount } from './types';

export interface ScopeWords {
  scope: string;
  description: string;
}

export interface InteractionDetails {
  uid: string;
  prompt: 'login' | 'consent' | string;
  client: { client_id: string; name: string | null; redirect_uri: string; redirect_host: string | null };
  signed_in: { user_id: string; email: string } | null;
  csrf_token: string | null;
  // At consent:
  person_matches?: boolean;
  access?: { resources: Array<{ resource: string; label: string; scopes: ScopeWords[] }>; offline_access: ScopeWords | null };
  accounts?: Array<SessionAccount & { role: Role; grantable_scopes: string[] }>;
  reauthenticated_until?: string | null;
  reauthentication_required?: boolean;
}

const base = (uid: string) => `/oauth/interaction/${encodeURIComponent(uid)}`;

/** One call of the interaction: the portal's error shape thrown as ApiError, like every other call. */
async function call<T>(uid: string, path: string, opts: { method?: 'GET' | 'POST'; body?: unknown; csrf?: string | null } = {}): Promise<T> {
  const method = opts.method ?? 'GET';
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && opts.csrf) headers['X-CSRF-Token'] = opts.csrf;
  let res: Response;
  try {
    res = await fetch(`${base(uid)}${path}`, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError({ status: 0, code: 'network_error', detail: 'The portal could not be reached. Check your connection and try again.' });
  }
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    // Not the portal's JSON (a proxy's page): described by its status below.
  }
  if (!res.ok) {
    const retry = Number(res.headers.get('Retry-After'));
    throw new ApiError({
      status: res.status,
      code: typeof body.code === 'string' ? body.code : `http_${res.status}`,
      detail: typeof body.detail === 'string' && body.detail ? body.detail : `The portal answered ${res.status}.`,
      request_id: typeof body.request_id === 'string' ? body.request_id : res.headers.get('X-Request-Id'),
      errors: Array.isArray(body.errors) ? (body.errors as ParamError[]) : [],
      retryAfter: Number.isFinite(retry) && retry > 0 ? retry : null,
    });
  }
  return body as T;
}

export const interactionQuery = (uid: string) =>
  queryOptions({ queryKey: ['oauth-interaction', uid] as const, queryFn: () => call<InteractionDetails>(uid, '/details'), retry: false, staleTime: 0 });

/** Signs in for the app (with the portal session when no e-mail and password are given); where to go next. */
export const interactionLogin = (uid: string, csrf: string | null, input: { email: string; password: string } | Record<string, never>) =>
  call<{ redirect_to: string | null; csrf_token?: string }>(uid, '/login', { method: 'POST', body: input, csrf });

export const interactionConsent = (uid: string, csrf: string | null, input: { account_id: string; scopes: string[] }) =>
  call<{ redirect_to: string }>(uid, '/consent', { method: 'POST', body: input, csrf });

export const interactionAbort = (uid: string, csrf: string | null) => call<{ redirect_to: string }>(uid, '/abort', { method: 'POST', csrf });

// Settings, Apps

export type AppGrant = Answer<'/portal/api/accounts/{account}/apps/'>['data'][number];

const acct = (account: string) => `/accounts/${encodeURIComponent(account)}`;

export const appsKey = (id: string) => ['apps', id] as const;

export const appsQuery = (id: string) =>
  queryOptions({ queryKey: appsKey(id), queryFn: () => api<Answer<'/portal/api/accounts/{account}/apps/'>>(`${acct(id)}/apps`), staleTime: 0 });

export const revokeApp = (id: string, grantId: string) => api<void>(`${acct(id)}/apps/${encodeURIComponent(grantId)}`, { method: 'DELETE' });

/** The words for each scope (Settings, Apps; the consent page gets them from the server). */
export const SCOPE_WORDS: Record<string, string> = {
  'affiliate:read': 'See the account and its payment status',
  'catalog:read': 'Search and look up products, read product feeds',
  'links:write': 'Apply to programs and create tracking links',
  'reports:read': 'Read conversions, reports, clicks and events',
  'postbacks:read': 'Read the postback configuration and deliveries, send test postbacks',
  offline_access: 'Keep access when you are not using the app (until you revoke it)',
};
