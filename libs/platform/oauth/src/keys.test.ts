import { createLocalJWKSet, importJWK, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { keyRing } from '@cw/config';
import { oauthKeys } from './keys';

const base = Buffer.alloc(32, 7);
const k2 = { id: 'k2', key: Buffer.alloc(32, 9) };

async function sign(jwk: ReturnType<typeof oauthKeys>['signing'][number]): Promise<string> {
  return new SignJWT({ scope: 'catalog:read' })
    .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
    .setIssuer('http://127.0.0.1:8080')
    .setAudience('http://127.0.0.1:8080/api/v1/mcp')
    .setExpirationTime('5m')
    .sign(await importJWK(jwk, 'ES256'));
}

describe('keys derived from the key ring', () => {
  it('the same ring gives the same signing keys and cookie keys, every time', () => {
    expect(oauthKeys(keyRing(base, [k2]))).toEqual(oauthKeys(keyRing(Buffer.alloc(32, 7), [{ id: 'k2', key: Buffer.alloc(32, 9) }])));
  });

  it('names each key by its ring id, newest first, and another key gives another key pair', () => {
    const one = oauthKeys(keyRing(base));
    const rotated = oauthKeys(keyRing(base, [k2]));
    expect(one.jwks.keys.map((k) => k.kid)).toEqual(['base']);
    expect(rotated.jwks.keys.map((k) => k.kid)).toEqual(['k2', 'base']);
    expect(rotated.signing[1]).toEqual(one.signing[0]);
    expect(rotated.signing[0]!.x).not.toBe(one.signing[0]!.x);
    expect(rotated.signing[0]!.d).not.toBe(one.signing[0]!.d);
    expect(rotated.cookieKeys).toHaveLength(2);
    expect(rotated.cookieKeys[1]).toBe(one.cookieKeys[0]);
    expect(new Set([...rotated.cookieKeys, ...rotated.signing.map((k) => k.d)]).size).toBe(4);
  });

  it('publishes no private part', () => {
    for (const k of oauthKeys(keyRing(base, [k2])).jwks.keys) {
      expect(Object.keys(k).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    }
  });

  it('a token signed with the newest key verifies against the public JWKS; after a rotation, one signed with the old key still does', async () => {
    const before = oauthKeys(keyRing(base));
    const after = oauthKeys(keyRing(base, [k2]));
    const jwks = createLocalJWKSet(after.jwks);
    for (const token of [await sign(after.signing[0]!), await sign(before.signing[0]!)]) {
      const { payload, protectedHeader } = await jwtVerify(token, jwks, { issuer: 'http://127.0.0.1:8080', typ: 'at+jwt' });
      expect(payload.scope).toBe('catalog:read');
      expect(['k2', 'base']).toContain(protectedHeader.kid);
    }
    // A key that left the ring no longer verifies.
    await expect(jwtVerify(await sign(after.signing[0]!), createLocalJWKSet(before.jwks))).rejects.toThrow();
  });
});
