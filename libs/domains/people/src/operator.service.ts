/**
 * People who are also the network's operators: an admin operator grants a person an operator role
 * (`support` reads, `admin` acts) or takes it away, audited; a signed-in person who carries a role
 * acts in the portal's operator area as that operator (the same operator use cases as the CLI).
 */
import { ApiError } from '@cw/errors';
import { OPERATOR_ROLES, type OperatorPrincipal, type OperatorRole } from '@cw/auth';
import { recordOperatorAct, type AuditData } from '@cw/audit';
import { operatorUseCase, type UseCaseDeps } from '@cw/usecase';
import type { PeopleData, UserRow } from './data/people.data';
import { own, type RequestOrigin } from './deps';
import type { SessionContext } from './sessions.service';
import { normalizeEmail } from './tokens';

/** What granting and taking away a role needs: the people and the audit log. */
export type OperatorPeopleDeps = UseCaseDeps<{ people: PeopleData; audit: AuditData }>;

const invalid = (param: string, detail: string) =>
  new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}': ${detail}.`, errors: [{ param, detail }] });

async function personByEmail(deps: OperatorPeopleDeps, email: string): Promise<UserRow> {
  if (typeof email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(email.trim()) || email.length > 254)
    throw invalid('email', `"${String(email)}" is not an e-mail address`);
  const user = await own(deps)
    .User.findOne({ email: normalizeEmail(email) })
    .lean<UserRow>();
  if (!user) throw new ApiError({ code: 'not_found', detail: `No one signs in to the portal as ${normalizeEmail(email)}: they sign up first.` });
  return user;
}

/** Makes a person an operator with this role (or changes their role); only an admin operator does. */
export const operatorGrantRole = operatorUseCase(
  'admin',
  async function operatorGrantRole(deps: OperatorPeopleDeps, operator, input: { email: string; role: OperatorRole }) {
    if (!(OPERATOR_ROLES as readonly string[]).includes(input.role)) throw invalid('role', `must be ${OPERATOR_ROLES.join(' or ')}`);
    const user = await personByEmail(deps, input.email);
    const previous = (user.operator_role as OperatorRole | undefined) ?? null;
    await own(deps).User.updateOne({ _id: user._id }, { $set: { operator_role: input.role } });
    await recordOperatorAct(deps.data.audit, operator, 'operator_role_granted', { user_id: user._id, email: user.email, role: input.role, previous });
    return { user_id: user._id, email: user.email, operator_role: input.role, previous };
  },
);

/** Takes a person's operator role away (they stay a person, with their accounts); only an admin operator does. */
export const operatorRevokeRole = operatorUseCase('admin', async function operatorRevokeRole(deps: OperatorPeopleDeps, operator, input: { email: string }) {
  const user = await personByEmail(deps, input.email);
  const previous = (user.operator_role as OperatorRole | undefined) ?? null;
  if (!previous) return { user_id: user._id, email: user.email, operator_role: null, previous };
  await own(deps).User.updateOne({ _id: user._id }, { $unset: { operator_role: 1 } });
  await recordOperatorAct(deps.data.audit, operator, 'operator_role_revoked', { user_id: user._id, email: user.email, role: previous });
  return { user_id: user._id, email: user.email, operator_role: null, previous };
});

/** The person's operator role, or null (not an operator). */
export function operatorRoleOf(ctx: SessionContext): OperatorRole | null {
  const r = ctx.user.operator_role;
  return r && (OPERATOR_ROLES as readonly string[]).includes(r) ? (r as OperatorRole) : null;
}

/**
 * The operator a signed-in person is in the portal's operator area (their e-mail and role, the
 * request and the hashed address for the audit log); anyone without a role: 403.
 */
export function sessionOperator(ctx: SessionContext, origin: RequestOrigin): OperatorPrincipal {
  const role = operatorRoleOf(ctx);
  if (!role) throw new ApiError({ code: 'forbidden', detail: 'You are not an operator: the operator area is for the network’s operators.' });
  return {
    type: 'operator',
    email: ctx.user.email,
    role,
    ...(origin.requestId ? { requestId: origin.requestId } : {}),
    ...(origin.addressHash ? { addressHash: origin.addressHash } : {}),
  };
}
