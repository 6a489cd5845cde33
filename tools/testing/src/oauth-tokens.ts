/**
 * Apps' OAuth access tokens for tests of the resource servers, made exactly as the portal's
 * provider makes them: the grant stored through the provider's own adapter and bound to its
 * account (as consent does), the token signed with the provider's keys (derived from the platform's
 * key ring) and its claims. What a test then checks is the resource server, not a stand-in.
 */
import { randomBytes } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import { oauthKeys, resourceIndicators, type ResourceIndicators } from '@cw/oauth';
import type { TestDeps } from './test-deps';

export type TestResource = keyof ResourceIndicators;

/** A grant of `scopes` on `resource` by a person for an account; answers its id. */
export async function storeGrant(
  deps: Pick<TestDeps, 'data' | 'config'>,
  g: { personId: string; accountId: string; scopes: string; resource?: TestResource; clientId?: string },
): Promise<string> {
  const id = `grant_${randomBytes(8).toString('hex')}`;
  const Grant = deps.data.oauth.adapterFactory();
  const now = Math.floor(Date.now() / 1000);
  const resource = resourceIndicators(deps.config.portalUrl)[g.resource ?? 'publisherApi'];
  await new Grant('Grant').upsert(
    id,
    { kind: 'Grant', jti: id, accountId: g.personId, clientId: g.clientId ?? 'app_test', iat: now, exp: now + 3600, resources: { [resource]: g.scopes } },
    3600,
  );
  if (!(await deps.data.oauth.bindGrantAccount(id, g.accountId))) throw new Error(`grant ${id} could not be bound to ${g.accountId}`);
  return id;
}

/** An access token as the provider signs it (ES256, `typ: at+jwt`, the newest key of the ring). */
export async function accessToken(
  deps: Pick<TestDeps, 'config'>,
  t: { personId: string; accountId: string; grantId: string; scopes: string; resource?: TestResource; expiresIn?: string; clientId?: string },
): Promise<string> {
  const jwk = oauthKeys(deps.config.keys).signing[0]!;
  const key = await importJWK(jwk, 'ES256');
  return new SignJWT({ scope: t.scopes, client_id: t.clientId ?? 'app_test', account_id: t.accountId, grant_id: t.grantId })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: jwk.kid })
    .setIssuer(deps.config.portalUrl)
    .setAudience(resourceIndicators(deps.config.portalUrl)[t.resource ?? 'publisherApi'])
    .setSubject(t.personId)
    .setJti(randomBytes(8).toString('hex'))
    .setIssuedAt()
    .setExpirationTime(t.expiresIn ?? '10m')
    .sign(key);
}
