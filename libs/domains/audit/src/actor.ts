import type { Principal } from '@cw/auth';
import type { SecurityEventInput } from './data/audit.data';

/**
 * The who and where of an act, from its caller: a person in the portal (e-mail, hashed address,
 * device, request id), or a credential (its display prefix only).
 */
export function actorOf(principal: Principal): Pick<SecurityEventInput, 'actor' | 'address' | 'address_hash' | 'user_agent' | 'request_id'> {
  const p = principal.person;
  if (!p) return { actor: { credential_prefix: principal.prefix } };
  return { actor: { user_id: p.userId, email: p.email }, address: p.address, address_hash: p.addressHash, user_agent: p.userAgent, request_id: p.requestId };
}
