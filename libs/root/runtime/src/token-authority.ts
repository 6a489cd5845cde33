/**
 * The resource servers' side of OAuth (DESIGN.md "People"): an app's access token, a JWT the
 * portal's provider signed, verified against the provider's public keys held in memory (no
 * database on a cached request), then made a principal: the account it acts for, the person who
 * granted it with their role there (a grant never does more than its person could), and the
 * scopes granted. The grant, the membership and the account are read when the token is first
 * seen and whenever the account's access stamp changed (a revocation bumps it).
 */
import { ApiError } from '@cw/errors';
import type { OAuthResource, Principal, TokenAuthority, VerifiedToken } from '@cw/auth';
import type { PlatformConfig } from '@cw/config';
import { InvalidAccessTokenError, oauthKeys, resourceIndicators, verifyAccessToken, type AccessTokenClaims } from '@cw/oauth';
import type { PlatformData } from './platform-data';

type Claims = AccessTokenClaims & VerifiedToken;

/** The protected resource metadata URL of a resource (RFC 9728: the well-known path before the resource's path). */
export function resourceMetadataUrl(portalUrl: string, resource: OAuthResource): string {
  const indicator = resourceIndicators(portalUrl)[resource];
  const u = new URL(indicator);
  return `${u.origin}/.well-known/oauth-protected-resource${u.pathname}`;
}

/** The 401 for a token this resource server does not take (RFC 6750 `invalid_token`), in the platform's error shape. */
export function invalidToken(portalUrl: string, resource: OAuthResource, why: string): ApiError {
  return new ApiError({
    code: 'not_authenticated',
    detail: 'Authentication credentials were not provided or are not valid.',
    headers: {
      'WWW-Authenticate': `Bearer error="invalid_token", error_description="${why.replace(/"/g, "'")}", resource_metadata="${resourceMetadataUrl(portalUrl, resource)}"`,
    },
  });
}

export function createTokenAuthority(
  config: Pick<PlatformConfig, 'portalUrl' | 'keys'>,
  data: Pick<PlatformData, 'auth' | 'people' | 'oauth'>,
): TokenAuthority<Claims> {
  const jwks = oauthKeys(config.keys).jwks;
  const audiences = resourceIndicators(config.portalUrl);
  const refuse = (resource: OAuthResource, why: string) => invalidToken(config.portalUrl, resource, why);
  return {
    async verify(token, resource) {
      try {
        return await verifyAccessToken(token, { issuer: config.portalUrl, audience: audiences[resource], jwks });
      } catch (e) {
        if (e instanceof InvalidAccessTokenError) throw refuse(resource, e.message);
        throw e;
      }
    },
    async load(claims, resource): Promise<Principal> {
      const grant = claims.grantId ? await data.oauth.grantById(claims.grantId) : null;
      if (!grant || grant.accountId !== claims.accountId || grant.personId !== claims.sub) throw refuse(resource, 'the grant was revoked');
      const member = await data.people.membership(claims.accountId, claims.sub);
      if (!member) throw refuse(resource, 'the person who granted it is no longer a member of the account');
      const publisher = await data.auth.publisherById(claims.accountId);
      if (!publisher || publisher.status !== 'active') throw refuse(resource, 'the account is not active');
      data.oauth.noteGrantUse(grant.grantId);
      return {
        publisher,
        credentialId: grant.grantId,
        prefix: `oauth:${claims.clientId}`,
        type: 'oauth_token',
        person: { userId: claims.sub, email: member.email, role: member.role, sessionId: grant.grantId },
        oauth: {
          clientId: claims.clientId,
          grantId: grant.grantId,
          scopes: claims.scopes,
          expiresAt: claims.exp * 1000,
          resourceMetadata: resourceMetadataUrl(config.portalUrl, resource),
        },
      };
    },
    used(principal) {
      if (principal.oauth) data.oauth.noteGrantUse(principal.oauth.grantId);
    },
  };
}
