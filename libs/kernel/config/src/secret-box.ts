/**
 * Secrets that must be readable again (postback signing secrets, payout methods): AES-256-GCM
 * under the key ring's current key, whose id is kept beside them, so any key of the ring opens
 * what it sealed (a seal without an id is the base key's, from before keys rotated). Beside the
 * ring because every domain that keeps such a secret seals it the same way.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { BASE_KEY_ID, type KeyRing } from './key-ring';

export interface SealedSecret {
  /** The id of the ring key that sealed it (absent: the base key). */
  kid?: string;
  iv: string;
  tag: string;
  data: string;
}

export function seal(keys: KeyRing, secret: string): SealedSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keys.current.key, iv);
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return { kid: keys.current.id, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

/** Whether a sealed secret is under another key than the ring's current one (re-seal it). */
export function sealedWithOlderKey(keys: KeyRing, sealed: SealedSecret): boolean {
  return (sealed.kid ?? BASE_KEY_ID) !== keys.current.id;
}

/** Throws when its key is not in the ring, the key is wrong or the sealed value was altered. */
export function open(keys: KeyRing, sealed: SealedSecret): string {
  const key = keys.byId(sealed.kid ?? BASE_KEY_ID);
  if (!key) throw new Error(`the key ${sealed.kid} that sealed this secret is not configured (SECRET_KEYS)`);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
}
