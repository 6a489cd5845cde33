import type { Context, Middleware, Next } from 'koa';
import { ApiError } from '@cw/errors';
import type { ApiKeyKind, CredentialType, Models } from '@cw/db';
import { verifyCredential } from './credentials.service';

/** The secret from X-API-Key or Authorization: Bearer (never from the URL or a cookie). */
export function presentedSecret(ctx: Context, opts: { apiKeyHeader: boolean }): string | undefined {
  const auth = ctx.get('Authorization');
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1];
  const header = opts.apiKeyHeader ? ctx.get('X-API-Key').trim() || undefined : undefined;
  if (header && bearer && header !== bearer) return undefined;
  return header ?? bearer;
}

export interface AuthOptions {
  models: Models;
  allow: readonly CredentialType[];
  /** Accept X-API-Key as well as Authorization: Bearer. */
  apiKeyHeader?: boolean;
  /** API key kinds refused with 403 credential_not_allowed on this route. */
  refuseKinds?: readonly ApiKeyKind[];
  refuseDetail?: string;
  /** 403 feed_access_inactive when the account has no product-feed access. */
  requireFeedAccess?: boolean;
}

/** Authenticates and puts the Principal on ctx.state.principal. */
export function authenticate(opts: AuthOptions): Middleware {
  return async (ctx: Context, next: Next) => {
    const principal = await verifyCredential(opts.models, presentedSecret(ctx, { apiKeyHeader: opts.apiKeyHeader ?? false }), opts.allow);
    if (principal.keyKind && opts.refuseKinds?.includes(principal.keyKind)) {
      throw new ApiError({ code: 'credential_not_allowed', detail: opts.refuseDetail ?? `A ${principal.keyKind} key cannot use this endpoint.` });
    }
    if (opts.requireFeedAccess && !principal.publisher.feed_access) {
      throw new ApiError({ code: 'feed_access_inactive', detail: 'Product feed access is not active on this account.' });
    }
    ctx.state.principal = principal;
    await next();
  };
}
