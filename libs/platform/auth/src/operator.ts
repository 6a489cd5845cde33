/**
 * Operators: the people who run the network (approve accounts and claims, revoke keys, redeliver
 * postbacks). They act on any account, never as one: an operator principal carries no publisher,
 * and a use case for operators names the operator role it needs in its policy (`operator`).
 * Least privilege: `support` reads, `admin` acts (and reads).
 */
import { ApiError } from '@cw/errors';
import { authModels, type AuthData } from './data/auth.data';
import type { OperatorRole } from './data/credential.schema';
import type { Policy } from './policy';
import { displayPrefix, generateSecret, hashesEqual, hashSecret, looksLikeSecret, TOKEN_PREFIX } from './secrets';
import { notAuthenticated } from './credentials.service';

/** An operator acting: by an operator token (production), or the local platform's operator (the CLI on `npm start`). */
export interface OperatorPrincipal {
  type: 'operator';
  email: string;
  role: OperatorRole;
  /** The operator token's id and display prefix; absent for the local operator. */
  credentialId?: string;
  prefix?: string;
  /** The request (or CLI run) the act belongs to, for the audit log. */
  requestId?: string;
  /** The client address hashed whole (never stored in the clear), when the act came over HTTP. */
  addressHash?: string;
}

/** Whether a role covers what a policy needs: admin covers support. */
export function operatorRoleCovers(role: OperatorRole, needed: OperatorRole): boolean {
  return role === 'admin' || needed === 'support';
}

/** Throws the 403 the policy gives this operator, or returns when they may proceed. */
export function authorizeOperator(principal: OperatorPrincipal, policy: Policy): void {
  if (principal.type !== 'operator') throw new ApiError({ code: 'forbidden', detail: 'Only an operator can do this.' });
  if (!policy.operator) throw new ApiError({ code: 'forbidden', detail: 'This is not an operator act: it is done by the account itself.' });
  if (!operatorRoleCovers(principal.role, policy.operator))
    throw new ApiError({
      code: 'role_not_allowed',
      detail: `Your operator role (${principal.role}) cannot do this; it needs ${policy.operator}. Ask an admin operator.`,
    });
}

export interface IssuedOperatorToken {
  id: string;
  secret: string;
  prefix: string;
  email: string;
  role: OperatorRole;
}

/** Issues an operator token (`opr_…`, shown once; only its hash is stored). It belongs to no account. */
export async function issueOperatorToken(auth: AuthData, email: string, role: OperatorRole, createdBy: string): Promise<IssuedOperatorToken> {
  const secret = generateSecret(TOKEN_PREFIX.operator_token);
  const doc = await authModels(auth).Credential.create({
    type: 'operator_token',
    operator_email: email,
    operator_role: role,
    hash: hashSecret(secret),
    prefix: displayPrefix(secret),
    label: email,
    created_by: createdBy,
  });
  return { id: String(doc._id), secret, prefix: doc.prefix, email, role };
}

/** Resolves an operator token to its operator; the one indistinguishable 401 for anything else. */
export async function verifyOperatorToken(auth: AuthData, secret: string | undefined): Promise<OperatorPrincipal> {
  if (!secret || !looksLikeSecret(secret)) throw notAuthenticated();
  const hash = hashSecret(secret);
  const cred = await authModels(auth).Credential.findOne({ hash }).lean();
  if (!cred || !hashesEqual(cred.hash, hash) || cred.status !== 'active' || cred.type !== 'operator_token' || !cred.operator_email || !cred.operator_role)
    throw notAuthenticated();
  auth.noteCredentialUse(String(cred._id));
  return { type: 'operator', email: cred.operator_email, role: cred.operator_role, credentialId: String(cred._id), prefix: cred.prefix };
}

/** Whether any operator token is active (until one is, the first is issued by whoever holds the database). */
export async function operatorTokensExist(auth: AuthData): Promise<boolean> {
  return (await authModels(auth).Credential.countDocuments({ type: 'operator_token', status: 'active' }).limit(1)) > 0;
}
