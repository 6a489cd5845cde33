import { ApiError } from '@cw/errors';
import type { Policy, Principal } from '@cw/auth';
import { useCase, type InputOf, type UseCaseDeps } from '@cw/usecase';
import { shownNetwork } from './client-network';
import type { AuditData } from './data/audit.data';

export const SECURITY_LOG_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    cursor: { type: 'string', maxLength: 64, description: 'next_cursor of the previous page' },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
} as const;

/** Every member reads the account's log (owners, developers and analysts alike: it holds no secret). */
const READ_LOG: Policy = { budget: 'portal' };

/** The account's security log, newest first, by cursor. */
export const securityLog = useCase(
  READ_LOG,
  async function securityLog(deps: UseCaseDeps<{ audit: AuditData }>, principal: Principal, input: InputOf<typeof SECURITY_LOG_INPUT>) {
    if (input.cursor !== undefined && !/^sev_[0-9a-f]{24}$/.test(input.cursor))
      throw new ApiError({
        code: 'invalid_parameter',
        detail: "Invalid parameter 'cursor'.",
        errors: [{ param: 'cursor', detail: 'is not a cursor of this list' }],
      });
    const limit = input.limit ?? 50;
    const rows = await deps.data.audit.page(principal.publisher._id, limit + 1, input.cursor);
    const page = rows.slice(0, limit);
    return {
      data: page.map((r) => ({
        id: r._id,
        type: r.type,
        at: r.at,
        actor: r.actor?.email
          ? { email: r.actor.email, ...(r.actor.operator_role ? { operator: true } : {}) }
          : r.actor?.credential_prefix
            ? { credential: r.actor.credential_prefix }
            : null,
        detail: r.detail ?? {},
        /** The network it came from, as a keyed hash (sign-ins and the person's acts): never an address or its prefix. */
        address: shownNetwork(deps.config.secretKey, r.address),
        user_agent: r.user_agent ?? null,
      })),
      has_more: rows.length > limit,
      next_cursor: rows.length > limit ? (page.at(-1)?._id ?? null) : null,
    };
  },
  SECURITY_LOG_INPUT,
);
