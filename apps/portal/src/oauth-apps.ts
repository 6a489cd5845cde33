/**
 * Apps acting for an account through OAuth: what a member's role lets them grant (an analyst only
 * reads, so never `links:write`), the account's grants as Settings, Apps lists them, and revoking
 * one. Use cases bound to their policies: any member reads; owners and developers revoke.
 */
import { ApiError } from '@cw/errors';
import { WRITERS, type MemberRole, type Policy, type Principal } from '@cw/auth';
import { actorOf, type AuditData } from '@cw/audit';
import { RESOURCE_SCOPES, resourceIndicators, type GrantRow, type OAuthData, type ResourceScope } from '@cw/oauth';
import type { PeopleData } from '@cw/people';
import { useCase, type UseCaseDeps } from '@cw/usecase';
import { revokingInPortal } from './oauth';

export type AppsDeps = UseCaseDeps<{ oauth: OAuthData; people: PeopleData; audit: AuditData }>;

/** Scopes only some roles may grant (what the scope lets an app do, the role must be allowed to do). */
const SCOPE_ROLES: Partial<Record<ResourceScope, readonly MemberRole[]>> = { 'links:write': WRITERS };

/** Whether a member with this role may grant an app the scope. */
export const roleMayGrant = (role: MemberRole, scope: string): boolean => {
  const roles = SCOPE_ROLES[scope as ResourceScope];
  return !roles || roles.includes(role);
};

/** The resource scopes a role may grant, in RESOURCE_SCOPES' order. */
export const grantableScopes = (role: MemberRole): ResourceScope[] => (Object.keys(RESOURCE_SCOPES) as ResourceScope[]).filter((s) => roleMayGrant(role, s));

/** A resource indicator in words (the consent page and Settings, Apps). */
export function resourceLabel(portalUrl: string, indicator: string): string {
  const r = resourceIndicators(portalUrl);
  if (indicator === r.mcp) return 'MCP (agents and AI assistants)';
  if (indicator === r.publisherApi) return 'Publisher API';
  return indicator;
}

const hostOf = (uri: string): string | null => URL.parse(uri)?.host ?? null;

const READ_APPS: Policy = { budget: 'portal' };
const REVOKE_APP: Policy = { budget: 'portal', roles: WRITERS };

/** Settings, Apps: every live grant of the account, newest first. */
export const listApps = useCase(READ_APPS, async function listApps(deps: AppsDeps, principal: Principal) {
  const grants = await deps.data.oauth.grantsOfAccount(principal.publisher._id);
  const clients = await deps.data.oauth.clientsByIds(grants.map((g) => g.clientId));
  const people = new Map(
    await Promise.all([...new Set(grants.map((g) => g.personId))].map(async (id) => [id, id ? await deps.data.people.userById(id) : null] as const)),
  );
  return {
    data: grants.map((g) => {
      const client = clients.get(g.clientId);
      const person = people.get(g.personId);
      return {
        id: g.grantId,
        app: {
          client_id: g.clientId,
          name: client?.clientName ?? null,
          redirect_hosts: [...new Set((client?.redirectUris ?? []).map(hostOf).filter((h): h is string => !!h))],
          disabled: !!client?.disabledAt,
        },
        granted_by: person ? { user_id: person._id, email: person.email } : null,
        resources: Object.entries(g.resources).map(([resource, scopes]) => ({ resource, label: resourceLabel(deps.config.portalUrl, resource), scopes })),
        scopes: [...new Set(Object.values(g.resources).flat())],
        offline_access: g.scopes.includes('offline_access'),
        created_at: g.createdAt,
        last_used_at: g.lastUsedAt ?? null,
        expires_at: g.expiresAt ?? null,
      };
    }),
  };
});

/** What the security log keeps of a grant (never a token). */
export function grantDetail(g: Pick<GrantRow, 'grantId' | 'clientId' | 'resources'>, appName: string | undefined): Record<string, unknown> {
  return {
    grant_id: g.grantId,
    client_id: g.clientId,
    app: appName ?? null,
    resources: Object.keys(g.resources),
    scopes: [...new Set(Object.values(g.resources).flat())],
  };
}

/** Revokes one of the account's grants: its refresh tokens end now, its access tokens at their next request. */
export const revokeApp = useCase(REVOKE_APP, async function revokeApp(deps: AppsDeps, principal: Principal, grantId: string) {
  const accountId = principal.publisher._id;
  const notFound = () => new ApiError({ code: 'not_found', detail: 'No such app grant in this account.' });
  if (!grantId || grantId.length > 100) throw notFound();
  const grant = await deps.data.oauth.grantById(grantId);
  if (!grant || grant.accountId !== accountId) throw notFound();
  if (!(await revokingInPortal(() => deps.data.oauth.revokeGrant(grantId, accountId)))) throw notFound();
  const client = (await deps.data.oauth.clientsByIds([grant.clientId])).get(grant.clientId);
  await deps.data.audit.record({
    account_id: accountId,
    type: 'app_revoked',
    ...actorOf(principal),
    detail: { ...grantDetail(grant, client?.clientName), reason: 'revoked_in_portal' },
  });
});
