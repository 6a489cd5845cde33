import type { Context, Middleware, Next } from 'koa';
import type { PlatformConfig } from '@cw/config';
import type { AuthData } from './data/auth.data';
import type { CredentialType } from './data/credential.schema';
import { enforceRateLimit, type RateLimiter } from '@cw/ratelimit';
import type { AccessCache, OAuthResource } from './access-cache';
import { verifyMerchantToken, type MerchantPrincipal, type Principal } from './credentials.service';
import { API_KEYS_ONLY, noteAuthorized, type Policy } from './policy';

/** The secret from X-API-Key or Authorization: Bearer (never from the URL or a cookie). */
export function presentedSecret(ctx: Context, opts: { apiKeyHeader: boolean }): string | undefined {
  const auth = ctx.get('Authorization');
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1];
  const header = opts.apiKeyHeader ? ctx.get('X-API-Key').trim() || undefined : undefined;
  if (header && bearer && header !== bearer) return undefined;
  return header ?? bearer;
}

export interface PolicyDeps {
  data: { auth: AuthData };
  limiter: RateLimiter;
  config: Pick<PlatformConfig, 'rateLimits'>;
  caches: { principals: AccessCache };
  /** The resource server the surface is (an access token is for one): the publisher API unless said. */
  resource?: OAuthResource;
}

/**
 * The Koa side of a policy: authenticates (X-API-Key only where API keys are accepted, else
 * Bearer), authorizes, then spends the account's budget; the Principal is on ctx.state.principal.
 *
 * This is the one authorization of an HTTP call: it has to come before the use case, because the
 * access cache decides with the policy whether a cached principal may answer (a refusal is
 * confirmed by a fresh read) and a refused call must not spend the account's budget. The use case
 * bound to the same policy then does not authorize again (`authorizeOnce`).
 */
export function requirePolicy(deps: PolicyDeps, policy: Policy): Middleware & { policy: Policy } {
  const allow = policy.credentials ?? API_KEYS_ONLY;
  const apiKeyHeader = allow.includes('api_key');
  const middleware = async (ctx: Context, next: Next) => {
    ctx.state.principal = await callerUnder(deps, ctx, presentedSecret(ctx, { apiKeyHeader }), allow, policy);
    await next();
  };
  // The route's documents read it (which OAuth scope a token needs there).
  return Object.assign(middleware, { policy });
}

/** The policy a route's middleware applies (requirePolicy's), if any. */
export function policyOf(middleware: unknown): Policy | undefined {
  return (middleware as { policy?: Policy } | null)?.policy;
}

/**
 * The caller of `secret` under `policy`: verified (through the access cache), authorized, and its
 * account's budget spent, keyed by account, not credential (both headers, rotated keys and the
 * MCP endpoint share one budget). What requirePolicy and every MCP tool call do. `refuseDemo`:
 * demo keys are refused whatever the policy allows (MCP). The principal is noted as authorized
 * under `policy`, so the use case bound to it does not authorize the call again.
 */
export async function callerUnder(
  deps: PolicyDeps,
  ctx: Context,
  secret: string | undefined,
  allow: readonly CredentialType[],
  policy: Policy,
  opts: { refuseDemo?: boolean } = {},
): Promise<Principal> {
  const applied = opts.refuseDemo && policy.allowDemo ? { ...policy, allowDemo: false } : policy;
  const principal = await deps.caches.principals.authenticate(
    deps.data.auth,
    secret,
    allow,
    applied,
    (account) => enforceRateLimit(ctx, deps.limiter, policy.budget, account, deps.config.rateLimits[policy.budget]),
    deps.resource,
  );
  // `applied` is `policy` or stricter (demo keys refused too): passing it passes `policy`.
  noteAuthorized(principal, policy);
  return principal;
}

/** The authenticated caller of a route guarded by requirePolicy. */
export function principalOf(ctx: Context): Principal {
  return ctx.state.principal as Principal;
}

/** Merchant endpoints: `Authorization: Bearer <merchant token>` only, then the merchant's own budget. */
export function requireMerchant(deps: PolicyDeps): Middleware {
  return async (ctx: Context, next: Next) => {
    const merchant = await verifyMerchantToken(deps.data.auth, presentedSecret(ctx, { apiKeyHeader: false }));
    ctx.state.merchant = merchant;
    await enforceRateLimit(ctx, deps.limiter, 'merchant', `m${merchant.merchantId}`, deps.config.rateLimits.merchant);
    await next();
  };
}

export function merchantOf(ctx: Context): MerchantPrincipal {
  return ctx.state.merchant as MerchantPrincipal;
}
