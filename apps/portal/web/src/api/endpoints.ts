/** Every portal API call, named; pages reach the server only through these (and react-query). */
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import type { Answer, RequestBody, SentAnswer } from './answers';
import { api, isApiError, setCsrfToken } from './client';
import type {
  Account,
  ClaimApplication,
  ClaimInput,
  InvitationInfo,
  IssuedCredential,
  KeyIssueInput,
  MembersAnswer,
  PaymentStatus,
  PostbackConfig,
  PostbackInput,
  Role,
  Session,
  SecurityLogPage,
  TestDelivery,
  Delivery,
} from './types';

const acct = (account: string) => `/accounts/${encodeURIComponent(account)}`;

/** Keys of every cached answer (invalidated by the mutations that change them). */
export const keys = {
  session: ['session'] as const,
  account: (id: string) => ['account', id] as const,
  paymentStatus: (id: string) => ['payment-status', id] as const,
  postback: (id: string) => ['postback', id] as const,
  deliveries: (id: string) => ['deliveries', id] as const,
  credentials: (id: string) => ['keys', id] as const,
  members: (id: string) => ['members', id] as const,
  securityLog: (id: string) => ['security-log', id] as const,
  sessions: ['sessions'] as const,
  invitation: (token: string) => ['invitation', token] as const,
  claim: (application: string, secret: string) => ['claim', application, secret] as const,
};

// Session (no account)

async function readSession(auth: 'session' | 'public'): Promise<Session> {
  const s = await api<Session>('/session', { auth });
  setCsrfToken(s.csrf_token);
  return s;
}

/** The signed-in pages' session: a 401 sends the person to sign in. */
export const sessionQuery = () => queryOptions({ queryKey: keys.session, queryFn: () => readSession('session'), staleTime: 60_000 });

/** Whether someone is signed in (pages open to anyone): null without a session. */
export const optionalSessionQuery = () =>
  queryOptions({
    queryKey: [...keys.session, 'optional'] as const,
    queryFn: async () => {
      try {
        return await readSession('public');
      } catch (e) {
        if (isApiError(e) && e.status === 401) return null;
        throw e;
      }
    },
    staleTime: 60_000,
  });

export async function signIn(input: RequestBody<'/portal/api/signin/', 'post'>): Promise<Session> {
  const s = await api<Session>('/signin', { method: 'POST', body: input, auth: 'public' });
  if (s?.csrf_token) setCsrfToken(s.csrf_token);
  return s;
}

export async function signOut(): Promise<void> {
  await api<void>('/signout', { method: 'POST', auth: 'public' });
  setCsrfToken(null);
}

export const signUp = (input: RequestBody<'/portal/api/signup/', 'post'>) =>
  api<Answer<'/portal/api/signup/', 'post'>>('/signup', { method: 'POST', body: input, auth: 'public' });

export const verifyEmail = (token: string) =>
  api<Answer<'/portal/api/verify-email/', 'post'>>('/verify-email', { method: 'POST', body: { token }, auth: 'public' });

/** The link mailed when an address's sign-in is paused: this browser may sign in to it (the password is still asked). */
export const unlockSignIn = (token: string) =>
  api<Answer<'/portal/api/signin/unlock/', 'post'>>('/signin/unlock', { method: 'POST', body: { token }, auth: 'public' });

export const forgotPassword = (email: string) =>
  api<Answer<'/portal/api/password/forgot/', 'post'>>('/password/forgot', { method: 'POST', body: { email }, auth: 'public' });

export const resetPassword = (input: RequestBody<'/portal/api/password/reset/', 'post'>) =>
  api<Answer<'/portal/api/password/reset/', 'post'>>('/password/reset', { method: 'POST', body: input, auth: 'public' });

export const reauthenticate = (password: string) =>
  api<Answer<'/portal/api/reauth/', 'post'>>('/reauth', { method: 'POST', body: { password }, reauth: false });

export const changePassword = (input: RequestBody<'/portal/api/password/change/', 'post'>) =>
  api<Answer<'/portal/api/password/change/', 'post'>>('/password/change', { method: 'POST', body: input });

/** Read afresh on every visit (what happened elsewhere shows at once). */
export const sessionsQuery = () => queryOptions({ queryKey: keys.sessions, queryFn: () => api<Answer<'/portal/api/sessions/'>>('/sessions'), staleTime: 0 });

export const endSession = (id: string) => api<void>(`/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' });

export async function endAllSessions(): Promise<void> {
  await api<void>('/sessions', { method: 'DELETE' });
  setCsrfToken(null);
}

export const invitationQuery = (token: string) =>
  queryOptions({
    queryKey: keys.invitation(token),
    queryFn: () => api<InvitationInfo>(`/invitations/preview?token=${encodeURIComponent(token)}`, { auth: 'public' }),
    retry: false,
  });

export async function acceptInvitation(input: RequestBody<'/portal/api/invitations/accept/', 'post'>): Promise<Session> {
  const s = await api<Session>('/invitations/accept', { method: 'POST', body: input, auth: 'public' });
  if (s?.csrf_token) setCsrfToken(s.csrf_token);
  return s;
}

export const claimQuery = (application: string, accessSecret: string) =>
  queryOptions({
    queryKey: keys.claim(application, accessSecret),
    queryFn: () => api<ClaimApplication>('/claim', { query: { application, access_secret: accessSecret }, auth: 'public' }),
    retry: false,
  });

export const claimAccount = (input: ClaimInput) => api<{ account_id: string; status: string }>('/claim', { method: 'POST', body: input });

// Account

export const accountQuery = (id: string) => queryOptions({ queryKey: keys.account(id), queryFn: () => api<Account>(acct(id)) });

export const patchAccount = (
  id: string,
  patch: Partial<Pick<Account, 'name' | 'website' | 'channels' | 'timezone' | 'payout_method_type' | 'link_fallback'>>,
) => api<Account>(acct(id), { method: 'PATCH', body: patch });

export const paymentStatusQuery = (id: string) =>
  queryOptions({ queryKey: keys.paymentStatus(id), queryFn: () => api<PaymentStatus>(`${acct(id)}/payment-status`) });

export const credentialsQuery = (id: string) =>
  queryOptions({ queryKey: keys.credentials(id), queryFn: () => api<Answer<'/portal/api/accounts/{account}/keys/'>>(`${acct(id)}/keys`) });

export const issueCredential = (id: string, input: KeyIssueInput) => api<IssuedCredential>(`${acct(id)}/keys`, { method: 'POST', body: input });

export const rotateCredential = (id: string, keyId: string) =>
  api<IssuedCredential>(`${acct(id)}/keys/${encodeURIComponent(keyId)}/rotate`, { method: 'POST' });

export const revokeCredential = (id: string, keyId: string) => api<void>(`${acct(id)}/keys/${encodeURIComponent(keyId)}`, { method: 'DELETE' });

export const postbackQuery = (id: string) => queryOptions({ queryKey: keys.postback(id), queryFn: () => api<PostbackConfig>(`${acct(id)}/postback`) });

export const putPostback = (id: string, input: PostbackInput) => api<PostbackConfig>(`${acct(id)}/postback`, { method: 'PUT', body: input });

export const rotatePostbackSecret = (id: string) => api<PostbackConfig>(`${acct(id)}/postback/secret`, { method: 'POST' });

export const sendTestPostback = (id: string) => api<TestDelivery>(`${acct(id)}/postback/test`, { method: 'POST' });

export const DELIVERIES_PAGE_SIZE = 25;

export const deliveriesQuery = (id: string, status: string) =>
  infiniteQueryOptions({
    queryKey: [...keys.deliveries(id), status] as const,
    queryFn: ({ pageParam }) =>
      api<SentAnswer<'/portal/api/accounts/{account}/postback/deliveries/'>>(`${acct(id)}/postback/deliveries`, {
        query: { status: status || undefined, cursor: pageParam || undefined, page_size: DELIVERIES_PAGE_SIZE },
      }),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    staleTime: 0,
  });

export const redeliver = (id: string, deliveryId: string) =>
  api<Delivery>(`${acct(id)}/postback/deliveries/${encodeURIComponent(deliveryId)}/redeliver`, { method: 'POST' });

export const membersQuery = (id: string) => queryOptions({ queryKey: keys.members(id), queryFn: () => api<MembersAnswer>(`${acct(id)}/members`) });

export const invite = (id: string, input: RequestBody<'/portal/api/accounts/{account}/invitations/', 'post'>) =>
  api<Answer<'/portal/api/accounts/{account}/invitations/', 'post'>>(`${acct(id)}/invitations`, { method: 'POST', body: input });

export const revokeInvitation = (id: string, invitationId: string) =>
  api<void>(`${acct(id)}/invitations/${encodeURIComponent(invitationId)}`, { method: 'DELETE' });

export const changeRole = (id: string, userId: string, role: Role) =>
  api<Answer<'/portal/api/accounts/{account}/members/{user}/', 'patch'>>(`${acct(id)}/members/${encodeURIComponent(userId)}`, {
    method: 'PATCH',
    body: { role },
  });

export const removeMember = (id: string, userId: string) => api<void>(`${acct(id)}/members/${encodeURIComponent(userId)}`, { method: 'DELETE' });

export const SECURITY_LOG_PAGE_SIZE = 25;

export const securityLogQuery = (id: string) =>
  infiniteQueryOptions({
    queryKey: keys.securityLog(id),
    queryFn: ({ pageParam }) => api<SecurityLogPage>(`${acct(id)}/security-log`, { query: { cursor: pageParam || undefined, limit: SECURITY_LOG_PAGE_SIZE } }),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    staleTime: 0,
  });
