import { portalSurface, type Operation, type RouteSpec } from '@cw/http';
import { idempotentWrite, memberOf, principalIn, spendPortalBudget, type PortalDeps } from './portal-context';

/** The `:account` path parameter of every account route. */
export const ACCOUNT = { type: 'string', description: 'An account the person belongs to (pub_…).' };

/**
 * The portal's surface over operations declared in their libs: each under `/accounts/:account`
 * for a signed-in member of that account (their budget, their membership: 404 otherwise); a write
 * checks the member's role under the policy before its Idempotency-Key, claimed under the API's
 * route name, so a key replays across both surfaces (docs/decisions/0071-one-declaration-per-operation.md).
 */
export function memberRoutes(deps: PortalDeps, operations: Array<Operation<PortalDeps>>): RouteSpec[] {
  return operations.map(
    portalSurface(deps, {
      member: [spendPortalBudget(deps), memberOf(deps)],
      write: (policy, route) => idempotentWrite(deps, policy, route),
      principal: principalIn,
      account: ACCOUNT,
    }),
  );
}
