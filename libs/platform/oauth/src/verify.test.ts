import { importJWK, SignJWT, type JWTPayload } from 'jose';
import { describe, expect, it } from 'vitest';
import { keyRing } from '@cw/config';
import { oauthKeys } from './keys';
import { InvalidAccessTokenError, looksLikeAccessToken, verifyAccessToken } from './verify';

const issuer = 'http://127.0.0.1:8080';
const mcp = `${issuer}/api/v1/mcp`;
const publisherApi = `${issuer}/api/v1/publisher`;
const keys = oauthKeys(keyRing(Buffer.alloc(32, 3)));
const other = oauthKeys(keyRing(Buffer.alloc(32, 4)));
const opts = { issuer, audience: mcp, jwks: keys.jwks };
const claims = { client_id: 'app1', account_id: 'pub_1', grant_id: 'g1', scope: 'catalog:read reports:read' };

async function token(
  o: {
    payload?: JWTPayload;
    typ?: string;
    aud?: string | string[];
    iss?: string;
    exp?: number | string;
    key?: (typeof keys.signing)[number];
    kid?: string;
  } = {},
): Promise<string> {
  const key = o.key ?? keys.signing[0]!;
  return new SignJWT({ ...claims, ...o.payload })
    .setProtectedHeader({ alg: 'ES256', kid: o.kid ?? key.kid, typ: o.typ ?? 'at+jwt' })
    .setSubject('usr_1')
    .setJti('jti1')
    .setIssuedAt()
    .setIssuer(o.iss ?? issuer)
    .setAudience(o.aud ?? mcp)
    .setExpirationTime(o.exp ?? '10m')
    .sign(await importJWK(key, 'ES256'));
}

async function problem(t: string, o = opts): Promise<string> {
  const e = await verifyAccessToken(t, o).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(InvalidAccessTokenError);
  return (e as InvalidAccessTokenError).problem;
}

describe('verifyAccessToken', () => {
  it('accepts a valid token for this resource and returns who, for which account, with which scopes', async () => {
    const c = await verifyAccessToken(await token(), opts);
    expect(c).toMatchObject({ sub: 'usr_1', accountId: 'pub_1', clientId: 'app1', grantId: 'g1', jti: 'jti1', scopes: ['catalog:read', 'reports:read'] });
    expect(c.exp).toBeGreaterThan(Date.now() / 1000);
  });

  it('refuses a token for the other resource, and one with an extra audience', async () => {
    expect(await problem(await token({ aud: publisherApi }))).toBe('audience');
    expect(await problem(await token({ aud: [mcp, publisherApi] }))).toBe('audience');
    expect(await problem(await token({ aud: `${mcp}/` }))).toBe('audience');
  });

  it('refuses an expired token, another issuer, and a token that is not an access token (typ)', async () => {
    expect(await problem(await token({ exp: Math.floor(Date.now() / 1000) - 5 }))).toBe('expired');
    expect(await problem(await token({ iss: 'https://evil.example' }))).toBe('issuer');
    expect(await problem(await token({ typ: 'JWT' }))).toBe('claims');
  });

  it('refuses a token signed by another key, under a known or an unknown kid', async () => {
    expect(await problem(await token({ key: other.signing[0]!, kid: 'base' }))).toBe('signature');
    expect(await problem(await token({ key: other.signing[0]!, kid: 'nope' }))).toBe('signature');
  });

  it('refuses a token without an account, and a sender-constrained one', async () => {
    expect(await problem(await token({ payload: { account_id: undefined } }))).toBe('claims');
    expect(await problem(await token({ payload: { cnf: { jkt: 'x' } } }))).toBe('claims');
  });

  it('refuses garbage and unsigned tokens', async () => {
    expect(await problem('live_abc')).toBe('malformed');
    expect(await problem('a.b.c')).toBe('malformed');
    const [h, p] = (await token()).split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${p}.`;
    expect(await problem(none)).toBe('malformed');
    expect(await problem(`${h}.${p}.${Buffer.alloc(64).toString('base64url')}`)).toBe('signature');
  });
});

describe('looksLikeAccessToken', () => {
  it('tells access tokens from API keys by form', async () => {
    expect(looksLikeAccessToken(await token())).toBe(true);
    expect(looksLikeAccessToken('live_0123456789abcdef0123456789abcdef')).toBe(false);
    expect(looksLikeAccessToken('rpt_abc.def')).toBe(false);
    expect(looksLikeAccessToken('a.b.c d')).toBe(false);
  });
});
