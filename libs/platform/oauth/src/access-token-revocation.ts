/**
 * Revoking an access token (RFC 7009) although it is a JWT the provider cannot look up: the app
 * that presents one of its own unexpired access tokens at the revocation endpoint revokes the
 * token's grant, as revoking its refresh token does. The resource servers check the grant
 * whenever the account's access stamp changed, and a revoked grant bumps it: the token is refused
 * at its next request, and the grant's refresh token no longer refreshes.
 *
 * oidc-provider refuses every JWT there (`unsupported_token_type`) after it has identified the
 * client; this runs after it and answers instead. Another app's token, an expired, forged or
 * unknown one is answered 200 with nothing revoked (RFC 7009 §2.2); a JWT that is not an access
 * token (an ID token) keeps the provider's answer.
 */
import type { Context, Next } from 'koa';
import { decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { verifyAccessToken, type AccessTokenClaims } from './verify';

export interface AccessTokenRevocationOptions {
  issuer: string;
  jwks: JSONWebKeySet;
  /** The resource indicators access tokens are issued for (their `aud`). */
  audiences: readonly string[];
  /** Revokes a grant (and every token of it). */
  revokeGrant(grantId: string): Promise<unknown>;
}

function isAccessTokenJwt(token: string): boolean {
  try {
    return decodeProtectedHeader(token).typ === 'at+jwt';
  } catch {
    return false;
  }
}

async function claimsOf(token: string, opts: AccessTokenRevocationOptions): Promise<AccessTokenClaims | undefined> {
  for (const audience of opts.audiences) {
    try {
      return await verifyAccessToken(token, { issuer: opts.issuer, audience, jwks: opts.jwks });
    } catch {
      // Not for this resource (or not valid at all): the next, then none.
    }
  }
  return undefined;
}

/** Middleware around the provider's routes (`provider.use`): acts only on its revocation endpoint's `unsupported_token_type`. */
export function accessTokenRevocation(opts: AccessTokenRevocationOptions) {
  return async (ctx: Context, next: Next): Promise<void> => {
    await next();
    const oidc = (ctx as Partial<KoaContextWithOIDC>).oidc;
    if (oidc?.route !== 'revocation' || ctx.status !== 400 || (ctx.body as { error?: unknown } | undefined)?.error !== 'unsupported_token_type') return;
    const token = oidc.params?.token;
    const client = oidc.client;
    if (typeof token !== 'string' || !client || !isAccessTokenJwt(token)) return;
    const claims = await claimsOf(token, opts);
    if (claims?.grantId && claims.clientId === client.clientId) await opts.revokeGrant(claims.grantId);
    ctx.body = '';
    ctx.status = 200;
  };
}
