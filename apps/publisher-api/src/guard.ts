/**
 * The publisher API's credential policy, one place: which credential types and key kinds a
 * route accepts, and the per-account budget it spends after authentication.
 */
import type { Middleware } from 'koa';
import { authenticate, type Principal } from '@cw/auth';
import type { BudgetName } from '@cw/config';
import type { ApiKeyKind, CredentialType } from '@cw/db';
import { enforceRateLimit } from '@cw/ratelimit';
import { ApiError } from '@cw/errors';
import type { AppDeps } from '@cw/runtime';

export interface GuardOptions {
  budget: BudgetName;
  /** Demo keys are refused everywhere except product search and lookup. */
  allowDemo?: boolean;
  refuseKinds?: ApiKeyKind[];
  refuseDetail?: string;
  requireFeedAccess?: boolean;
  /** Refuse demo accounts whatever the key kind (they never apply or create links). */
  refuseDemoAccounts?: boolean;
  /** Default: publisher API keys (X-API-Key or Bearer). */
  allow?: CredentialType[];
}

export function guard(deps: AppDeps, opts: GuardOptions): Middleware[] {
  const refuse: ApiKeyKind[] = [...(opts.allowDemo ? [] : (['demo'] as ApiKeyKind[])), ...(opts.refuseKinds ?? [])];
  const allow = opts.allow ?? ['api_key'];
  return [
    authenticate({
      models: deps.models,
      allow,
      apiKeyHeader: allow.includes('api_key'),
      refuseKinds: refuse,
      refuseDetail: opts.refuseDetail,
      requireFeedAccess: opts.requireFeedAccess,
    }),
    async (ctx, next) => {
      const principal = ctx.state.principal as Principal;
      if (opts.refuseDemoAccounts && principal.publisher.is_demo) {
        throw new ApiError({ code: 'credential_not_allowed', detail: opts.refuseDetail ?? 'Demo accounts cannot use this endpoint.' });
      }
      // Keyed by account, not credential: both headers, and rotated keys, share one budget.
      await enforceRateLimit(ctx, deps.limiter, opts.budget, principal.publisher._id, deps.config.rateLimits[opts.budget]);
      await next();
    },
  ];
}

export function principalOf(state: Record<string, unknown>): Principal {
  return state.principal as Principal;
}

export const API_KEY_SECURITY = ['ApiKeyHeader', 'BearerAuth'];
