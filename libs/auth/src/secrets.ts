/**
 * Credential secrets: random (32 bytes), prefixed by kind, stored only as SHA-256, compared in
 * constant time. Framework-free.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyKind, CredentialType } from '@cw/db';

export const TOKEN_PREFIX: Record<Exclude<CredentialType, 'api_key'>, string> = {
  reporting_token: 'rpt',
  offers_credential: 'ofr',
  portal_token: 'ptl',
};

export function generateSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function secretPrefix(type: CredentialType, keyKind?: ApiKeyKind): string {
  return type === 'api_key' ? keyKind! : TOKEN_PREFIX[type];
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** A short, non-secret prefix to show in listings (kind and first characters). */
export function displayPrefix(secret: string): string {
  const cut = secret.lastIndexOf('_');
  return `${secret.slice(0, cut + 1)}${secret.slice(cut + 1, cut + 7)}…`;
}

export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Plausible secret shape: bounded length and charset, checked before any database read. */
export function looksLikeSecret(s: string): boolean {
  return s.length >= 20 && s.length <= 200 && /^[A-Za-z0-9_-]+$/.test(s);
}
