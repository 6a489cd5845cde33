/**
 * Which new passwords are refused (ASVS 2.1.7, NIST SP 800-63B 5.1.1.2), besides the length the
 * schema checks: passwords on a list of the most common ones in breaches (the list
 * @zxcvbn-ts/language-common ships, about 49,000, loaded once, on first use), the same with
 * digits or symbols around it or letters swapped for look-alikes (`P@ssw0rd2024!`), repeated or
 * sequential patterns, and context-specific words: the person's e-mail address (or its name part),
 * their name, the account's name. Sign-up, password reset, password change and accepting an
 * invitation ask; each answers 400 `invalid_parameter` naming its password field with the reason.
 */
import { errors } from '@cw/errors';
import type { UserRow } from './data/people.data';
import type { MailTokenDoc } from './data/people.schemas.data';
import { own, type PeopleDeps } from './deps';
import { accountsOf } from './sessions.service';
import { tokenHash } from './tokens';

/** What is known about whose password it is (any part may be missing). */
export interface PasswordContext {
  email?: string | null;
  /** The person's name. */
  name?: string | null;
  /** Names of the accounts the person is joining or belongs to. */
  accountNames?: Array<string | null | undefined>;
}

export const PASSWORD_PROBLEMS = {
  common: 'is too common (it is on the lists of passwords attackers try first): choose another, a few unrelated words work well',
  pattern: 'is too easy to guess (a repeated or sequential pattern): choose another',
  email: 'must not contain your e-mail address',
  name: 'must not contain your name',
  account: "must not contain the account's name",
} as const;

/** Words shorter than this are not looked for inside a password (they would refuse too much). */
const MIN_CONTEXT_WORD = 4;

let common: Promise<ReadonlySet<string>> | undefined;

/** The common-password list, lower case, read once. */
export function commonPasswords(): Promise<ReadonlySet<string>> {
  common ??= import('@zxcvbn-ts/language-common').then(({ dictionary }) => new Set(dictionary['passwords-common'].map((p) => p.toLowerCase())));
  return common;
}

const LOOK_ALIKES: Record<string, string> = {
  '@': 'a',
  '4': 'a',
  '8': 'b',
  '3': 'e',
  '6': 'g',
  '1': 'i',
  '!': 'i',
  '0': 'o',
  $: 's',
  '5': 's',
  '7': 't',
  '2': 'z',
};
const unLeet = (s: string, one: string) => [...s].map((c) => (c === '1' ? one : (LOOK_ALIKES[c] ?? c))).join('');
/** Letters and digits only (spaces, dots, dashes dropped), for comparing names and addresses. */
const squash = (s: string) => s.replace(/[^\p{L}\p{N}]+/gu, '');
const normal = (s: string) => s.normalize('NFKC').toLowerCase().trim();

/** The forms of a password a list is looked up with: as typed, its core without digits and symbols around it, and that core's look-alikes undone. */
function candidates(p: string): string[] {
  const core = p.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
  const out = new Set([p, squash(p), core]);
  for (const c of [p, core]) for (const one of ['i', 'l']) out.add(unLeet(c, one).replace(/^[^\p{L}]+|[^\p{L}]+$/gu, ''));
  out.delete('');
  return [...out];
}

const SEQUENCES = ['abcdefghijklmnopqrstuvwxyz', '0123456789', 'qwertyuiopasdfghjklzxcvbnm', 'qwertzuiopasdfghjklyxcvbnm', 'azertyuiopqsdfghjklmwxcvbn'];

function isPattern(p: string): boolean {
  if (new Set(p).size < 4) return true;
  if (/^(.{1,8}?)\1+$/su.test(p)) return true;
  const s = squash(p);
  return s.length >= 8 && SEQUENCES.some((q) => (q + q).includes(s) || [...(q + q)].reverse().join('').includes(s));
}

/** The words of a context that a password must not contain, each squashed. */
function contextWords(ctx: PasswordContext): Array<[string, keyof typeof PASSWORD_PROBLEMS]> {
  const words: Array<[string, keyof typeof PASSWORD_PROBLEMS]> = [];
  const email = ctx.email ? normal(ctx.email) : '';
  if (email) {
    const local = email.split('@')[0] ?? '';
    words.push([squash(email), 'email'], [squash(local), 'email']);
    for (const w of local.split(/[^\p{L}\p{N}]+/u)) words.push([w, 'email']);
  }
  if (ctx.name) {
    const name = normal(ctx.name);
    words.push([squash(name), 'name']);
    for (const w of name.split(/[^\p{L}\p{N}]+/u)) words.push([w, 'name']);
  }
  for (const a of ctx.accountNames ?? []) if (a) words.push([squash(normal(a)), 'account']);
  return words.filter(([w]) => w.length >= MIN_CONTEXT_WORD);
}

/** Why a new password is refused (the words the form shows under its field), or null when it may be used. */
export async function passwordProblem(password: string, ctx: PasswordContext = {}): Promise<string | null> {
  const p = normal(password);
  const squashed = squash(p);
  for (const [word, kind] of contextWords(ctx)) if (p.includes(word) || squashed.includes(word)) return PASSWORD_PROBLEMS[kind];
  if (isPattern(p)) return PASSWORD_PROBLEMS.pattern;
  const list = await commonPasswords();
  if (candidates(p).some((c) => list.has(c))) return PASSWORD_PROBLEMS.common;
  return null;
}

/** 400 `invalid_parameter` naming `param` when the new password is refused. */
export async function assertPasswordAllowed(password: string, ctx: PasswordContext, param = 'password'): Promise<void> {
  const problem = await passwordProblem(password, ctx);
  if (problem) throw errors.invalidParameter(param, problem);
}

/** What a person's new password must not contain: their address, their name, their accounts' names. */
export async function personContext(deps: Pick<PeopleDeps, 'data'>, user: Pick<UserRow, '_id' | 'email' | 'name'>): Promise<PasswordContext> {
  return { email: user.email, name: user.name, accountNames: (await accountsOf(deps, user._id)).map((a) => a.name) };
}

/** The context of a password reset link that is still valid (read, not used: a refused password leaves it usable), or null. */
export async function resetLinkContext(deps: Pick<PeopleDeps, 'data'>, token: string, now = new Date()): Promise<PasswordContext | null> {
  const link = await own(deps)
    .MailToken.findOne({ _id: tokenHash(token), kind: 'reset_password' })
    .lean<MailTokenDoc>();
  if (!link || link.expires_at <= now || !link.user_id) return null;
  const user = await own(deps).User.findById(link.user_id).lean<UserRow>();
  return user ? personContext(deps, user) : null;
}
