export { displayPrefix, generateSecret, hashesEqual, hashSecret, looksLikeSecret, TOKEN_PREFIX } from './secrets';
export { issueCredential, notAuthenticated, revokeCredential, rotateCredential, verifyCredential } from './credentials.service';
export type { IssuedCredential, Principal } from './credentials.service';
export { authenticate, presentedSecret } from './auth.middleware';
export type { AuthOptions } from './auth.middleware';
