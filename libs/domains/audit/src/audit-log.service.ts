import { ApiError } from '@cw/errors';
import { operatorUseCase, type UseCaseDeps } from '@cw/usecase';
import type { AuditData, AuditFilter } from './data/audit.data';
import { SECURITY_EVENT_TYPES } from './data/security-event.schema';

export interface AuditLogInput extends Omit<AuditFilter, 'before'> {
  cursor?: string;
  limit?: number;
}

/**
 * The network's audit log for operators (support reads it): every account's security events and
 * every operator act, newest first, filtered by account, actor, action and time. Read only: the
 * audit lib has no path that edits or deletes an entry.
 */
export const auditLog = operatorUseCase('support', async function auditLog(deps: UseCaseDeps<{ audit: AuditData }>, _operator, input: AuditLogInput) {
  if (input.action !== undefined && !(SECURITY_EVENT_TYPES as readonly string[]).includes(input.action))
    throw new ApiError({
      code: 'invalid_parameter',
      detail: `Invalid parameter 'action': one of ${SECURITY_EVENT_TYPES.join(', ')}.`,
      errors: [{ param: 'action', detail: 'is not an audited act' }],
    });
  if (input.cursor !== undefined && !/^sev_[0-9a-f]{24}$/.test(input.cursor))
    throw new ApiError({
      code: 'invalid_parameter',
      detail: "Invalid parameter 'cursor'.",
      errors: [{ param: 'cursor', detail: 'is not a cursor of this list' }],
    });
  const limit = Math.min(Math.max(input.limit ?? 100, 1), 1000);
  const rows = await deps.data.audit.list(
    { account: input.account, actor: input.actor, action: input.action, since: input.since, before: input.cursor },
    limit + 1,
  );
  const page = rows.slice(0, limit);
  return {
    data: page.map((r) => ({
      id: r._id,
      at: r.at,
      action: r.type,
      account_id: r.account_id ?? null,
      actor: {
        ...(r.actor?.email ? { email: r.actor.email } : {}),
        ...(r.actor?.operator_role ? { operator_role: r.actor.operator_role } : {}),
        ...(r.actor?.credential_prefix ? { credential: r.actor.credential_prefix } : {}),
      },
      detail: r.detail ?? {},
      request_id: r.request_id ?? null,
      address_hash: r.address_hash ?? null,
    })),
    has_more: rows.length > limit,
    next_cursor: rows.length > limit ? (page.at(-1)?._id ?? null) : null,
  };
});
