/**
 * Signing in and the sessions it opens: server-side, the cookie's value stored only as its SHA-256,
 * idle 12 h and at most 14 days, the password counting as given for 10 minutes after sign-in or
 * re-authentication (sensitive changes ask for it again after that).
 */
import { ApiError } from '@cw/errors';
import type { MemberRole, Principal } from '@cw/auth';
import { shownNetwork, type SecurityEventInput, type SecurityEventType } from '@cw/audit';
import { memberId, type MemberRow, type UserRow } from './data/people.data';
import type { SessionDoc } from './data/people.schemas.data';
import { own, type PeopleDeps, type RequestOrigin } from './deps';
import { DUMMY_HASH, verifyPassword } from './passwords';
import { sendVerification } from './mails';
import { beginAttempt, sendSigninUnlock, type DeviceCookie, type SigninGuardDeps } from './signin-guard';
import { newToken, normalizeEmail, publicId, tokenHash } from './tokens';

export const SESSION_IDLE_MS = 12 * 3_600_000;
export const SESSION_ABSOLUTE_MS = 14 * 86_400_000;
export const REAUTH_MS = 10 * 60_000;
/** A session's last-seen time is written at most this often (a request does not write each time). */
const TOUCH_MS = 60_000;

export type SessionRow = SessionDoc & { _id: string };

/** A resolved session: the person and the session record. */
export interface SessionContext {
  session: SessionRow;
  user: UserRow;
}

export const invalidCredentials = () => new ApiError({ code: 'invalid_credentials', detail: 'The e-mail address or password is not correct.' });

/** Records an event on every account the person belongs to (their sign-ins show in each account's log). */
export async function recordForPerson(
  deps: Pick<PeopleDeps, 'data'>,
  user: Pick<UserRow, '_id' | 'email'>,
  type: SecurityEventType,
  origin: RequestOrigin,
  detail: Record<string, unknown> = {},
): Promise<void> {
  const accounts = await own(deps).AccountMember.find({ user_id: user._id }, { account_id: 1 }).limit(100).lean<MemberRow[]>();
  const base: Omit<SecurityEventInput, 'account_id'> = {
    type,
    actor: { user_id: user._id, email: user.email },
    detail,
    address: origin.address,
    address_hash: origin.addressHash,
    user_agent: origin.userAgent,
    request_id: origin.requestId,
  };
  await deps.data.audit.record(accounts.map((a) => ({ ...base, account_id: a.account_id })));
}

/** Opens a session for a person: returns the cookie's value (stored only hashed). */
export async function openSession(deps: Pick<PeopleDeps, 'data'>, userId: string, origin: RequestOrigin, now = new Date()): Promise<string> {
  const token = newToken();
  const expires = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
  await own(deps).PortalSession.create({
    _id: tokenHash(token),
    public_id: publicId('ses'),
    user_id: userId,
    csrf_token: newToken(),
    created_at: now,
    last_seen_at: now,
    expires_at: expires,
    ends_at: new Date(Math.min(expires.getTime(), now.getTime() + SESSION_IDLE_MS)),
    reauthenticated_until: new Date(now.getTime() + REAUTH_MS),
    user_agent: origin.userAgent?.slice(0, 300),
    address: origin.address,
    address_hash: origin.addressHash,
  });
  return token;
}

/** A sign-in: the session cookie's value, and the device cookie that lets this device past the sign-in limits next time. */
export interface SignedIn {
  session: string;
  device: DeviceCookie;
}

/** A failed password: the guard counts it; the failure that spends the address's budget mails its owner the unlock link. */
async function passwordFailed(
  deps: PeopleDeps,
  attempt: { failed(): Promise<{ locked: boolean }> },
  user: UserRow | null,
  origin: RequestOrigin,
  now: Date,
  detail: Record<string, unknown> = {},
): Promise<never> {
  const { locked } = await attempt.failed();
  if (user) {
    await recordForPerson(deps, user, 'signin_failed', origin, locked ? { ...detail, locked: true } : detail);
    if (locked) sendSigninUnlock(deps, user, now);
  }
  throw invalidCredentials();
}

/**
 * Signs a person in: one answer for an unknown address and a wrong password (both verify a hash, so
 * they take as long); a right password on an unconfirmed address is told so (and mailed again).
 * The sign-in guard (signin-guard.ts) limits the attempts first: 429 beyond a budget, except from
 * a device this person signed in with.
 */
export async function signIn(
  deps: PeopleDeps & SigninGuardDeps,
  input: { email: string; password: string },
  origin: RequestOrigin,
  now = new Date(),
): Promise<SignedIn> {
  const email = normalizeEmail(input.email);
  const user = await own(deps).User.findOne({ email }).lean<UserRow>();
  const attempt = await beginAttempt(deps, { email, userId: user?._id }, origin, now);
  const ok = await verifyPassword(input.password, user?.password_hash ?? DUMMY_HASH);
  if (!user || !ok) return passwordFailed(deps, attempt, user, origin, now);
  const device = await attempt.succeeded(user._id);
  if (!user.email_verified_at) {
    await sendVerification(deps, user, now);
    throw new ApiError({
      code: 'email_not_verified',
      detail: 'Confirm your e-mail address first: we have sent you a new link. Then sign in.',
    });
  }
  const session = await openSession(deps, user._id, origin, now);
  await recordForPerson(deps, user, 'signin', origin);
  return { session, device };
}

/** The session a cookie names, while it lasts (idle and absolute); its last-seen time is kept to the minute. */
export async function resolveSession(deps: Pick<PeopleDeps, 'data'>, token: string | undefined, now = new Date()): Promise<SessionContext | null> {
  if (!token || token.length > 100) return null;
  const session = await own(deps).PortalSession.findById(tokenHash(token)).lean<SessionRow>();
  if (!session || session.ends_at <= now) return null;
  const user = await own(deps).User.findById(session.user_id).lean<UserRow>();
  if (!user) return null;
  if (now.getTime() - session.last_seen_at.getTime() >= TOUCH_MS) {
    const ends = new Date(Math.min(session.expires_at.getTime(), now.getTime() + SESSION_IDLE_MS));
    await own(deps).PortalSession.updateOne({ _id: session._id }, { $set: { last_seen_at: now, ends_at: ends } });
    session.last_seen_at = now;
    session.ends_at = ends;
  }
  return { session, user };
}

export async function signOut(deps: PeopleDeps, ctx: SessionContext, origin: RequestOrigin): Promise<void> {
  await own(deps).PortalSession.deleteOne({ _id: ctx.session._id });
  await recordForPerson(deps, ctx.user, 'signout', origin);
}

/** Ends every session of a person (sign out everywhere, a password change or reset), or all but one. */
export async function endSessions(deps: Pick<PeopleDeps, 'data'>, userId: string, keep?: string): Promise<number> {
  const r = await own(deps).PortalSession.deleteMany(keep ? { user_id: userId, _id: { $ne: keep } } : { user_id: userId });
  return r.deletedCount;
}

export async function endAllSessions(deps: PeopleDeps, ctx: SessionContext, origin: RequestOrigin): Promise<void> {
  const ended = await endSessions(deps, ctx.user._id);
  await recordForPerson(deps, ctx.user, 'sessions_ended', origin, { sessions: ended });
}

/** A person's own sessions, newest first (at most 100); where each was opened as its network's keyed hash. */
export async function listSessions(deps: Pick<PeopleDeps, 'data' | 'config'>, ctx: SessionContext, now = new Date()) {
  const rows = await own(deps)
    .PortalSession.find({ user_id: ctx.user._id, ends_at: { $gt: now } })
    .sort({ created_at: -1 })
    .limit(100)
    .lean<SessionRow[]>();
  return {
    data: rows.map((s) => ({
      id: s.public_id,
      current: s._id === ctx.session._id,
      created_at: s.created_at,
      last_seen_at: s.last_seen_at,
      expires_at: s.ends_at,
      user_agent: s.user_agent ?? null,
      address: shownNetwork(deps.config.secretKey, s.address),
    })),
  };
}

export async function endSession(deps: Pick<PeopleDeps, 'data'>, ctx: SessionContext, id: string): Promise<void> {
  const r = await own(deps).PortalSession.deleteOne({ user_id: ctx.user._id, public_id: id });
  if (r.deletedCount !== 1) throw new ApiError({ code: 'not_found', detail: 'No such session.' });
}

/** The password given again (under the sign-in guard, the e-mail's budget shared): sensitive changes are allowed for the next 10 minutes. */
export async function reauthenticate(
  deps: PeopleDeps & SigninGuardDeps,
  ctx: SessionContext,
  password: string,
  origin: RequestOrigin,
  now = new Date(),
): Promise<Date> {
  await checkPassword(deps, ctx.user, password, origin, now, { reauthentication: true });
  const until = new Date(now.getTime() + REAUTH_MS);
  await own(deps).PortalSession.updateOne({ _id: ctx.session._id }, { $set: { reauthenticated_until: until } });
  return until;
}

/** A signed-in person's password checked under the sign-in guard (re-authentication, password change): 401 when wrong, 429 when limited. */
export async function checkPassword(
  deps: PeopleDeps & SigninGuardDeps,
  user: UserRow,
  password: string,
  origin: RequestOrigin,
  now: Date,
  detail: Record<string, unknown>,
): Promise<void> {
  const attempt = await beginAttempt(deps, { email: user.email, userId: user._id }, origin, now);
  if (!(await verifyPassword(password, user.password_hash))) return passwordFailed(deps, attempt, user, origin, now, detail);
  await attempt.succeeded(user._id);
}

/** The accounts a person belongs to, with their role (at most 100). */
export async function accountsOf(deps: Pick<PeopleDeps, 'data'>, userId: string) {
  const members = await own(deps).AccountMember.find({ user_id: userId }).sort({ joined_at: 1 }).limit(100).lean<MemberRow[]>();
  const accounts = await Promise.all(members.map((m) => deps.data.auth.publisherById(m.account_id)));
  return members.flatMap((m, i) => {
    const a = accounts[i];
    return a ? [{ account_id: a._id, name: a.name, role: m.role as MemberRole, status: a.status }] : [];
  });
}

/** The session's view: who is signed in, their accounts, the CSRF token for this session. */
export async function sessionView(deps: Pick<PeopleDeps, 'data'>, ctx: SessionContext) {
  return {
    user: { id: ctx.user._id, email: ctx.user.email, name: ctx.user.name ?? null },
    accounts: await accountsOf(deps, ctx.user._id),
    csrf_token: ctx.session.csrf_token,
    reauthenticated_until: ctx.session.reauthenticated_until ?? null,
    /** The person's operator role (the portal shows its operator area), or null. */
    operator: ctx.user.operator_role ? { role: ctx.user.operator_role } : null,
  };
}

/**
 * The caller that a session acting on one account is, for the use cases: the account, and the
 * person with their role in it. Not a member (or no such account): 404, revealing nothing.
 */
export async function portalPrincipal(deps: Pick<PeopleDeps, 'data'>, ctx: SessionContext, accountId: string, origin: RequestOrigin): Promise<Principal> {
  const notFound = () => new ApiError({ code: 'not_found', detail: 'No such account.' });
  if (accountId.length > 64) throw notFound();
  const member = await own(deps).AccountMember.findById(memberId(accountId, ctx.user._id)).lean<MemberRow>();
  if (!member) throw notFound();
  const publisher = await deps.data.auth.publisherById(accountId);
  if (!publisher) throw notFound();
  return {
    publisher,
    credentialId: ctx.session.public_id,
    prefix: 'session',
    type: 'portal_session',
    person: {
      userId: ctx.user._id,
      email: ctx.user.email,
      role: member.role as MemberRole,
      sessionId: ctx.session.public_id,
      address: origin.address,
      addressHash: origin.addressHash,
      userAgent: origin.userAgent,
      requestId: origin.requestId,
      reauthenticatedUntil: ctx.session.reauthenticated_until ?? undefined,
    },
  };
}
