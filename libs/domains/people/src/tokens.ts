import { createHash, randomBytes } from 'node:crypto';

/** A random token for a cookie or a mailed link (32 bytes), and the SHA-256 under which it is stored. */
export const newToken = (): string => randomBytes(32).toString('base64url');
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');
export const publicId = (prefix: string): string => `${prefix}_${randomBytes(9).toString('base64url')}`;
/** E-mail addresses compare without case or surrounding space. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
