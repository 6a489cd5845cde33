/**
 * Signed feed URLs: an HMAC-SHA256 (under a key derived from the key ring's current key, named by
 * `sk`; none: the base key, as URLs issued before keys rotated) over every parameter that changes
 * the content, the account, the expiry, the id of the API key that asked for it and `sk`.
 * Verification is constant-time; any change to a signed parameter is a mismatch; a URL stays
 * valid until it expires as long as its key is in the ring.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { BASE_KEY_ID, type KeyRing } from '@cw/config';
import { ApiError } from '@cw/errors';

export const VALIDITY_DAYS = 90;
export const RENEW_BEFORE_DAYS = 30;
export const FEED_PATH = '/api/v1/feeds/products/';

export interface SignedFeedParams {
  account: string;
  country: string;
  format: string;
  merchant_filter?: string;
  sample?: number;
  /** Unix seconds. */
  expires: number;
  /** The id of the API key the URL was issued to: revoking it stops the URL. */
  kid: string;
  /** The id of the ring key that signed it (absent: the base key). */
  sk?: string;
}

function signature(secretKey: Buffer, p: SignedFeedParams): string {
  const key = createHmac('sha256', secretKey).update('feed-url-v1').digest();
  const canonical = [
    'v1',
    p.account,
    p.country,
    p.format,
    p.merchant_filter ?? '',
    String(p.sample ?? 0),
    String(p.expires),
    p.kid,
    ...(p.sk ? [p.sk] : []),
  ].join('\n');
  return createHmac('sha256', key).update(canonical).digest('base64url');
}

export function signedFeedUrl(feedUrl: string, keys: KeyRing, params: Omit<SignedFeedParams, 'sk'>): string {
  const p: SignedFeedParams = { ...params, ...(keys.current.id !== BASE_KEY_ID ? { sk: keys.current.id } : {}) };
  const q = new URLSearchParams({ account: p.account, country: p.country, format: p.format });
  if (p.merchant_filter) q.set('merchant_filter', p.merchant_filter);
  if (p.sample) q.set('sample', String(p.sample));
  q.set('expires', String(p.expires));
  q.set('kid', p.kid);
  if (p.sk) q.set('sk', p.sk);
  q.set('sig', signature(keys.current.key, p));
  return `${feedUrl}${FEED_PATH}?${q}`;
}

/** Throws 403 feed_url_invalid for a changed URL, 403 feed_url_expired after its expiry. */
export function verifyFeedSignature(keys: KeyRing, p: SignedFeedParams, sig: string, now = Date.now()): void {
  const key = keys.byId(p.sk ?? BASE_KEY_ID);
  const expected = Buffer.from(key ? signature(key, p) : '');
  const given = Buffer.from(sig);
  if (!key || expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw new ApiError({
      code: 'feed_url_invalid',
      detail: 'This feed URL is not valid: it was changed or not issued by the platform. Request a new one from /api/v1/affiliates/feed/.',
    });
  }
  if (p.expires * 1000 <= now) {
    throw new ApiError({
      code: 'feed_url_expired',
      detail: 'This feed URL has expired. Request a new one from /api/v1/affiliates/feed/ (renew before renew_after).',
    });
  }
}
