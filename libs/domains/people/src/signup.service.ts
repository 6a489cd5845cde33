/**
 * Signing up (a person and a publisher account pending the network's review), confirming the
 * address, and passwords (forgotten, reset, changed). Nothing answers differently for an address
 * that has an account: the mail tells its owner, the page tells nobody, and the answer takes as
 * long (the same password hashing either way; every mail, or none, handed to the background).
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '@cw/errors';
import type { InputOf } from '@cw/usecase';
import type { UserRow } from './data/people.data';
import type { MailTokenDoc } from './data/people.schemas.data';
import { own, type PeopleDeps, type RequestOrigin } from './deps';
import { endPasswordLinks, sendAlreadyRegistered, sendPasswordReset, sendVerification } from './mails';
import { hashPassword } from './passwords';
import { assertPasswordAllowed, personContext, resetLinkContext } from './password-policy';
import type { CHANGE_PASSWORD_INPUT, RESET_PASSWORD_INPUT, SIGNUP_INPUT } from './people.schemas';
import { checkPassword, endSessions, recordForPerson, type SessionContext } from './sessions.service';
import type { SigninGuardDeps } from './signin-guard';
import { normalizeEmail, tokenHash } from './tokens';

const linkInvalid = () => new ApiError({ code: 'not_found', detail: 'This link is not valid any more: it was used, or it expired. Ask for a new one.' });

export const newUserId = () => `usr_${randomBytes(9).toString('hex')}`;

export async function signUp(deps: PeopleDeps, input: InputOf<typeof SIGNUP_INPUT>, now = new Date()): Promise<{ status: 'verification_sent' }> {
  const email = normalizeEmail(input.email);
  // Refused for everyone alike (before the address is looked at): a common password, or one with the address or names in it.
  await assertPasswordAllowed(input.password, { email, name: input.name, accountNames: [input.account_name] });
  // The password is hashed whether or not the address is taken (the KDF is most of the work: a taken address must not answer sooner).
  const [existing, passwordHash] = await Promise.all([own(deps).User.findOne({ email }).lean<UserRow>(), hashPassword(input.password)]);
  if (existing) {
    if (existing.email_verified_at) await sendAlreadyRegistered(deps, email);
    else await sendVerification(deps, existing, now);
    return { status: 'verification_sent' };
  }
  const userId = newUserId();
  try {
    await own(deps).User.create({ _id: userId, email, name: input.name, password_hash: passwordHash, created_at: now });
  } catch (e) {
    // The same address signed up at the same moment: that one goes on, this one is told as above.
    if ((e as { code?: number }).code === 11000) return { status: 'verification_sent' };
    throw e;
  }
  if (input.account_name) {
    const accountId = `pub_${randomBytes(6).toString('hex')}`;
    await deps.data.auth.createPublishers([
      { _id: accountId, name: input.account_name, website: input.website, status: 'pending', feed_access: false, created_at: now, updated_at: now },
    ]);
    await deps.data.people.addMember(accountId, userId, 'owner', now);
  }
  await sendVerification(deps, { _id: userId, email }, now);
  return { status: 'verification_sent' };
}

/** Uses a mailed link once: it is removed as it is read, so two clicks cannot both use it. */
export async function useLink(deps: Pick<PeopleDeps, 'data'>, token: string, kind: MailTokenDoc['kind'], now = new Date()): Promise<MailTokenDoc> {
  const row = await own(deps)
    .MailToken.findOneAndDelete({ _id: tokenHash(token), kind })
    .lean<MailTokenDoc>();
  if (!row || row.expires_at <= now) throw linkInvalid();
  return row;
}

/** A reset or confirmation link asked for before the password last changed ends with that change (one minted meanwhile in the background too). */
const endedByPasswordChange = (link: MailTokenDoc, user: UserRow) => !!user.password_changed_at && link.created_at < user.password_changed_at;

export async function verifyEmail(deps: PeopleDeps, token: string, now = new Date()): Promise<{ verified: true; email: string }> {
  const link = await useLink(deps, token, 'verify_email', now);
  const user = await own(deps).User.findById(link.user_id).lean<UserRow>();
  if (!user || endedByPasswordChange(link, user)) throw linkInvalid();
  await own(deps).User.updateOne({ _id: user._id }, { $set: { email_verified_at: now } });
  return { verified: true, email: link.email };
}

/** The same work for any address: one lookup; the link is stored and mailed in the background (or nothing is). */
export async function forgotPassword(deps: PeopleDeps, email: string, now = new Date()): Promise<{ status: 'reset_sent' }> {
  const user = await own(deps)
    .User.findOne({ email: normalizeEmail(email) })
    .lean<UserRow>();
  if (user) await sendPasswordReset(deps, user, now);
  return { status: 'reset_sent' };
}

/** A new password from a mailed link: it proves the address too, and ends every session. */
export async function resetPassword(deps: PeopleDeps, input: InputOf<typeof RESET_PASSWORD_INPUT>, origin: RequestOrigin, now = new Date()) {
  // The new password is checked before the link is used: a refused one leaves the link working.
  const context = await resetLinkContext(deps, input.token, now);
  if (context) await assertPasswordAllowed(input.password, context);
  const link = await useLink(deps, input.token, 'reset_password', now);
  const user = await own(deps).User.findById(link.user_id).lean<UserRow>();
  if (!user || endedByPasswordChange(link, user)) throw linkInvalid();
  await own(deps).User.updateOne(
    { _id: user._id },
    { $set: { password_hash: await hashPassword(input.password), password_changed_at: now, email_verified_at: user.email_verified_at ?? now } },
  );
  // Every other reset link, and a confirmation link still out, ends with the new password.
  await endPasswordLinks(deps, user._id);
  await endSessions(deps, user._id);
  await recordForPerson(deps, user, 'password_reset', origin);
  return { reset: true };
}

/** Changes the password (the current one given): every other session ends. */
export async function changePassword(
  deps: PeopleDeps & SigninGuardDeps,
  ctx: SessionContext,
  input: InputOf<typeof CHANGE_PASSWORD_INPUT>,
  origin: RequestOrigin,
  now = new Date(),
) {
  await checkPassword(deps, ctx.user, input.current_password, origin, now, { password_change: true });
  await assertPasswordAllowed(input.new_password, await personContext(deps, ctx.user), 'new_password');
  await own(deps).User.updateOne({ _id: ctx.user._id }, { $set: { password_hash: await hashPassword(input.new_password), password_changed_at: now } });
  await endPasswordLinks(deps, ctx.user._id);
  const ended = await endSessions(deps, ctx.user._id, ctx.session._id);
  await recordForPerson(deps, ctx.user, 'password_changed', origin, { other_sessions_ended: ended });
  return { changed: true, other_sessions_ended: ended };
}
