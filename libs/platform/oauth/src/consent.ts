/**
 * The consent step of an authorization, for the portal's consent page: what the app asks for
 * (per resource, in the resources' scopes), and the grant that records what the person gave,
 * bound to the publisher account they chose. A grant's account never changes: consenting for
 * another account than the session's existing grant for this app starts a new grant.
 */
import type { Provider } from 'oidc-provider';
import type { OAuthData } from './data/oauth.data';
import { resourceScopes, type ResourceScope } from './resources';

type InteractionDetails = Awaited<ReturnType<Provider['interactionDetails']>>;

export interface RequestedAccess {
  clientId: string;
  /** The scopes asked for, per resource indicator (only scopes that resource accepts). */
  resources: Record<string, ResourceScope[]>;
  /** `offline_access` asked for (and kept by the provider): the app gets a refresh token. */
  offlineAccess: boolean;
  /** `openid` asked for (sign-in with the platform). */
  openid: boolean;
}

const words = (v: unknown): string[] => (typeof v === 'string' ? v.split(' ').filter(Boolean) : []);
const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : typeof v === 'string' ? [v] : []);

/** What an interaction at its consent prompt asks for. */
export function requestedAccess(issuer: string, details: Pick<InteractionDetails, 'params' | 'prompt'>): RequestedAccess {
  const accepted = resourceScopes(issuer);
  const scopes = new Set(words(details.params.scope));
  const missing = (details.prompt.details.missingResourceScopes ?? {}) as Record<string, unknown>;
  const indicators = new Set([...list(details.params.resource), ...Object.keys(missing)]);
  const resources: Record<string, ResourceScope[]> = {};
  for (const indicator of indicators) {
    const asked = (accepted[indicator] ?? []).filter((s) => scopes.has(s));
    if (asked.length) resources[indicator] = asked;
  }
  return { clientId: String(details.params.client_id), resources, offlineAccess: scopes.has('offline_access'), openid: scopes.has('openid') };
}

export interface ConsentInput {
  /** The signed-in person (the session's account id, the tokens' `sub`). */
  personId: string;
  /** The publisher account the app will act for (one the person is a member of). */
  accountId: string;
  /** The scopes the person approved (default: everything asked for); a grant never holds more than asked. */
  approved?: readonly string[];
}

/**
 * Records the person's consent: adds what was asked for and approved to the session's grant for
 * this app (or a new one), saves it and binds it to the account. Returns the grant id for the
 * interaction's result (`{consent: {grantId}}`).
 */
export async function grantConsent(provider: Provider, oauth: OAuthData, details: InteractionDetails, input: ConsentInput): Promise<string> {
  const asked = requestedAccess(provider.issuer, details);
  const approved = input.approved ? new Set(input.approved) : undefined;
  const ok = (scope: string) => !approved || approved.has(scope);

  let grant = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
  if (grant && (grant.accountId !== input.personId || grant.clientId !== asked.clientId || (await oauth.grantAccount(details.grantId!)) !== input.accountId))
    grant = undefined;
  grant ??= new provider.Grant({ accountId: input.personId, clientId: asked.clientId });

  const oidc = [asked.openid ? 'openid' : '', asked.offlineAccess && ok('offline_access') ? 'offline_access' : ''].filter(Boolean);
  if (oidc.length) grant.addOIDCScope(oidc);
  for (const [indicator, scopes] of Object.entries(asked.resources)) {
    const given = scopes.filter(ok);
    if (given.length) grant.addResourceScope(indicator, given);
  }
  const grantId = await grant.save();
  if (!(await oauth.bindGrantAccount(grantId, input.accountId))) throw new Error(`grant ${grantId} acts for another account`);
  return grantId;
}
