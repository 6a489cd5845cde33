/**
 * The mail people get, each with a one-time link (only its hash is stored). Every one is handed to
 * the mailer's background path (`later`): the link is stored and the message sent after the
 * answer, so no answer waits on, or tells by its time, which mail (if any) went out. A link ends
 * when it is used, when a newer link of its kind is stored for the same person (an invitation: the
 * same address and account), and a reset or confirmation link when the password changes.
 */
import type { MemberRole } from '@cw/auth';
import { toDisplayText } from '@cw/validation';
import type { MailTokenKind } from './data/people.schemas.data';
import type { UserRow } from './data/people.data';
import { own, type PeopleDeps } from './deps';
import { newToken, publicId, tokenHash } from './tokens';

export const LINK_TTL_MS: Record<MailTokenKind, number> = {
  verify_email: 48 * 3_600_000,
  reset_password: 3_600_000,
  invitation: 7 * 86_400_000,
  unlock_signin: 86_400_000,
};

/** Which earlier links a new one ends: the person's of that kind; an invitation's, those to the same address for the same account. */
function earlierLinks(kind: MailTokenKind, fields: { email: string; user_id?: string; account_id?: string }) {
  return kind === 'invitation' ? { kind, account_id: fields.account_id, email: fields.email } : { kind, user_id: fields.user_id };
}

/** Stores a one-time link's hash and returns the token that goes in the mail; the earlier links it replaces end. */
export async function mintLink(
  deps: Pick<PeopleDeps, 'data'>,
  kind: MailTokenKind,
  fields: { email: string; user_id?: string; account_id?: string; role?: MemberRole; invited_by?: string },
  now = new Date(),
): Promise<{ token: string; publicId: string; expiresAt: Date }> {
  const token = newToken();
  const expiresAt = new Date(now.getTime() + LINK_TTL_MS[kind]);
  const id = publicId(kind === 'invitation' ? 'inv' : 'lnk');
  const hash = tokenHash(token);
  await own(deps).MailToken.create({ _id: hash, public_id: id, kind, ...fields, created_at: now, expires_at: expiresAt });
  // Two minted at once may end each other: then neither works, and the person asks again (never two alive).
  await own(deps)
    .MailToken.deleteMany({ ...earlierLinks(kind, fields), _id: { $ne: hash } })
    .exec();
  return { token, publicId: id, expiresAt };
}

/** Ends a person's reset and confirmation links (a password reset or changed). */
export async function endPasswordLinks(deps: Pick<PeopleDeps, 'data'>, userId: string): Promise<void> {
  await own(deps)
    .MailToken.deleteMany({ user_id: userId, kind: { $in: ['reset_password', 'verify_email'] } })
    .exec();
}

const link = (deps: Pick<PeopleDeps, 'config'>, path: string, token: string) => `${deps.config.portalUrl}${path}?token=${encodeURIComponent(token)}`;

/** A new confirmation link, mailed in the background (the earlier one ends). */
export async function sendVerification(deps: PeopleDeps, user: Pick<UserRow, '_id' | 'email'>, now = new Date()): Promise<void> {
  deps.mailer.later(async () => {
    const { token } = await mintLink(deps, 'verify_email', { email: user.email, user_id: user._id }, now);
    return {
      to: user.email,
      subject: 'Confirm your e-mail address',
      text: `Confirm your e-mail address to finish signing up for the publisher portal:\n\n${link(deps, '/verify-email', token)}\n\nThe link works once, for 48 hours. If you did not sign up, ignore this message.\n`,
    };
  });
}

/** Someone signed up with an address that has an account already: its owner is told (in the background, as any sign-up's mail), nobody else learns it. */
export async function sendAlreadyRegistered(deps: PeopleDeps, email: string): Promise<void> {
  deps.mailer.later(() => ({
    to: email,
    subject: 'You already have an account',
    text: `Someone (you, we hope) tried to sign up for the publisher portal with this address, which has an account already.\n\nSign in: ${deps.config.portalUrl}/signin\nForgot your password? ${deps.config.portalUrl}/forgot-password\n`,
  }));
}

/** A new reset link, mailed in the background (the earlier one ends). */
export async function sendPasswordReset(deps: PeopleDeps, user: Pick<UserRow, '_id' | 'email'>, now = new Date()): Promise<void> {
  deps.mailer.later(async () => {
    const { token } = await mintLink(deps, 'reset_password', { email: user.email, user_id: user._id }, now);
    return {
      to: user.email,
      subject: 'Reset your password',
      text: `Choose a new password for the publisher portal:\n\n${link(deps, '/reset-password', token)}\n\nThe link works once, for one hour, and signs you out everywhere. If you did not ask for it, ignore this message: your password is unchanged.\n`,
    };
  });
}

/** The invitation (its link minted by the caller), mailed in the background. Names come from stored rows (older ones may hold control or bidirectional characters): stripped. */
export async function sendInvitation(deps: PeopleDeps, to: string, token: string, accountName: string, role: MemberRole, invitedBy: string): Promise<void> {
  const account = toDisplayText(accountName);
  const inviter = toDisplayText(invitedBy);
  deps.mailer.later(() => ({
    to,
    subject: `${inviter} invited you to ${account}`,
    text: `${inviter} invited you to the publisher account ${account} as ${role}.\n\nAccept: ${link(deps, '/invitations/accept', token)}\n\nThe invitation is valid for 7 days.\n`,
  }));
}
