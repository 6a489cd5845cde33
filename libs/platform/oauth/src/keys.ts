/**
 * The authorization server's keys, derived from the platform's key ring (`config.keys`): nothing
 * to generate, store or distribute. Every key of the ring gives one EC P-256 signing key (kid =
 * the ring's key id) and one cookie key, newest first: the provider signs with the first and
 * publishes them all, so rotating SECRET_KEYS rotates the signing key while tokens signed with an
 * older key still verify for as long as its key stays in the ring.
 */
import { createECDH, hkdfSync } from 'node:crypto';
import type { KeyRing, SecretKey } from '@cw/config';

/** A private EC P-256 JWK the provider signs access tokens with. */
export interface SigningJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  d: string;
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

/** The same key without its private part: what `/oauth/jwks` publishes and resource servers verify with. */
export type PublicJwk = Omit<SigningJwk, 'd'>;

export interface OAuthKeys {
  /** Private JWKs, newest first (`jwks.keys` of the provider). */
  signing: SigningJwk[];
  /** The public JWKS, newest first (resource servers verify against it; no HTTP). */
  jwks: { keys: PublicJwk[] };
  /** Keygrip keys for the provider's cookies, newest first (`cookies.keys`, and the parent app's `app.keys`). */
  cookieKeys: string[];
}

const SIGNING_INFO = 'oauth-signing/v1';
const COOKIE_INFO = 'oauth-cookies/v1';
/** The order of the P-256 group. */
const P256_N = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');

const b64url = (b: Buffer): string => b.toString('base64url');

/**
 * The private scalar: 320 bits from HKDF-SHA256 of the key, reduced into [1, n-1] (FIPS 186-5
 * A.2.1: 64 extra bits make the bias negligible).
 */
function privateScalar(key: Buffer): Buffer {
  const okm = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), SIGNING_INFO, 40));
  const d = (BigInt(`0x${okm.toString('hex')}`) % (P256_N - 1n)) + 1n;
  return Buffer.from(d.toString(16).padStart(64, '0'), 'hex');
}

/** The EC P-256 private JWK derived from one key of the ring. */
export function signingJwk({ id, key }: SecretKey): SigningJwk {
  const d = privateScalar(key);
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey(); // 0x04 || x || y
  return { kty: 'EC', crv: 'P-256', x: b64url(point.subarray(1, 33)), y: b64url(point.subarray(33, 65)), d: b64url(d), kid: id, alg: 'ES256', use: 'sig' };
}

export function publicJwk(jwk: SigningJwk): PublicJwk {
  const { d: _d, ...pub } = jwk;
  return pub;
}

/** Every key the provider needs, derived from the ring (same ring, same keys). */
export function oauthKeys(ring: KeyRing): OAuthKeys {
  const signing = ring.all.map(signingJwk);
  return {
    signing,
    jwks: { keys: signing.map(publicJwk) },
    cookieKeys: ring.all.map(({ key }) => b64url(Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), COOKIE_INFO, 32)))),
  };
}
