/**
 * An account's people: members and their roles, invitations by mail. Who may change them is the
 * use cases' policies (owners; the password given again for invitations, roles and removals).
 */
import { ApiError } from '@cw/errors';
import { OWNERS, type MemberRole, type Policy, type Principal } from '@cw/auth';
import { actorOf } from '@cw/audit';
import { useCase, type InputOf } from '@cw/usecase';
import { memberId, type MemberRow, type UserRow } from './data/people.data';
import type { MailTokenDoc } from './data/people.schemas.data';
import { own, type PeopleDeps, type RequestOrigin } from './deps';
import { mintLink, sendInvitation } from './mails';
import { hashPassword } from './passwords';
import { assertPasswordAllowed } from './password-policy';
import { ACCEPT_INVITATION_INPUT, INVITE_INPUT, ROLE_INPUT } from './people.schemas';
import { openSession, type SessionContext } from './sessions.service';
import { newUserId, useLink } from './signup.service';
import { normalizeEmail, tokenHash } from './tokens';

const READ_TEAM: Policy = { budget: 'portal' };
const INVITE: Policy = { budget: 'portal', roles: OWNERS, reauthenticate: true };
const REVOKE_INVITATION: Policy = { budget: 'portal', roles: OWNERS };
const CHANGE_MEMBERS: Policy = { budget: 'portal', roles: OWNERS, reauthenticate: true };

type InvitationRow = MailTokenDoc & { _id: string };

function personOf(principal: Principal) {
  if (!principal.person) throw new ApiError({ code: 'credential_not_allowed', detail: 'Only people signed in to the portal manage the team.' });
  return principal.person;
}

const invitationView = (i: InvitationRow) => ({ id: i.public_id, email: i.email, role: i.role, invited_by: i.invited_by ?? null, expires_at: i.expires_at });

export const listMembers = useCase(READ_TEAM, async function listMembers(deps: PeopleDeps, principal: Principal) {
  const now = new Date();
  const accountId = principal.publisher._id;
  const members = await own(deps).AccountMember.find({ account_id: accountId }).sort({ joined_at: 1 }).limit(500).lean<MemberRow[]>();
  const users = await own(deps)
    .User.find({ _id: { $in: members.map((m) => m.user_id) } })
    .lean<UserRow[]>();
  const byId = new Map(users.map((u) => [u._id, u]));
  const invitations = await own(deps)
    .MailToken.find({ account_id: accountId, kind: 'invitation', expires_at: { $gt: now } })
    .sort({ created_at: -1 })
    .limit(200)
    .lean<InvitationRow[]>();
  return {
    data: members.map((m) => ({
      user_id: m.user_id,
      email: byId.get(m.user_id)?.email ?? null,
      name: byId.get(m.user_id)?.name ?? null,
      role: m.role,
      joined_at: m.joined_at,
    })),
    invitations: invitations.map(invitationView),
  };
});

export const inviteMember = useCase(
  INVITE,
  async function inviteMember(deps: PeopleDeps, principal: Principal, input: InputOf<typeof INVITE_INPUT>) {
    const now = new Date();
    const person = personOf(principal);
    const email = normalizeEmail(input.email);
    const accountId = principal.publisher._id;
    const user = await own(deps).User.findOne({ email }, { _id: 1 }).lean<UserRow>();
    if (user && (await own(deps).AccountMember.exists({ _id: memberId(accountId, user._id) })))
      throw new ApiError({ code: 'conflict', detail: `${email} is a member of this account already.` });
    // A new invitation to this address replaces an earlier one (its link ends): the role is the one asked last.
    const minted = await mintLink(deps, 'invitation', { email, account_id: accountId, role: input.role, invited_by: person.email }, now);
    await sendInvitation(deps, email, minted.token, principal.publisher.name, input.role, person.email);
    await deps.data.audit.record({ account_id: accountId, type: 'member_invited', ...actorOf(principal), detail: { email, role: input.role } });
    return { id: minted.publicId, email, role: input.role, invited_by: person.email, expires_at: minted.expiresAt };
  },
  INVITE_INPUT,
);

export const revokeInvitation = useCase(REVOKE_INVITATION, async function revokeInvitation(deps: PeopleDeps, principal: Principal, id: string) {
  const accountId = principal.publisher._id;
  const gone = await own(deps).MailToken.findOneAndDelete({ public_id: id, account_id: accountId, kind: 'invitation' }).lean<InvitationRow>();
  if (!gone) throw new ApiError({ code: 'not_found', detail: 'No such invitation.' });
  await deps.data.audit.record({ account_id: accountId, type: 'invitation_revoked', ...actorOf(principal), detail: { email: gone.email } });
});

/** The owners but one: an account always keeps an owner. */
async function assertNotLastOwner(deps: PeopleDeps, accountId: string, member: MemberRow): Promise<void> {
  if (member.role !== 'owner') return;
  const owners = await own(deps).AccountMember.countDocuments({ account_id: accountId, role: 'owner' });
  if (owners <= 1) throw new ApiError({ code: 'last_owner', detail: 'An account needs an owner: make someone else owner first.' });
}

async function memberOf(deps: PeopleDeps, accountId: string, userId: string): Promise<MemberRow> {
  const m = userId.length <= 64 ? await own(deps).AccountMember.findById(memberId(accountId, userId)).lean<MemberRow>() : null;
  if (!m) throw new ApiError({ code: 'not_found', detail: 'No such member.' });
  return m;
}

export const changeRole = useCase(
  CHANGE_MEMBERS,
  async function changeRole(deps: PeopleDeps, principal: Principal, input: InputOf<typeof ROLE_INPUT>, userId: string) {
    const accountId = principal.publisher._id;
    const member = await memberOf(deps, accountId, userId);
    if (member.role !== input.role) {
      if (input.role !== 'owner') await assertNotLastOwner(deps, accountId, member);
      await own(deps).AccountMember.updateOne({ _id: member._id, account_id: accountId }, { $set: { role: input.role } });
      const user = await own(deps).User.findById(userId, { email: 1 }).lean<UserRow>();
      await deps.data.audit.record({
        account_id: accountId,
        type: 'member_role_changed',
        ...actorOf(principal),
        detail: { email: user?.email ?? null, from: member.role, to: input.role },
      });
    }
    return { user_id: userId, role: input.role as MemberRole };
  },
  ROLE_INPUT,
);

export const removeMember = useCase(CHANGE_MEMBERS, async function removeMember(deps: PeopleDeps, principal: Principal, userId: string) {
  const accountId = principal.publisher._id;
  const member = await memberOf(deps, accountId, userId);
  await assertNotLastOwner(deps, accountId, member);
  await own(deps).AccountMember.deleteOne({ _id: member._id, account_id: accountId });
  const user = await own(deps).User.findById(userId, { email: 1 }).lean<UserRow>();
  await deps.data.audit.record({
    account_id: accountId,
    type: 'member_removed',
    ...actorOf(principal),
    detail: { email: user?.email ?? null, role: member.role },
  });
});

/** What an invitation link is for (the accept page shows it before anything is done). */
export async function invitationInfo(deps: PeopleDeps, token: string, now = new Date()) {
  const inv = await own(deps)
    .MailToken.findOne({ _id: tokenHash(token), kind: 'invitation' })
    .lean<InvitationRow>();
  if (!inv || inv.expires_at <= now)
    throw new ApiError({ code: 'not_found', detail: 'This invitation is not valid any more: it was used, revoked or it expired.' });
  const account = await deps.data.auth.publisherById(inv.account_id!);
  return { account_name: account?.name ?? null, email: inv.email, role: inv.role, expires_at: inv.expires_at, invited_by: inv.invited_by ?? null };
}

/**
 * Accepts an invitation: a person signed in with the invited address joins; without a session, a
 * new person signs up with it (the mail proved the address) and is signed in. Answers the session
 * cookie's value when it opened one.
 */
export async function acceptInvitation(
  deps: PeopleDeps,
  ctx: SessionContext | null,
  input: InputOf<typeof ACCEPT_INVITATION_INPUT>,
  origin: RequestOrigin,
  now = new Date(),
): Promise<{ account_id: string; role: MemberRole; sessionToken?: string }> {
  const info = await invitationInfo(deps, input.token, now);
  let user: Pick<UserRow, '_id' | 'email'>;
  let sessionToken: string | undefined;
  if (ctx) {
    if (ctx.user.email !== info.email)
      throw new ApiError({ code: 'conflict', detail: `This invitation is for ${info.email}: sign in with that address to accept it.` });
    user = ctx.user;
  } else {
    if (await own(deps).User.exists({ email: info.email }))
      throw new ApiError({ code: 'conflict', detail: `${info.email} has an account already: sign in, then open the invitation link again.` });
    if (!input.password)
      throw new ApiError({
        code: 'invalid_parameter',
        detail: 'Choose a password to create your sign-in.',
        errors: [{ param: 'password', detail: 'is required' }],
      });
    await assertPasswordAllowed(input.password, { email: info.email, name: input.name, accountNames: [info.account_name] });
    user = { _id: newUserId(), email: info.email };
    await own(deps).User.create({ ...user, name: input.name, password_hash: await hashPassword(input.password), email_verified_at: now, created_at: now });
  }
  const link = await useLink(deps, input.token, 'invitation', now);
  const role = link.role as MemberRole;
  // Any other invitation of this address to this account ends: a link left over must not choose the role again later.
  await own(deps).MailToken.deleteMany({ kind: 'invitation', account_id: link.account_id, email: link.email }).exec();
  await deps.data.people.addMember(link.account_id!, user._id, role, now);
  if (!ctx) sessionToken = await openSession(deps, user._id, origin, now);
  await deps.data.audit.record({
    account_id: link.account_id!,
    type: 'member_joined',
    actor: { user_id: user._id, email: user.email },
    detail: { role, invited_by: link.invited_by ?? null },
    address: origin.address,
    address_hash: origin.addressHash,
    user_agent: origin.userAgent,
    request_id: origin.requestId,
  });
  return { account_id: link.account_id!, role, sessionToken };
}
