/**
 * Authorization as data: which credential types and key kinds a use case accepts, the account
 * conditions it needs, and the per-account budget it spends. `authorize` is the one check, called
 * by the HTTP middleware and by MCP tools alike.
 */
import type { BudgetName } from '@cw/config';
import type { ApiKeyKind, CredentialType, MemberRole, OperatorRole } from './data/credential.schema';
import { ApiError } from '@cw/errors';
import type { OAuthActor, OAuthScope, Principal } from './credentials.service';

export interface Policy {
  /** The per-account rate budget the call spends (both auth headers and rotated keys share it). */
  budget: BudgetName;
  /** Credential types accepted; default: publisher API keys. */
  credentials?: readonly CredentialType[];
  /** Demo keys are refused unless this is set (the spec: search and lookup only). */
  allowDemo?: boolean;
  /** API key kinds refused with 403 credential_not_allowed. */
  refuseKinds?: readonly ApiKeyKind[];
  refuseDetail?: string;
  /** 403 feed_access_inactive when the account's product-feed access is off. */
  requireFeedAccess?: boolean;
  /** Demo accounts are refused whatever the key kind (they never apply or create links). */
  refuseDemoAccounts?: boolean;
  /**
   * The roles of an account's people who may call it from a portal session (default: every role).
   * Credentials are not people: this never refuses a key.
   */
  roles?: readonly MemberRole[];
  /** A portal session needs the password given in the last minutes (sensitive changes). */
  reauthenticate?: boolean;
  /**
   * The OAuth scope an app's access token needs to call it; without one no access token may
   * (postback changes, key management, redelivery stay with the person and the account's keys).
   */
  scope?: OAuthScope;
  /**
   * An operator's act, not an account's: the operator role it needs (`support` reads, `admin`
   * acts). No publisher credential or person may call it (`authorize` refuses them); operators
   * are authorized by `authorizeOperator`.
   */
  operator?: OperatorRole;
}

/** What an analyst may not do: change anything. Owners and developers manage keys, postbacks and links. */
export const WRITERS: readonly MemberRole[] = ['owner', 'developer'];
export const OWNERS: readonly MemberRole[] = ['owner'];

export const API_KEYS_ONLY: readonly CredentialType[] = ['api_key'];

/** Throws the 403 the policy gives this principal, or returns when it may proceed. */
export function authorize(principal: Principal, policy: Policy): void {
  if (policy.operator) throw new ApiError({ code: 'forbidden', detail: 'Only an operator of the network can do this.' });
  const kind = principal.keyKind;
  if (kind && ((kind === 'demo' && !policy.allowDemo) || policy.refuseKinds?.includes(kind))) {
    throw new ApiError({ code: 'credential_not_allowed', detail: policy.refuseDetail ?? `A ${kind} key cannot use this endpoint.` });
  }
  if (policy.requireFeedAccess && !principal.publisher.feed_access) {
    throw new ApiError({ code: 'feed_access_inactive', detail: 'Product feed access is not active on this account.' });
  }
  if (policy.refuseDemoAccounts && principal.publisher.is_demo) {
    throw new ApiError({ code: 'credential_not_allowed', detail: policy.refuseDetail ?? 'Demo accounts cannot use this endpoint.' });
  }
  if (principal.oauth) authorizeToken(principal.oauth, policy);
  const person = principal.person;
  if (person && policy.roles && !policy.roles.includes(person.role)) {
    throw new ApiError({
      code: 'role_not_allowed',
      detail: `Your role in this account (${person.role}) cannot do this; it needs ${policy.roles.join(' or ')}. Ask an owner of the account.`,
    });
  }
  if (person && !principal.oauth && policy.reauthenticate && !(person.reauthenticatedUntil && person.reauthenticatedUntil.getTime() > Date.now())) {
    throw new ApiError({ code: 'reauthentication_required', detail: 'Enter your password again to make this change.' });
  }
}

/**
 * Principals the surface's edge authorized (`callerUnder`: every HTTP route's `requirePolicy`, every
 * MCP tool call), with the policies they passed there. `authorize` reads nothing but the principal
 * object and the policy (a cached principal is one object while its stamp holds; a change replaces
 * it), so a principal that passed a policy passes it again: the use case bound to that very policy
 * need not ask twice (`authorizeOnce`). Policies that read the clock (`reauthenticate`) are not noted.
 */
const passed = new WeakMap<Principal, WeakSet<Policy>>();

/** Notes that `principal` passed `authorize` under `policy` (the edge's check, in this lib only). */
export function noteAuthorized(principal: Principal, policy: Policy): void {
  if (policy.reauthenticate) return;
  let policies = passed.get(principal);
  if (!policies) passed.set(principal, (policies = new WeakSet()));
  policies.add(policy);
}

/**
 * `authorize`, unless the call's edge already authorized this principal under this very policy:
 * what a use case does, so a call is authorized once whatever its surface (HTTP and MCP at their
 * edge, before the budget is spent; `/Apiv3/json`, the CLI and the portal in the use case).
 */
export function authorizeOnce(principal: Principal, policy: Policy): void {
  if (!passed.get(principal)?.has(policy)) authorize(principal, policy);
}

/** The scopes a token's grant holds cover the call, or 403 `insufficient_scope` (RFC 6750), naming the scope it needs. */
function authorizeToken(token: OAuthActor, policy: Policy): void {
  const metadata = `resource_metadata="${token.resourceMetadata}"`;
  if (!policy.scope)
    throw new ApiError({
      code: 'insufficient_scope',
      detail: "No OAuth scope grants this: it is done in the portal or with the account's own keys.",
      headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", ${metadata}` },
    });
  if (!token.scopes.includes(policy.scope))
    throw new ApiError({
      code: 'insufficient_scope',
      detail: `This needs the scope ${policy.scope}, which the app was not granted.`,
      headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${policy.scope}", ${metadata}` },
    });
}
