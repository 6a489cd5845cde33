/**
 * The people domain's data: persons, their memberships in publisher accounts, their sessions and
 * the one-time links mailed to them. Other libs reach it through `PeopleData`'s methods.
 */
import type { Model } from 'mongoose';
import { announceAccessChanges, defineDomain, modelVault } from '@cw/db';
import type { MemberRole } from '@cw/auth';
import {
  accountMemberSchema,
  mailTokenSchema,
  sessionSchema,
  userSchema,
  type AccountMemberDoc,
  type MailTokenDoc,
  type SessionDoc,
  type UserDoc,
} from './people.schemas.data';

export interface PeopleModels {
  User: Model<UserDoc>;
  AccountMember: Model<AccountMemberDoc>;
  PortalSession: Model<SessionDoc>;
  MailToken: Model<MailTokenDoc>;
}

export type UserRow = UserDoc & { _id: string };
export type MemberRow = AccountMemberDoc & { _id: string };

// A role given, changed or taken away changes what the person's apps may do in that account (their tokens carry the person's role).
announceAccessChanges(accountMemberSchema, { accountField: 'account_id' });

const { DomainHandle, open } = modelVault<PeopleModels>('people');

export const memberId = (accountId: string, userId: string) => `${accountId}:${userId}`;

export class PeopleData extends DomainHandle {
  /** Makes a person a member of an account (or changes their role); the claim of an application and the seed use it. */
  async addMember(accountId: string, userId: string, role: MemberRole, now = new Date()): Promise<void> {
    // The account named in the filter: the change is announced for it (access stamps; an app's token of this person reads afresh).
    await open(this).AccountMember.updateOne(
      { _id: memberId(accountId, userId), account_id: accountId },
      { $set: { role }, $setOnInsert: { user_id: userId, joined_at: now } },
      { upsert: true },
    );
  }

  /** A person's role in an account and their address (null: not a member, or no such person). */
  async membership(accountId: string, userId: string): Promise<{ role: MemberRole; email: string } | null> {
    const m = await open(this).AccountMember.findById(memberId(accountId, userId)).lean<MemberRow>();
    if (!m) return null;
    const u = await open(this).User.findById(userId, { email: 1 }).lean<UserRow>();
    return u ? { role: m.role as MemberRole, email: u.email } : null;
  }

  /** Whether someone signs in with this address (compared without case). */
  async userExists(email: string): Promise<boolean> {
    return !!(await open(this).User.exists({ email: email.trim().toLowerCase() }));
  }

  userById(id: string): Promise<UserRow | null> {
    return open(this).User.findById(id).lean<UserRow>();
  }

  /** The members of these accounts (of these roles, when given): who a notice of an account goes to. */
  membersOf(accountIds: string[], roles?: readonly MemberRole[], limit = 1000): Promise<Array<{ account_id: string; user_id: string; role: MemberRole }>> {
    return open(this)
      .AccountMember.find({ account_id: { $in: accountIds }, ...(roles ? { role: { $in: roles } } : {}) }, { account_id: 1, user_id: 1, role: 1 })
      .limit(limit)
      .lean<Array<{ account_id: string; user_id: string; role: MemberRole }>>();
  }

  /** Memberships in id order after `after` (every account's people, page by page: the weekly summary's pass). */
  membersAfter(after: string | null, limit: number): Promise<Array<{ _id: string; account_id: string; user_id: string; role: MemberRole }>> {
    return open(this)
      .AccountMember.find(after ? { _id: { $gt: after } } : {}, { account_id: 1, user_id: 1, role: 1 })
      .sort({ _id: 1 })
      .limit(limit)
      .lean<Array<{ _id: string; account_id: string; user_id: string; role: MemberRole }>>();
  }

  /** Which of these persons own at least one account. */
  async ownersAmong(userIds: string[]): Promise<Set<string>> {
    if (!userIds.length) return new Set();
    const rows = await open(this)
      .AccountMember.find({ user_id: { $in: userIds }, role: 'owner' }, { user_id: 1 })
      .lean<Array<{ user_id: string }>>();
    return new Set(rows.map((r) => r.user_id));
  }

  /** The accounts' owners' addresses (the operator CLI mails the owner when an account is approved). */
  async ownerEmails(accountId: string): Promise<string[]> {
    const owners = await open(this).AccountMember.find({ account_id: accountId, role: 'owner' }).limit(20).lean<MemberRow[]>();
    const users = await open(this)
      .User.find({ _id: { $in: owners.map((o) => o.user_id) } }, { email: 1 })
      .lean<UserRow[]>();
    return users.map((u) => u.email);
  }
}

/** The people lib's own models (not exported from the lib). */
export const peopleModels = (data: PeopleData): PeopleModels => open(data);

export const peopleDomain = defineDomain(
  'people',
  {
    User: [userSchema, 'users'],
    AccountMember: [accountMemberSchema, 'account_members'],
    PortalSession: [sessionSchema, 'portal_sessions'],
    MailToken: [mailTokenSchema, 'mail_tokens'],
  },
  (m: PeopleModels) => new PeopleData(m),
);
