/**
 * The OAuth 2.1 authorization server in the portal (DESIGN.md "People", OAuth 2.1): `@cw/oauth`'s
 * provider (issuer = the portal's URL), built on the first request that needs it (creating it is
 * asynchronous; `createApp` stays synchronous), mounted at the root for `/oauth/...` and the two
 * discovery documents, with no body parser in front of it. Dynamic registration is limited per
 * client address. Sign-in and consent are the portal's page at `/oauth/interaction/<uid>` and its
 * JSON calls under that path (routes/oauth-interaction.routes.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context, Middleware, Next } from 'koa';
import mount from 'koa-mount';
import { ApiError } from '@cw/errors';
import { enforceRateLimit } from '@cw/ratelimit';
import { findPerson, memberRole } from '@cw/people';
import { createOAuthProvider, OAUTH_ROUTES, type GrantRevoked, type Provider } from '@cw/oauth';
import type { PortalDeps } from './portal-context';
import { htmlSecurityHeaders } from './web';

/** The authorization server metadata (RFC 8414) and its OpenID spelling: both served by the provider. */
export const AUTHORIZATION_SERVER_METADATA = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'] as const;
/** The sign-in and consent page of one authorization (`interactions.url`); its JSON calls live under it. */
export const INTERACTION_PREFIX = '/oauth/interaction';

const METADATA = new Set<string>(AUTHORIZATION_SERVER_METADATA);
const INTERACTION_PAGE = /^\/oauth\/interaction\/[A-Za-z0-9_-]{1,64}$/;

/** Paths the provider answers: every `/oauth/...` but the portal's interaction pages, and discovery. */
export const isProviderPath = (path: string): boolean =>
  METADATA.has(path) || (path.startsWith('/oauth/') && path !== INTERACTION_PREFIX && !path.startsWith(`${INTERACTION_PREFIX}/`));

/**
 * What removes a grant, for the security log: the portal (its use case logs the revocation with
 * the person who did it), or a request to the provider (the app revoking its token, a refresh
 * token or code used twice).
 */
interface RevocationCause {
  by: 'portal' | 'provider';
  ctx?: Context;
}
export const revocationCause = new AsyncLocalStorage<RevocationCause>();

/** Runs `fn` as the portal revoking a grant (its listener then leaves the log to the caller). */
export const revokingInPortal = <T>(fn: () => Promise<T>): Promise<T> => revocationCause.run({ by: 'portal' }, fn);

/** Why the provider removed a grant, in the log's words. */
function revocationReason(cause: RevocationCause | undefined): string {
  const ctx = cause?.ctx;
  if (!ctx) return 'removed';
  if (ctx.path === OAUTH_ROUTES.revocation) return 'revoked_by_app';
  if (ctx.path === OAUTH_ROUTES.end_session || ctx.path.startsWith(`${OAUTH_ROUTES.end_session}/`)) return 'signed_out_of_app';
  if (ctx.path === OAUTH_ROUTES.token) {
    const grantType = (ctx as Context & { oidc?: { params?: { grant_type?: unknown } } }).oidc?.params?.grant_type;
    return grantType === 'refresh_token' ? 'refresh_token_reused' : grantType === 'authorization_code' ? 'authorization_code_reused' : 'token_refused';
  }
  return 'removed';
}

const listening = new WeakSet<object>();

/**
 * The security log hears of grants the provider removes (an app revoking its own token, a reused
 * refresh token revoking the whole grant), once per data handle however many apps share it.
 */
function logProviderRevocations(deps: PortalDeps): void {
  const oauth = deps.data.oauth;
  if (listening.has(oauth)) return;
  listening.add(oauth);
  oauth.onGrantRevoked(async (e: GrantRevoked) => {
    const cause = revocationCause.getStore();
    if (!e.accountId || cause?.by === 'portal') return;
    try {
      const client = e.clientId ? (await oauth.clientsByIds([e.clientId])).get(e.clientId) : undefined;
      await deps.data.audit.record({
        account_id: e.accountId,
        type: 'app_revoked',
        actor: {},
        detail: {
          grant_id: e.grantId,
          client_id: e.clientId ?? null,
          app: client?.clientName ?? null,
          reason: revocationReason(cause),
        },
      });
    } catch (err) {
      deps.logger.error({ err, grant: e.grantId }, 'the security log did not take a revoked grant');
    }
  });
}

export interface PortalOAuth {
  /** The provider, built once on first use (the same promise after). */
  provider(): Promise<Provider>;
  /** The provider's routes and the interaction page, before the portal's own routes. */
  middleware: Middleware;
}

export interface PortalOAuthOptions {
  /** The built front end: its index.html is the interaction page. */
  webDir: string;
  /** Access token lifetime (tests shorten it). */
  accessTokenTtlSeconds?: number;
}

export function portalOAuth(deps: PortalDeps, opts: PortalOAuthOptions): PortalOAuth {
  const https = deps.config.portalUrl.startsWith('https:');
  let built: Promise<{ provider: Provider; mounted: Middleware }> | undefined;
  const build = () => {
    built ??= createOAuthProvider({
      config: deps.config,
      data: { oauth: deps.data.oauth },
      // The person a grant names: still there (a person removed ends every token of theirs).
      findPerson: async (sub) => ((await findPerson(deps, sub)) ? {} : undefined),
      // Still a member of the account the grant acts for (the role is the resource servers' check).
      mayActFor: async (personId, accountId) => (await memberRole(deps, accountId, personId)) !== null,
      accessTokenTtlSeconds: opts.accessTokenTtlSeconds,
      // The provider's own pages (sign-out, errors) carry the portal's HTML headers.
      pageHeaders: (ctx) => htmlSecurityHeaders(ctx, https),
    }).then(
      (provider) => {
        logProviderRevocations(deps);
        return { provider, mounted: mount(provider) as unknown as Middleware };
      },
      (err: unknown) => {
        built = undefined;
        throw err;
      },
    );
    return built;
  };

  let index: Buffer | undefined;
  const interactionPage = (ctx: Context) => {
    const file = join(opts.webDir, 'index.html');
    if (!index && existsSync(file)) index = readFileSync(file);
    if (!index)
      throw new ApiError({
        code: 'service_unavailable',
        detail: "The portal's front end is not built: run `npx nx run portal:build-web` (npm start builds it).",
      });
    htmlSecurityHeaders(ctx, https);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = index;
  };

  const middleware: Middleware = async (ctx: Context, next: Next) => {
    const path = ctx.path;
    if ((ctx.method === 'GET' || ctx.method === 'HEAD') && INTERACTION_PAGE.test(path)) return interactionPage(ctx);
    if (!isProviderPath(path)) return next();
    if (path === OAUTH_ROUTES.registration && ctx.method === 'POST')
      await enforceRateLimit(ctx, deps.limiter, 'oauthRegister', ctx.ip || 'unknown', deps.config.rateLimits.oauthRegister);
    const { mounted } = await build();
    return revocationCause.run({ by: 'provider', ctx }, () => mounted(ctx, next));
  };

  return { provider: async () => (await build()).provider, middleware };
}
