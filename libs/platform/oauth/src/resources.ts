/**
 * What an access token can be for: two resources (RFC 8707), spelled exactly so everywhere
 * (metadata, the token's `aud`, the resource servers' checks), and the scopes each accepts.
 */

/** The scopes an app may be granted on a resource, with the words the consent page shows. */
export const RESOURCE_SCOPES = {
  'affiliate:read': 'See the account and its payment status',
  'catalog:read': 'Search and look up products, read product feeds',
  'links:write': 'Apply to programs and create tracking links',
  'reports:read': 'Read conversions, reports, clicks and events',
  'postbacks:read': 'Read the postback configuration and deliveries, send test postbacks',
  'payouts:write': 'Request a payout of the available balance',
} as const;
export type ResourceScope = keyof typeof RESOURCE_SCOPES;

/** Scopes outside resources: `offline_access` asks for a refresh token; `openid` for sign-in only. */
export const STATIC_SCOPES = ['openid', 'offline_access'] as const;
export const OFFLINE_ACCESS_DESCRIPTION = 'Keep access when you are not using the app (until you revoke it)';

export interface ResourceIndicators {
  /** The publisher API: `{portal_url}/api/v1/publisher` (the credentials file's `base_url`). */
  publisherApi: string;
  /** MCP: `{portal_url}/api/v1/mcp` (no trailing slash, the MCP spec's canonical form). */
  mcp: string;
}

export function resourceIndicators(portalUrl: string): ResourceIndicators {
  const base = portalUrl.replace(/\/+$/, '');
  return { publisherApi: `${base}/api/v1/publisher`, mcp: `${base}/api/v1/mcp` };
}

/**
 * The scopes each resource accepts. The publisher API: all of them. MCP: all but
 * `postbacks:read` and `payouts:write`, since no MCP tool reads postbacks or requests a payout
 * (a tool that does would add it here).
 */
export function resourceScopes(portalUrl: string): Record<string, readonly ResourceScope[]> {
  const r = resourceIndicators(portalUrl);
  const all = Object.keys(RESOURCE_SCOPES) as ResourceScope[];
  return { [r.publisherApi]: all, [r.mcp]: all.filter((s) => s !== 'postbacks:read' && s !== 'payouts:write') };
}
