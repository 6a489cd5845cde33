/**
 * Credential secrets: random (32 bytes), prefixed by kind, stored only as SHA-256, compared in
 * constant time. Framework-free.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyKind, CredentialType } from './data/credential.schema';

export const TOKEN_PREFIX: Record<Exclude<CredentialType, 'api_key'>, string> = {
  reporting_token: 'rpt',
  offers_credential: 'ofr',
  portal_token: 'ptl',
  merchant_token: 'mrc',
  operator_token: 'opr',
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

const KIND_PREFIX = /^(read_only|live|demo|test|sandbox|rpt|ofr|ptl|mrc|opr)_/;

/**
 * A short, non-secret prefix to show in listings: the kind and the first 6 random characters.
 * (The random part is base64url and may itself contain '_', so the kind is matched, not cut.)
 */
export function displayPrefix(secret: string): string {
  const head = KIND_PREFIX.exec(secret)?.[0] ?? '';
  return `${head}${secret.slice(head.length, head.length + 6)}…`;
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
