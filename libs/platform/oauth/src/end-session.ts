/**
 * Signing out of the provider (OpenID RP-Initiated Logout) without an open redirect: the person
 * is sent to an app's `post_logout_redirect_uri` only when
 *
 * - the request carries the app's ID token (`id_token_hint`: signed by this issuer, not an access
 *   token, for one app), the address is one that app registered, and the app is not disabled;
 * - the browser has a session of the same person as the ID token's `sub`;
 * - and the person confirmed on the portal's page (a click: the form posted from the portal's own
 *   origin; `Origin: null`, another origin or none is refused).
 *
 * Otherwise (no ID token, a bad one, another app's, another person's, no session) the sign-out
 * ends at the plain "You are signed out" page: without a session at once, with one after the
 * person confirms. The pages carry the portal's security headers.
 */
import type { Context, Next } from 'koa';
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { OAuthData } from './data/oauth.data';
import { allowFormTarget, errorPage, signedOutPage, signOutPage, type PageHeaders } from './pages';

export interface EndSessionOptions {
  issuer: string;
  /** The provider's public keys (ID tokens are signed with them). */
  jwks: JSONWebKeySet;
  oauth: Pick<OAuthData, 'clientsByIds'>;
  pageHeaders: PageHeaders;
  routes: { end_session: string };
}

interface HintedApp {
  clientId: string;
  sub: string;
}

/** The app and person of an ID token this issuer signed (its expiry does not matter: a hint may be old); undefined for anything else. */
async function idTokenHint(hint: unknown, issuer: string, keys: ReturnType<typeof createLocalJWKSet>): Promise<HintedApp | undefined> {
  if (typeof hint !== 'string' || hint.length > 8192) return undefined;
  try {
    const { payload, protectedHeader } = await compactVerify(hint, keys, { algorithms: ['ES256'] });
    // An access token (typ at+jwt) is not an ID token, whatever it carries.
    if (protectedHeader.typ !== undefined && protectedHeader.typ.toUpperCase() !== 'JWT') return undefined;
    const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    const aud = Array.isArray(claims.aud) && claims.aud.length === 1 ? claims.aud[0] : claims.aud;
    if (claims.iss !== issuer || typeof aud !== 'string' || typeof claims.sub !== 'string') return undefined;
    return { clientId: aud, sub: claims.sub };
  } catch {
    return undefined;
  }
}

const one = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The request the provider sees: the ID token, the app's registered address and state when they
 * all hold, else nothing at all (a plain sign-out).
 */
async function checkedQuery(ctx: Context, opts: EndSessionOptions, keys: ReturnType<typeof createLocalJWKSet>): Promise<string> {
  const q = ctx.query;
  const hinted = await idTokenHint(q.id_token_hint, opts.issuer, keys);
  const clientId = one(q.client_id);
  if (!hinted || (clientId !== undefined && clientId !== hinted.clientId)) return '';
  const app = (await opts.oauth.clientsByIds([hinted.clientId])).get(hinted.clientId);
  if (!app || app.disabledAt) return '';
  const to = one(q.post_logout_redirect_uri);
  const kept = new URLSearchParams({ id_token_hint: String(q.id_token_hint) });
  if (to !== undefined) {
    if (!app.postLogoutRedirectUris.includes(to)) return '';
    kept.set('post_logout_redirect_uri', to);
    const state = one(q.state);
    if (state !== undefined) kept.set('state', state);
  }
  return kept.toString();
}

/**
 * In front of the provider's sign-out routes: the request checked before it runs, the page
 * without a session answered in place of the provider's self-submitting form, the confirmation
 * taken from the portal's own origin only.
 */
export function endSessionGuard(opts: EndSessionOptions) {
  const keys = createLocalJWKSet(opts.jwks);
  const origin = new URL(opts.issuer).origin;
  const confirm = `${opts.routes.end_session}/confirm`;
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.path === confirm && ctx.method === 'POST') {
      if (ctx.get('Origin') !== origin) {
        ctx.status = 403;
        opts.pageHeaders(ctx);
        ctx.type = 'html';
        ctx.body = errorPage('invalid_request', 'This sign-out was not confirmed on the portal’s own page. Nothing was changed.');
        return;
      }
      return next();
    }
    if (ctx.path !== opts.routes.end_session || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.querystring = await checkedQuery(ctx, opts, keys);
    await next();
    const session = (ctx as Partial<KoaContextWithOIDC>).oidc?.session;
    // No session: nothing to sign out of and nobody to ask; never the provider's self-submitting form.
    if (session && !session.accountId && ctx.status === 200) {
      opts.pageHeaders(ctx);
      ctx.type = 'html';
      ctx.body = signedOutPage(ctx.host);
    }
  };
}

/** `features.rpInitiatedLogout.logoutSource`: the confirmation, redirecting afterwards only for the ID token's own person. */
export function logoutSource(pageHeaders: PageHeaders) {
  return (ctx: KoaContextWithOIDC, form: string): void => {
    const session = ctx.oidc.session!;
    const state = (session.state ?? {}) as { postLogoutRedirectUri?: string; state?: string };
    const hint = ctx.oidc.entities.IdTokenHint;
    if (state.postLogoutRedirectUri && (!hint || hint.payload.sub !== session.accountId)) {
      state.postLogoutRedirectUri = undefined;
      state.state = undefined;
    }
    const backTo = state.postLogoutRedirectUri ? URL.parse(state.postLogoutRedirectUri) : null;
    pageHeaders(ctx);
    // The form's POST must carry the portal's Origin (a no-referrer page sends `Origin: null`); no Referer leaves the portal.
    ctx.set('Referrer-Policy', 'same-origin');
    if (backTo) allowFormTarget(ctx, backTo.origin);
    ctx.type = 'html';
    ctx.body = signOutPage(ctx.host, form, backTo?.host);
  };
}

/** `features.rpInitiatedLogout.postLogoutSuccessSource`: the plain signed-out page (no app named: its name is the app's claim). */
export function postLogoutSuccessSource(pageHeaders: PageHeaders) {
  return (ctx: KoaContextWithOIDC): void => {
    pageHeaders(ctx);
    ctx.type = 'html';
    ctx.body = signedOutPage(ctx.host);
  };
}
