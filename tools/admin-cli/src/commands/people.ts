/** People of the portal who are also the network's operators: through the people lib's operator use cases (audited; admin only). */
import { OPERATOR_ROLES } from '@cw/auth';
import { ApiError } from '@cw/errors';
import { operatorGrantRole, operatorRevokeRole } from '@cw/people';
import { choice, str, UsageError, type CommandSpec } from './shared';

/** A person not found is the operator's mistake (exit 2), not a failure. */
const usage = async <T>(run: () => Promise<T>): Promise<T> => {
  try {
    return await run();
  } catch (e) {
    throw e instanceof ApiError && (e.code === 'not_found' || e.code === 'invalid_parameter') ? new UsageError(e.detail) : e;
  }
};

export const PEOPLE_COMMANDS: Record<string, CommandSpec> = {
  'operator:grant': {
    summary: 'Make a person who signs in to the portal an operator (support reads, admin acts): the portal shows them its operator area at their next request',
    options: {
      email: { type: 'string', required: true, doc: "the person's sign-in e-mail" },
      role: { type: 'string', required: true, doc: 'support or admin' },
    },
    run: (deps, o) => usage(() => operatorGrantRole(deps, deps.operator, { email: str(o, 'email')!, role: choice(o, 'role', OPERATOR_ROLES)! })),
  },
  'operator:revoke-role': {
    summary: "Take a person's operator role away (their accounts stay); the operator area refuses them at their next request",
    options: { email: { type: 'string', required: true, doc: "the person's sign-in e-mail" } },
    run: (deps, o) => usage(() => operatorRevokeRole(deps, deps.operator, { email: str(o, 'email')! })),
  },
};
