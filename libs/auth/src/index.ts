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
export type { IssuedCredential, MerchantPrincipal, Principal } from './credentials.service';
export { API_KEYS_ONLY, authorize } from './policy';
export type { Policy } from './policy';
export { callerUnder, merchantOf, presentedSecret, principalOf, requireMerchant, requirePolicy } from './auth.middleware';
export type { PolicyDeps } from './auth.middleware';
export { AccessCache, memoized } from './access-cache';
export type { AccessCacheOptions } from './access-cache';
export { bumpOnAccessChange, MemoryAccessVersions, RedisAccessVersions } from './access-versions';
export type { AccessVersions } from './access-versions';
