export { displayPrefix, generateSecret, hashesEqual, hashSecret, looksLikeSecret, TOKEN_PREFIX } from './secrets';
export {
  issueCredential,
  issueMerchantToken,
  notAuthenticated,
  revokeCredential,
  rotateCredential,
  verifyCredential,
  verifyHashedCredential,
  verifyMerchantToken,
} from './credentials.service';
export type { IssuedCredential, MerchantPrincipal, OAuthActor, OAuthScope, PersonActor, Principal, PrincipalType } from './credentials.service';
export { API_KEYS_ONLY, authorize, authorizeOnce, OWNERS, WRITERS } from './policy';
export { authorizeOperator, issueOperatorToken, operatorRoleCovers, operatorTokensExist, verifyOperatorToken } from './operator';
export type { IssuedOperatorToken, OperatorPrincipal } from './operator';
export type { Policy } from './policy';
export { callerUnder, merchantOf, policyOf, presentedSecret, principalOf, requireMerchant, requirePolicy } from './auth.middleware';
export type { PolicyDeps } from './auth.middleware';
export { AccessCache, PRINCIPALS_CACHE, PrincipalMemo } from './access-cache';
export type { AccessCacheOptions, OAuthResource, TokenAuthority, VerifiedToken } from './access-cache';
export { bumpOnAccessChange, MemoryAccessVersions, RedisAccessVersions } from './access-versions';
export type { AccessVersions } from './access-versions';
export { AuthData, authDomain } from './data/auth.data';
export type { CredentialRow, PublisherInput, PublisherRow } from './data/auth.data';
export { API_KEY_KINDS, CREDENTIAL_TYPES, MEMBER_ROLES, OPERATOR_ROLES } from './data/credential.schema';
export type { ApiKeyKind, CredentialDoc, CredentialType, CredentialUseDoc, MemberRole, OperatorRole } from './data/credential.schema';
export { PUBLISHER_CHANNELS } from './data/publisher.schema';
export type { PublisherDoc } from './data/publisher.schema';
