/**
 * A payout method at rest: sealed with the platform's key ring (AES-256-GCM, `seal` of
 * @cw/config, as postback secrets are) beside what may be shown and searched: its type, masked
 * face (`last4`), country and currency, and a fingerprint of the account. Only the rails open it.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import { BASE_KEY_ID, open, seal, type KeyRing, type SealedSecret } from '@cw/config';
import { clearFields, guarded, maskOf, type MaskedPayoutMethod, type PayoutMethod } from './payout-method';
import type { PayoutMethodType } from './payout-method.schemas';

export interface StoredPayoutMethod {
  type: PayoutMethodType;
  /** See `MaskedPayoutMethod.last4`. */
  last4: string;
  country?: string;
  currency?: string;
  /** Hex HMAC-SHA256 of the account's identity: equal for the same account, whoever set it. */
  fingerprint: string;
  sealed: SealedSecret;
}

const FINGERPRINT_INFO = 'payout-method-fingerprint/v1';
const fingerprintKeys = new WeakMap<KeyRing, Buffer>();

/**
 * The fingerprint's key: HKDF-SHA256 of the ring's base key, which never changes (SECRET_KEYS
 * rotate; a fingerprint must stay equal across rotations to find the same account again).
 */
function fingerprintKey(keys: KeyRing): Buffer {
  let key = fingerprintKeys.get(keys);
  if (!key) {
    const base = keys.byId(BASE_KEY_ID);
    if (!base) throw new Error('the key ring has no base key');
    key = Buffer.from(hkdfSync('sha256', base, Buffer.alloc(0), FINGERPRINT_INFO, 32));
    fingerprintKeys.set(keys, key);
  }
  return key;
}

/** What makes two methods the same account: the IBAN, routing + account number, the PayPal address in lower case. */
function accountIdentity(method: PayoutMethod): string {
  switch (method.type) {
    case 'iban':
      return `iban:${method.iban}`;
    case 'ach':
      return `ach:${method.routing_number}:${method.account_number}`;
    case 'paypal':
      return `paypal:${method.email.toLowerCase()}`;
  }
}

/** A keyed hash of the account, to find the same account on two publishers without opening either. */
export function payoutMethodFingerprint(keys: KeyRing, method: PayoutMethod): string {
  return createHmac('sha256', fingerprintKey(keys)).update(accountIdentity(method)).digest('hex');
}

export function sealPayoutMethod(keys: KeyRing, method: PayoutMethod): StoredPayoutMethod {
  const stored: StoredPayoutMethod = {
    type: method.type,
    last4: maskOf(method).last4,
    fingerprint: payoutMethodFingerprint(keys, method),
    sealed: seal(keys, JSON.stringify(clearFields(method))),
  };
  if ('country' in method) stored.country = method.country;
  if ('currency' in method && method.currency) stored.currency = method.currency;
  return stored;
}

/**
 * The method in the clear, for the rails only (a bank file, a PayPal batch). Throws when the seal
 * was altered, its key is not in the ring, or what it holds is not the stored method's account.
 */
export function openPayoutMethod(keys: KeyRing, stored: StoredPayoutMethod): PayoutMethod {
  const method = JSON.parse(open(keys, stored.sealed)) as PayoutMethod;
  if (method.type !== stored.type || payoutMethodFingerprint(keys, method) !== stored.fingerprint)
    throw new Error('the sealed payout method does not match its stored type and fingerprint');
  return guarded(method);
}

/** What an answer, a page or a statement shows of a stored method. */
export function maskedMethod(stored: Pick<StoredPayoutMethod, 'type' | 'last4'>): MaskedPayoutMethod {
  return { type: stored.type, last4: stored.last4 };
}
