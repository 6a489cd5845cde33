import type { OperatorPrincipal, Principal } from '@cw/auth';
import type { AuditData, SecurityEventInput } from './data/audit.data';
import type { SecurityEventType } from './data/security-event.schema';

/**
 * The who and where of an act, from its caller: a person in the portal (e-mail, hashed address,
 * device, request id), or a credential (its display prefix only).
 */
export function actorOf(principal: Principal): Pick<SecurityEventInput, 'actor' | 'address' | 'address_hash' | 'user_agent' | 'request_id'> {
  const p = principal.person;
  if (!p) return { actor: { credential_prefix: principal.prefix } };
  return { actor: { user_id: p.userId, email: p.email }, address: p.address, address_hash: p.addressHash, user_agent: p.userAgent, request_id: p.requestId };
}

/** The who of an operator's act: their e-mail and role, the token's prefix, the request and the hashed address. */
export function operatorActorOf(operator: OperatorPrincipal): Pick<SecurityEventInput, 'actor' | 'address_hash' | 'request_id'> {
  return {
    actor: { email: operator.email, operator_role: operator.role, ...(operator.prefix ? { credential_prefix: operator.prefix } : {}) },
    ...(operator.addressHash ? { address_hash: operator.addressHash } : {}),
    ...(operator.requestId ? { request_id: operator.requestId } : {}),
  };
}

/** Records one operator act: who (the operator), on which account (if one), what changed (never a secret). */
export async function recordOperatorAct(
  audit: AuditData,
  operator: OperatorPrincipal,
  type: SecurityEventType,
  detail: Record<string, unknown>,
  accountId?: string,
): Promise<void> {
  await audit.record({ ...operatorActorOf(operator), type, detail, ...(accountId ? { account_id: accountId } : {}) });
}
