/**
 * What every `/portal/api/` call shares: the session from its cookie, the same-origin and CSRF
 * checks of calls that change something, where the request came from (for the security log), and
 * the principal a session is when it acts on one of its accounts.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, Middleware, Next } from 'koa';
import { ApiError } from '@cw/errors';
import { authorize, notAuthenticated, type Policy, type Principal } from '@cw/auth';
import { idempotent } from '@cw/idempotency';
import { clientNetwork } from '@cw/audit';
import { enforceRateLimit } from '@cw/ratelimit';
import { portalPrincipal, resolveSession, type PeopleDeps, type RequestOrigin, type SessionContext } from '@cw/people';
import type { PayoutNotice } from '@cw/payouts';
import type { PortalAppDeps } from './deps';

export type PortalDeps = PortalAppDeps &
  Pick<PeopleDeps, 'mailer'> & {
    /** The clock of the sign-in limits and sessions (tests move it; default: the system's). */
    clock?: () => Date;
    /** Payout notices (paid, returned, method changed), mailed to the account's owners. */
    notify?: (notice: PayoutNotice) => Promise<void>;
  };

/** The session cookie: `__Host-` prefixed on https (Secure, Path=/, no Domain). */
export function sessionCookieName(portalUrl: string): string {
  return portalUrl.startsWith('https:') ? '__Host-cw_session' : 'cw_session';
}

export function setSessionCookie(ctx: Context, deps: PortalDeps, token: string | null): void {
  const secure = deps.config.portalUrl.startsWith('https:');
  ctx.cookies.set(sessionCookieName(deps.config.portalUrl), token ?? '', {
    httpOnly: true,
    // 256 random bits stored only hashed: a signature adds nothing (and the app's keys, the OAuth provider's, rotate).
    signed: false,
    sameSite: 'lax',
    secure,
    path: '/',
    overwrite: true,
    ...(token ? {} : { expires: new Date(0) }),
  });
}

/**
 * Where a request came from, as kept and shown: its /24 or /48 network as a keyed hash (people
 * recognise the same network, never see or leave behind an address or prefix) and the whole address's keyed hash for matching.
 */
export function requestOrigin(ctx: Context, deps: PortalDeps): RequestOrigin {
  const ip = ctx.ip || '';
  return {
    address: clientNetwork(deps.config.secretKey, ip),
    addressHash: ip ? createHmac('sha256', deps.config.secretKey).update(`portal-address/v1:${ip}`).digest('base64url').slice(0, 22) : undefined,
    userAgent: ctx.get('User-Agent').slice(0, 300) || undefined,
    requestId: ctx.state.requestId as string | undefined,
  };
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function sameOrigin(ctx: Context, deps: PortalDeps): boolean {
  const origin = ctx.get('Origin');
  if (!origin) return false;
  // The portal's configured origin, or the one this request was sent to (Koa's ctx.origin is not that: it echoes the Origin header).
  return origin === new URL(deps.config.portalUrl).origin || origin === `${ctx.protocol}://${ctx.host}`;
}

function equalStrings(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Reads the session (if any) into ctx.state.session; refuses credentials meant for the API (the
 * portal's endpoints take the session cookie only); checks the Origin of every call that changes
 * something, and its CSRF token once a session exists.
 */
export function portalSession(deps: PortalDeps): Middleware {
  const cookie = sessionCookieName(deps.config.portalUrl);
  return async (ctx: Context, next: Next) => {
    if (ctx.get('Authorization') || ctx.get('X-API-Key')) throw notAuthenticated();
    const session = await resolveSession(deps, ctx.cookies.get(cookie, { signed: false }));
    ctx.state.session = session;
    if (UNSAFE.has(ctx.method)) {
      if (!sameOrigin(ctx, deps)) throw new ApiError({ code: 'csrf_failed', detail: 'This request did not come from the portal (Origin).' });
      const token = ctx.get('X-CSRF-Token');
      if (session && !(token && equalStrings(token, session.session.csrf_token)))
        throw new ApiError({ code: 'csrf_failed', detail: 'The CSRF token is missing or wrong: reload the page.' });
    }
    await next();
  };
}

/** The signed-in person's session; 401 without one. */
export function sessionOf(ctx: Context): SessionContext {
  const s = ctx.state.session as SessionContext | null | undefined;
  if (!s) throw notAuthenticated();
  return s;
}

/** Spends the signed-in person's portal budget (per person, whatever the account). */
export function spendPortalBudget(deps: PortalDeps): Middleware {
  return async (ctx, next) => {
    const s = sessionOf(ctx);
    await enforceRateLimit(ctx, deps.limiter, 'portal', `u:${s.user._id}`, deps.config.rateLimits.portal);
    await next();
  };
}

/** The principal of the session acting on `:account`: a member, with their role; anyone else 404. */
export function memberOf(deps: PortalDeps): Middleware {
  return async (ctx, next) => {
    ctx.state.principal = await portalPrincipal(deps, sessionOf(ctx), String(ctx.params.account), requestOrigin(ctx, deps));
    await next();
  };
}

export const principalIn = (ctx: Context): Principal => ctx.state.principal as Principal;

/** The member's role checked against the use case's policy before the body is read (a refused role learns 403, not the form's rules). */
export function mayWrite(policy: Policy): Middleware {
  return async (ctx, next) => {
    authorize(principalIn(ctx), policy);
    await next();
  };
}

/** A member's write under an Idempotency-Key: the role checked before the key is claimed (a refusal is not stored under it). */
export function idempotentWrite(deps: PortalDeps, policy: Policy, route: string): Middleware[] {
  return [
    spendPortalBudget(deps),
    memberOf(deps),
    mayWrite(policy),
    idempotent({ data: deps.data.idempotency, account: (ctx) => principalIn(ctx).publisher._id, route }),
  ];
}

/** Attempts before a session exists (sign-in, sign-up, resets) spend the address's budget. */
export function perAddress(deps: PortalDeps): Middleware {
  return async (ctx, next) => {
    await enforceRateLimit(ctx, deps.limiter, 'signinAddress', ctx.ip || 'unknown', deps.config.rateLimits.signinAddress);
    await next();
  };
}
