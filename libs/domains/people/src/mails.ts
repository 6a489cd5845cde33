/** The mail people get, each with a one-time link (only its hash is stored). */
import type { MemberRole } from '@cw/auth';
import type { MailTokenKind } from './data/people.schemas.data';
import type { UserRow } from './data/people.data';
import { own, type PeopleDeps } from './deps';
import { newToken, publicId, tokenHash } from './tokens';

export const LINK_TTL_MS: Record<MailTokenKind, number> = {
  verify_email: 48 * 3_600_000,
  reset_password: 3_600_000,
  invitation: 7 * 86_400_000,
};

/** Stores a one-time link's hash and returns the token that goes in the mail. */
export async function mintLink(
  deps: Pick<PeopleDeps, 'data'>,
  kind: MailTokenKind,
  fields: { email: string; user_id?: string; account_id?: string; role?: MemberRole; invited_by?: string },
  now = new Date(),
): Promise<{ token: string; publicId: string; expiresAt: Date }> {
  const token = newToken();
  const expiresAt = new Date(now.getTime() + LINK_TTL_MS[kind]);
  const id = publicId(kind === 'invitation' ? 'inv' : 'lnk');
  await own(deps).MailToken.create({ _id: tokenHash(token), public_id: id, kind, ...fields, created_at: now, expires_at: expiresAt });
  return { token, publicId: id, expiresAt };
}

const link = (deps: Pick<PeopleDeps, 'config'>, path: string, token: string) => `${deps.config.portalUrl}${path}?token=${encodeURIComponent(token)}`;

export async function sendVerification(deps: PeopleDeps, user: Pick<UserRow, '_id' | 'email'>, now = new Date()): Promise<void> {
  const { token } = await mintLink(deps, 'verify_email', { email: user.email, user_id: user._id }, now);
  await deps.mailer.send({
    to: user.email,
    subject: 'Confirm your e-mail address',
    text: `Confirm your e-mail address to finish signing up for the publisher portal:\n\n${link(deps, '/verify-email', token)}\n\nThe link works once, for 48 hours. If you did not sign up, ignore this message.\n`,
  });
}

/** Someone signed up with an address that has an account already: its owner is told, nobody else learns it. */
export async function sendAlreadyRegistered(deps: PeopleDeps, email: string): Promise<void> {
  await deps.mailer.send({
    to: email,
    subject: 'You already have an account',
    text: `Someone (you, we hope) tried to sign up for the publisher portal with this address, which has an account already.\n\nSign in: ${deps.config.portalUrl}/signin\nForgot your password? ${deps.config.portalUrl}/forgot-password\n`,
  });
}

export async function sendPasswordReset(deps: PeopleDeps, user: Pick<UserRow, '_id' | 'email'>, now = new Date()): Promise<void> {
  const { token } = await mintLink(deps, 'reset_password', { email: user.email, user_id: user._id }, now);
  await deps.mailer.send({
    to: user.email,
    subject: 'Reset your password',
    text: `Choose a new password for the publisher portal:\n\n${link(deps, '/reset-password', token)}\n\nThe link works once, for one hour, and signs you out everywhere. If you did not ask for it, ignore this message: your password is unchanged.\n`,
  });
}

export async function sendInvitation(deps: PeopleDeps, to: string, token: string, accountName: string, role: MemberRole, invitedBy: string): Promise<void> {
  await deps.mailer.send({
    to,
    subject: `${invitedBy} invited you to ${accountName}`,
    text: `${invitedBy} invited you to the publisher account ${accountName} as ${role}.\n\nAccept: ${link(deps, '/invitations/accept', token)}\n\nThe invitation is valid for 7 days.\n`,
  });
}
