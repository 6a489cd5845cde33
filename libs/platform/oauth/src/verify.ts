/**
 * The resource servers' check of an access token: a signed JWT (RFC 9068) verified against the
 * provider's public JWKS held in memory (`oauthKeys(config.keys).jwks`): no HTTP, no database.
 * Whether its grant still stands is the caller's next step (`OAuthData.grantById`, cached per
 * account access stamp).
 */
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';

export interface AccessTokenClaims {
  /** The person who granted it. */
  sub: string;
  /** The publisher account it acts for. */
  accountId: string;
  clientId: string;
  scopes: string[];
  grantId?: string;
  jti: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

export interface VerifyAccessTokenOptions {
  /** The provider's issuer (`config.portalUrl`). */
  issuer: string;
  /** This resource server's indicator, exactly as the provider spells it (`resourceIndicators`). */
  audience: string;
  /** The provider's public JWKS. */
  jwks: JSONWebKeySet;
}

export type AccessTokenProblem = 'malformed' | 'signature' | 'expired' | 'issuer' | 'audience' | 'claims';

/** The token is not one this resource server accepts: answer 401 `invalid_token`. */
export class InvalidAccessTokenError extends Error {
  override readonly name = 'InvalidAccessTokenError';
  constructor(
    readonly problem: AccessTokenProblem,
    message: string,
  ) {
    super(message);
  }
}

const JWT_FORM = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Whether a bearer credential has an access token's form (three base64url segments); API keys (`live_…`) never do. */
export function looksLikeAccessToken(s: string): boolean {
  return s.length <= 8192 && JWT_FORM.test(s);
}

const keySets = new WeakMap<JSONWebKeySet, JWTVerifyGetKey>();
function keySet(jwks: JSONWebKeySet): JWTVerifyGetKey {
  let set = keySets.get(jwks);
  if (!set) keySets.set(jwks, (set = createLocalJWKSet(jwks)));
  return set;
}

function problemOf(e: unknown): InvalidAccessTokenError {
  if (e instanceof InvalidAccessTokenError) return e;
  if (e instanceof joseErrors.JWTExpired) return new InvalidAccessTokenError('expired', 'the access token expired');
  if (e instanceof joseErrors.JWTClaimValidationFailed) {
    if (e.claim === 'iss') return new InvalidAccessTokenError('issuer', 'the access token is from another issuer');
    if (e.claim === 'aud') return new InvalidAccessTokenError('audience', 'the access token is for another resource');
    return new InvalidAccessTokenError('claims', `the access token's ${e.claim} claim is not acceptable`);
  }
  if (e instanceof joseErrors.JWSSignatureVerificationFailed || e instanceof joseErrors.JWKSNoMatchingKey)
    return new InvalidAccessTokenError('signature', 'the access token is not signed by this platform');
  return new InvalidAccessTokenError('malformed', 'the access token is malformed');
}

/** The token's claims when it is a valid, unexpired access token for `audience`; throws `InvalidAccessTokenError` otherwise. */
export async function verifyAccessToken(token: string, opts: VerifyAccessTokenOptions): Promise<AccessTokenClaims> {
  if (!looksLikeAccessToken(token)) throw new InvalidAccessTokenError('malformed', 'not an access token');
  try {
    const { payload } = await jwtVerify(token, keySet(opts.jwks), {
      issuer: opts.issuer,
      audience: opts.audience,
      typ: 'at+jwt',
      algorithms: ['ES256'],
      requiredClaims: ['sub', 'jti', 'exp', 'iat', 'client_id'],
    });
    // One audience only, exactly this resource (the provider never issues several).
    const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (aud.length !== 1 || aud[0] !== opts.audience) throw new InvalidAccessTokenError('audience', 'the access token is for another resource');
    // A sender-constrained token (DPoP, mTLS) is not a bearer token; this platform issues none.
    if (payload.cnf !== undefined) throw new InvalidAccessTokenError('claims', 'the access token is sender-constrained');
    const { sub, jti, exp, client_id: clientId, account_id: accountId, grant_id: grantId, scope } = payload as Record<string, unknown>;
    if (typeof accountId !== 'string' || !accountId) throw new InvalidAccessTokenError('claims', 'the access token acts for no account');
    if (typeof clientId !== 'string' || typeof sub !== 'string' || typeof jti !== 'string' || typeof exp !== 'number')
      throw new InvalidAccessTokenError('claims', "the access token's claims are not acceptable");
    return {
      sub,
      accountId,
      clientId,
      scopes: typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [],
      ...(typeof grantId === 'string' ? { grantId } : {}),
      jti,
      exp,
    };
  } catch (e) {
    throw problemOf(e);
  }
}
