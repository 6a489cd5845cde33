/**
 * The OAuth 2.1 authorization server: oidc-provider configured for this platform. Issuer = the
 * portal's origin; every endpoint under `/oauth/`; authorization code with PKCE S256 only; open
 * dynamic registration of public clients; two resources (the publisher API and MCP) whose access
 * tokens are ES256 JWTs signed with keys derived from the key ring; refresh tokens rotated (a
 * refused refresh never spends one); revocation, of access tokens too (their grant); sign-out
 * that redirects only for the app's own ID token, after the person confirms. Sign-in and consent
 * are the portal's pages at `/oauth/interaction/<uid>`.
 *
 * oidc-provider is loaded when the provider is created (`await import`), so the libs and apps
 * that import this package for its data or its token check never load it.
 */
import type { Configuration, ErrorOut, KoaContextWithOIDC, Provider, RefreshToken } from 'oidc-provider';
import type { PlatformConfig } from '@cw/config';
import { accessTokenRevocation } from './access-token-revocation';
import type { OAuthData } from './data/oauth.data';
import { endSessionGuard, logoutSource, postLogoutSuccessSource } from './end-session';
import { oauthKeys } from './keys';
import { errorPage, strictPageHeaders, type PageHeaders } from './pages';
import { applyRegistrationPolicy } from './registration-policy';
import { RESOURCE_SCOPES, resourceIndicators, resourceScopes, STATIC_SCOPES } from './resources';

export interface OAuthPerson {
  /** Claims the userinfo endpoint and ID tokens may carry besides `sub` (none needed). */
  claims?: Record<string, unknown>;
}

export interface OAuthProviderOptions {
  config: Pick<PlatformConfig, 'portalUrl' | 'keys'>;
  data: { oauth: OAuthData };
  /**
   * The person a session or token names (`sub` = the person's id); undefined when they no longer
   * exist or may not sign in, which ends every code and refresh token of theirs at the token endpoint.
   */
  findPerson(sub: string): Promise<OAuthPerson | undefined>;
  /**
   * Whether the person may still act for the publisher account the grant is bound to (checked at
   * every token issued: code exchange and refresh); false refuses the token with `invalid_grant`.
   * Absent: not checked here (the resource servers check membership and role on every request).
   */
  mayActFor?(personId: string, accountId: string): Promise<boolean>;
  /** Where the provider sends the browser for sign-in and consent; default `/oauth/interaction/<uid>`. */
  interactionUrl?: (uid: string) => string;
  /** Access token lifetime in seconds (default 600); tests shorten it. */
  accessTokenTtlSeconds?: number;
  /**
   * The page for an error the provider cannot send back to the client (an unknown client, a
   * redirect URI not registered): default a minimal page naming the error. It gets `pageHeaders` first.
   */
  renderError?: (ctx: KoaContextWithOIDC, out: ErrorOut, error: Error) => void | Promise<void>;
  /**
   * The security headers of every HTML page the provider renders (sign-out, signed out, errors):
   * the portal passes its own (CSP, frame-ancestors 'none', X-Frame-Options, nosniff,
   * Referrer-Policy); default a strict set of the same.
   */
  pageHeaders?: PageHeaders;
}

/** The provider's routes: every endpoint under `/oauth/` (nginx and the dev stack route `/oauth/` to the portal). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/session/end',
} as const;

/** The provider's cookies: named apart from the portal's own (`cw_session`). */
export const OAUTH_COOKIE_NAMES = { session: 'cw_oauth_session', interaction: 'cw_oauth_interaction', resume: 'cw_oauth_resume' } as const;

const DAY = 86_400;
export const OAUTH_TTL = {
  /** Access tokens: signed JWTs, not revocable before they expire, so short. */
  accessToken: 600,
  authorizationCode: 60,
  interaction: 3600,
  /** The provider's own sign-in session (not the portal's). */
  session: 14 * DAY,
  /** A refresh token unused this long ends; each rotation starts a new period, never past the grant's end. */
  refreshToken: 30 * DAY,
  /** A grant ends a year after consent, whatever its use (then the app asks again). */
  grant: 365 * DAY,
} as const;

/** The one extra client metadata property: a hook to run the registration policy on every registration. */
const POLICY_PROPERTY = 'cw_registration_policy';
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a redirect URI may not be registered (undefined: it may): https, or http on a loopback address. */
export function redirectUriProblem(uri: unknown): string | undefined {
  const parsed = typeof uri === 'string' ? URL.parse(uri) : null;
  if (!parsed) return 'redirect URIs must be absolute URLs';
  if (parsed.hash) return 'redirect URIs must not contain a fragment';
  if (parsed.protocol === 'https:') return undefined;
  if (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname)) return undefined;
  return 'redirect URIs must use https, or http on a loopback address (127.0.0.1, [::1] or localhost)';
}

/** The default error page: the error and its description, escaped; nothing else of the request. */
function renderErrorPage(ctx: KoaContextWithOIDC, out: ErrorOut): void {
  ctx.type = 'html';
  ctx.body = errorPage(String(out.error), String(out.error_description ?? ''));
}

/** What the metadata lists in `scopes_supported`: every scope an app may ask for (the resources' and the static ones). */
export const SCOPES_SUPPORTED = [...Object.keys(RESOURCE_SCOPES), ...STATIC_SCOPES];

/** The configured provider (a Koa application): mount it at the root of the portal (see README). */
export async function createOAuthProvider(opts: OAuthProviderOptions): Promise<Provider> {
  const { Provider, errors } = await import('oidc-provider');
  const issuer = opts.config.portalUrl.replace(/\/+$/, '');
  const keys = oauthKeys(opts.config.keys);
  const resources = resourceScopes(issuer);
  const { publisherApi } = resourceIndicators(issuer);
  const accessTokenTTL = opts.accessTokenTtlSeconds ?? OAUTH_TTL.accessToken;
  const oauth = opts.data.oauth;
  const pageHeaders = opts.pageHeaders ?? strictPageHeaders;
  const renderError = opts.renderError ?? renderErrorPage;

  /** The account a grant's tokens act for, while its person may still act for it; else the token is refused (`invalid_grant`). */
  const actingAccount = async (grantId: string | undefined, personId: string | undefined): Promise<string> => {
    const accountId = grantId ? await oauth.grantAccount(grantId) : undefined;
    if (!grantId || !accountId) throw new errors.InvalidGrant('the grant acts for no account');
    if (opts.mayActFor && (!personId || !(await opts.mayActFor(personId, accountId))))
      throw new errors.InvalidGrant('the person may no longer act for the account');
    return accountId;
  };

  /**
   * What would refuse a refresh after oidc-provider spends the refresh token (it consumes it, then
   * resolves the resource and issues the access token): checked before, so a refused refresh
   * leaves the token as it was and the app's retry is not taken for a replay.
   */
  const refuseBeforeSpending = async (ctx: KoaContextWithOIDC): Promise<void> => {
    const rt = ctx.oidc.entities.RefreshToken as RefreshToken;
    // As oidc-provider resolves it (useGrantedResource): the resource asked for, else the one granted.
    const resource = (ctx.oidc.params?.resource as string | string[] | undefined) ?? rt.resource;
    if (Array.isArray(resource))
      throw new errors.InvalidTarget('only a single resource indicator value must be requested/resolved during Access Token Request');
    if (resource !== undefined && (!rt.resourceIndicators.has(resource) || !resources[resource])) throw new errors.InvalidTarget();
    await actingAccount(rt.grantId, rt.accountId);
  };

  const configuration: Configuration = {
    adapter: oauth.adapterFactory(),
    jwks: { keys: keys.signing },
    cookies: {
      keys: keys.cookieKeys,
      names: OAUTH_COOKIE_NAMES,
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    routes: OAUTH_ROUTES,
    scopes: [...STATIC_SCOPES],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    clientAuthMethods: ['none'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      // A client revokes only its own tokens (others' are ignored with a 200, RFC 7009).
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      userinfo: { enabled: true },
      // Sign-out redirects only for the app's own ID token and the same person, after they confirm (end-session.ts).
      rpInitiatedLogout: { enabled: true, logoutSource: logoutSource(pageHeaders), postLogoutSuccessSource: postLogoutSuccessSource(pageHeaders) },
      resourceIndicators: {
        enabled: true,
        // A client that names no resource gets a token for the publisher API.
        defaultResource: (_ctx, _client, oneOf) => oneOf ?? publisherApi,
        // At the token endpoint a client may omit `resource` when the grant holds exactly one.
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          const scopes = resources[indicator];
          if (!scopes) throw new errors.InvalidTarget();
          return { scope: scopes.join(' '), audience: indicator, accessTokenTTL, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
    extraClientMetadata: {
      properties: [POLICY_PROPERTY],
      // Runs for every registration (and every client loaded from storage), before the schema checks.
      validator: (ctx, key, _value, metadata) => {
        if (key !== POLICY_PROPERTY) return;
        delete metadata[POLICY_PROPERTY];
        // Resource scopes are not the provider's static scopes: a registered `scope` naming them
        // would be refused (and would become an allow-list of static scopes); MCP clients send one.
        delete metadata.scope;
        // A new registration: names, sizes, public clients only (registration-policy.ts). Apps
        // stored before keep loading; the consent page bounds what it shows of them.
        if ((ctx as KoaContextWithOIDC | undefined)?.oidc?.route === 'registration')
          applyRegistrationPolicy(metadata, (problem) => new errors.InvalidClientMetadata(problem));
        for (const uri of [
          ...((metadata.redirect_uris as unknown[] | undefined) ?? []),
          ...((metadata.post_logout_redirect_uris as unknown[] | undefined) ?? []),
        ]) {
          const problem = redirectUriProblem(uri);
          if (problem) throw new errors.InvalidClientMetadata(problem);
        }
      },
    },
    findAccount: async (_ctx, sub) => {
      const person = await opts.findPerson(sub);
      if (!person) return undefined;
      return { accountId: sub, claims: () => ({ ...person.claims, sub }) };
    },
    // Every access token names the publisher account its grant acts for, and the grant itself.
    extraTokenClaims: async (_ctx, token) => {
      const grantId = 'grantId' in token ? token.grantId : undefined;
      const accountId = await actingAccount(grantId, 'accountId' in token ? token.accountId : undefined);
      return { account_id: accountId, grant_id: grantId };
    },
    issueRefreshToken: (_ctx, client, code) => client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    // Always rotated; the function runs just before the token is spent, so a refusal leaves it unspent.
    rotateRefreshToken: async (ctx) => {
      await refuseBeforeSpending(ctx);
      return true;
    },
    ttl: {
      AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? accessTokenTTL,
      AuthorizationCode: OAUTH_TTL.authorizationCode,
      IdToken: accessTokenTTL,
      Interaction: OAUTH_TTL.interaction,
      Session: OAUTH_TTL.session,
      Grant: OAUTH_TTL.grant,
      RefreshToken: (ctx) => {
        const grantExp = (ctx?.oidc?.entities.Grant as { exp?: number } | undefined)?.exp;
        const grantLeft = grantExp ? grantExp - Math.floor(Date.now() / 1000) : OAUTH_TTL.refreshToken;
        return Math.max(1, Math.min(OAUTH_TTL.refreshToken, grantLeft));
      },
    },
    interactions: { url: (_ctx, interaction) => (opts.interactionUrl ? opts.interactionUrl(interaction.uid) : `/oauth/interaction/${interaction.uid}`) },
    renderError: async (ctx, out, error) => {
      pageHeaders(ctx);
      await renderError(ctx, out, error);
    },
    // Browser apps: CORS only for an origin one of the client's redirect URIs has.
    clientBasedCORS: (_ctx, origin, client) => origin !== 'null' && (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
  };

  const provider = new Provider(issuer, configuration);
  // Around the provider's routes, in this order (each runs before the routes and after them).
  provider.use(endSessionGuard({ issuer, jwks: keys.jwks, oauth, pageHeaders, routes: OAUTH_ROUTES }));
  provider.use(accessTokenRevocation({ issuer, jwks: keys.jwks, audiences: Object.keys(resources), revokeGrant: (grantId) => oauth.revokeGrant(grantId) }));
  // The metadata lists every scope (the provider lists its static ones only: resource scopes are not OIDC scopes).
  provider.use(async (ctx, next) => {
    await next();
    if ((ctx as Partial<KoaContextWithOIDC>).oidc?.route === 'discovery' && ctx.body && typeof ctx.body === 'object')
      (ctx.body as { scopes_supported?: string[] }).scopes_supported = [...SCOPES_SUPPORTED];
  });
  return provider;
}

export type { KoaContextWithOIDC, Provider };
