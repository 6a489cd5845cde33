import type { MemberRole, OperatorRole } from '@cw/auth';
import { own, type PeopleDeps } from './deps';
import { hashPassword } from './passwords';
import { newUserId } from './signup.service';
import { normalizeEmail } from './tokens';

/** A person with a confirmed address and a role in each given account (the demo data and the operator CLI), and an operator role if given (the local platform's operator login). */
export async function createPerson(
  deps: Pick<PeopleDeps, 'data'>,
  person: { email: string; password: string; name?: string; operatorRole?: OperatorRole },
  memberships: Array<{ accountId: string; role: MemberRole }>,
  now = new Date(),
): Promise<string> {
  const id = newUserId();
  await own(deps).User.create({
    _id: id,
    email: normalizeEmail(person.email),
    name: person.name,
    password_hash: await hashPassword(person.password),
    email_verified_at: now,
    ...(person.operatorRole ? { operator_role: person.operatorRole } : {}),
    created_at: now,
  });
  for (const m of memberships) await deps.data.people.addMember(m.accountId, id, m.role, now);
  return id;
}
