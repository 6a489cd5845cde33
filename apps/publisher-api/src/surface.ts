import { principalOf, type PolicyDeps } from '@cw/auth';
import { apiKeySurface, type Operation, type RouteSpec } from '@cw/http';
import { idempotent, type IdempotencyData } from '@cw/idempotency';
import { API_KEY_SECURITY } from '@cw/runtime';

/**
 * The publisher API's surface over operations declared in their libs: each behind its use case's
 * policy (API keys, and OAuth access tokens where the policy names a scope), a write under an
 * optional Idempotency-Key (docs/decisions/0071-one-declaration-per-operation.md).
 */
export function apiKeyRoutes<D extends PolicyDeps & { data: { idempotency: IdempotencyData } }>(deps: D, operations: Array<Operation<D>>): RouteSpec[] {
  return operations.map(
    apiKeySurface(deps, {
      security: API_KEY_SECURITY,
      idempotent: (route) => idempotent({ data: deps.data.idempotency, account: (ctx) => principalOf(ctx).publisher._id, route }),
    }),
  );
}
