export { displayPrefix, generateSecret, hashesEqual, hashSecret, looksLikeSecret, TOKEN_PREFIX } from './secrets';
export { issueCredential, notAuthenticated, revokeCredential, rotateCredential, verifyCredential } from './credentials.service';
export type { IssuedCredential, Principal } from './credentials.service';
export { API_KEYS_ONLY, authorize } from './policy';
export type { Policy } from './policy';
export { presentedSecret, principalOf, requirePolicy } from './auth.middleware';
export type { PolicyDeps } from './auth.middleware';
