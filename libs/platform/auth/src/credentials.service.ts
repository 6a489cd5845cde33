import { ApiError } from '@cw/errors';
import { authModels, type AuthData } from './data/auth.data';
import type { ApiKeyKind, CredentialType, MemberRole } from './data/credential.schema';
import type { PublisherDoc } from './data/publisher.schema';
import { displayPrefix, generateSecret, hashesEqual, hashSecret, looksLikeSecret, secretPrefix } from './secrets';

/** How a caller authenticated: a stored credential of a kind, a person's portal session, or an app's OAuth access token. */
export type PrincipalType = CredentialType | 'portal_session' | 'oauth_token';

/** The scopes people grant apps (DESIGN.md "People"); a use case's policy names the one it needs. */
export type OAuthScope = 'affiliate:read' | 'catalog:read' | 'links:write' | 'reports:read' | 'postbacks:read' | 'payouts:write';

/** An app acting for a person in one account, by an access token of theirs. */
export interface OAuthActor {
  clientId: string;
  grantId: string;
  scopes: readonly string[];
  /** When the token expires (ms since the epoch). */
  expiresAt: number;
  /** The protected resource metadata URL of the resource the token is for (RFC 9728), for challenges. */
  resourceMetadata: string;
}

/** The person behind a portal session, and the request they made (for the security log). */
export interface PersonActor {
  userId: string;
  email: string;
  role: MemberRole;
  sessionId: string;
  /** The client's network (/24, /48) as a keyed hash (`net_…`), and the address hashed whole: neither in the clear. */
  address?: string;
  addressHash?: string;
  userAgent?: string;
  requestId?: string;
  /** Until when the person's password counts as given again (sensitive changes need it). */
  reauthenticatedUntil?: Date;
}

export interface Principal {
  publisher: PublisherDoc & { _id: string };
  /** The credential's id; for a portal session, the session's. */
  credentialId: string;
  /** Display prefix of the credential (never the secret); `session` for a portal session. */
  prefix: string;
  type: PrincipalType;
  keyKind?: ApiKeyKind;
  /** A portal session, or an app's token: the person acting (for a token, who granted it), with their role in this account. */
  person?: PersonActor;
  /** Set only for an access token: the app, its grant and the scopes granted. */
  oauth?: OAuthActor;
}

/** The one 401: it never says whether the key was missing, unknown, revoked or the account inactive. */
export function notAuthenticated(): ApiError {
  return new ApiError({ code: 'not_authenticated', detail: 'Authentication credentials were not provided or are not valid.' });
}

/**
 * Resolves a presented secret to its active credential and active account, reading both on
 * every call so that revocation and deactivation apply to the very next request.
 */
export async function verifyCredential(auth: AuthData, secret: string | undefined, allowed: readonly CredentialType[]): Promise<Principal> {
  if (!secret || !looksLikeSecret(secret)) throw notAuthenticated();
  return verifyHashedCredential(auth, hashSecret(secret), allowed);
}

/** verifyCredential for a secret already hashed. */
export async function verifyHashedCredential(auth: AuthData, hash: string, allowed: readonly CredentialType[]): Promise<Principal> {
  const cred = await authModels(auth).Credential.findOne({ hash }).lean();
  if (!cred || !hashesEqual(cred.hash, hash) || cred.status !== 'active' || !allowed.includes(cred.type) || !cred.publisher_id) throw notAuthenticated();
  const publisher = await authModels(auth).Publisher.findById(cred.publisher_id).lean();
  if (!publisher || publisher.status !== 'active') throw notAuthenticated();
  auth.noteCredentialUse(String(cred._id));
  return {
    publisher: publisher as Principal['publisher'],
    credentialId: String(cred._id),
    prefix: cred.prefix,
    type: cred.type,
    keyKind: cred.key_kind ?? undefined,
  };
}

/** A merchant reporting and changing its conversions (merchant tokens, `mrc_…`). */
export interface MerchantPrincipal {
  merchantId: number;
  credentialId: string;
  prefix: string;
}

/** Resolves a merchant token; the same indistinguishable 401 for anything else. */
export async function verifyMerchantToken(auth: AuthData, secret: string | undefined): Promise<MerchantPrincipal> {
  if (!secret || !looksLikeSecret(secret)) throw notAuthenticated();
  const hash = hashSecret(secret);
  const cred = await authModels(auth).Credential.findOne({ hash }).lean();
  if (!cred || !hashesEqual(cred.hash, hash) || cred.status !== 'active' || cred.type !== 'merchant_token' || typeof cred.merchant_id !== 'number')
    throw notAuthenticated();
  auth.noteCredentialUse(String(cred._id));
  return { merchantId: cred.merchant_id, credentialId: String(cred._id), prefix: cred.prefix };
}

/** Issues a merchant token (shown once; only its hash is stored). */
export async function issueMerchantToken(auth: AuthData, merchantId: number, label?: string, createdBy = 'operator'): Promise<IssuedCredential> {
  const secret = generateSecret(secretPrefix('merchant_token'));
  const doc = await authModels(auth).Credential.create({
    type: 'merchant_token',
    merchant_id: merchantId,
    hash: hashSecret(secret),
    prefix: displayPrefix(secret),
    label,
    created_by: createdBy,
  });
  return { id: String(doc._id), secret, prefix: doc.prefix, type: 'merchant_token' };
}

export interface IssuedCredential {
  id: string;
  secret: string;
  prefix: string;
  type: CredentialType;
  keyKind?: ApiKeyKind;
}

/** Issues a credential; the secret is returned once and only its hash is stored. */
export async function issueCredential(
  auth: AuthData,
  publisherId: string,
  type: CredentialType,
  keyKind?: ApiKeyKind,
  label?: string,
  createdBy = 'operator',
): Promise<IssuedCredential> {
  if (type === 'api_key' && !keyKind) throw new Error('an API key needs a kind');
  const secret = generateSecret(secretPrefix(type, keyKind));
  const doc = await authModels(auth).Credential.create({
    type,
    key_kind: type === 'api_key' ? keyKind : undefined,
    publisher_id: publisherId,
    hash: hashSecret(secret),
    prefix: displayPrefix(secret),
    label,
    created_by: createdBy,
  });
  return { id: String(doc._id), secret, prefix: doc.prefix, type, keyKind };
}

export async function revokeCredential(auth: AuthData, credentialId: string): Promise<boolean> {
  const r = await authModels(auth).Credential.updateOne({ _id: credentialId, status: 'active' }, { $set: { status: 'revoked', revoked_at: new Date() } });
  return r.modifiedCount === 1;
}

/**
 * Rotation: a new secret of the same kind for the same account (so the account's rate budget is
 * unchanged), and the old one revoked at once. Reporting tokens rotate the same way.
 */
export async function rotateCredential(auth: AuthData, credentialId: string, createdBy = 'operator'): Promise<IssuedCredential> {
  const old = await authModels(auth).Credential.findById(credentialId).lean();
  if (!old || old.status !== 'active') throw new Error(`no active credential ${credentialId}`);
  if (old.type === 'operator_token') throw new Error('an operator token is not rotated: issue a new one (operator:issue) and revoke this one');
  const issued =
    old.type === 'merchant_token'
      ? await issueMerchantToken(auth, old.merchant_id!, old.label ?? undefined, createdBy)
      : await issueCredential(auth, old.publisher_id!, old.type, old.key_kind ?? undefined, old.label ?? undefined, createdBy);
  await revokeCredential(auth, credentialId);
  return issued;
}
