/**
 * The unsubscribe link's token: names one person and one kind, signed (HMAC-SHA256) under a key
 * derived from the key ring (HKDF, its own label, so it signs nothing else), never stored. The
 * signing key's id travels in the token, so rotating SECRET_KEYS keeps links in mail already sent
 * working while their key stays in the ring. Form: `u1.<person>.<kind>.<key id>.<signature>`.
 * Verifying looks nothing up: a forged, altered or foreign token is refused before any read, so
 * the answer never tells whether a person exists.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { KeyRing } from '@cw/config';
import { isNotificationKind, type NotificationKind } from './kinds';

const LABEL = Buffer.from('cw notification unsubscribe v1');
const PERSON = /^usr_[A-Za-z0-9_-]{1,64}$/;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

const derived = new WeakMap<Buffer, Buffer>();
function signingKey(key: Buffer): Buffer {
  let k = derived.get(key);
  if (!k) {
    k = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), LABEL, 32));
    derived.set(key, k);
  }
  return k;
}

const mac = (key: Buffer, userId: string, kind: string, kid: string) =>
  createHmac('sha256', signingKey(key)).update(`u1.${userId}.${kind}.${kid}`).digest('base64url');

/** A token for `userId` and `kind`, under the ring's current key. */
export function unsubscribeToken(keys: KeyRing, userId: string, kind: NotificationKind): string {
  const { id, key } = keys.current;
  return `u1.${userId}.${kind}.${id}.${mac(key, userId, kind, id)}`;
}

/** The person and kind a genuine token names; null for anything else (malformed, altered, unknown key). */
export function readUnsubscribeToken(keys: KeyRing, token: unknown): { userId: string; kind: NotificationKind } | null {
  if (typeof token !== 'string' || token.length > 200) return null;
  const parts = token.split('.');
  if (parts.length !== 5 || parts[0] !== 'u1') return null;
  const [, userId, kind, kid, signature] = parts as [string, string, string, string, string];
  if (!PERSON.test(userId) || !isNotificationKind(kind) || !KEY_ID.test(kid) || !SIGNATURE.test(signature)) return null;
  const key = keys.byId(kid);
  if (!key) return null;
  const expected = Buffer.from(mac(key, userId, kind, kid));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given) ? { userId, kind } : null;
}
