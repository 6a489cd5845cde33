/**
 * A person by id and their role in an account, for the OAuth authorization server in the portal:
 * who a grant's `sub` is, and whether they still belong to the account a grant acts for.
 */
import type { MemberRole } from '@cw/auth';
import { memberId, type MemberRow, type UserRow } from './data/people.data';
import { own, type PeopleDeps } from './deps';

/** The person with this id (null: no such person). */
export async function findPerson(deps: Pick<PeopleDeps, 'data'>, userId: string): Promise<UserRow | null> {
  if (!userId || userId.length > 64) return null;
  return own(deps).User.findById(userId).lean<UserRow>();
}

/** The person's role in the account (null: not a member). */
export async function memberRole(deps: Pick<PeopleDeps, 'data'>, accountId: string, userId: string): Promise<MemberRole | null> {
  if (!accountId || !userId || accountId.length > 64 || userId.length > 64) return null;
  const m = await own(deps).AccountMember.findById(memberId(accountId, userId), { role: 1 }).lean<MemberRow>();
  return m ? (m.role as MemberRole) : null;
}
