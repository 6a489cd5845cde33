/**
 * Attribution tokens for purchases an AI agent makes (the Agentic Commerce Protocol's
 * `affiliate_attribution`): what a click id is to a browser, a token is to an agent. The platform
 * signs one per product it shows an agent; the merchant passes it back with the order; the sale is
 * credited to the publisher, program and sub-ID the token names, once (the first order spends it).
 *
 * Layout (base64url after `atp_`): version (1 byte) | expiry, Unix seconds (4) | merchant id (4) |
 * program id (4) | nonce (12) | publisher id, product id, sub-ID (each a length byte and its
 * bytes, ASCII) | HMAC-SHA256 of everything before it, truncated to 16 bytes, under a key derived
 * for this purpose only from the key ring's current key. Any key of the ring verifies (a token
 * issued before a rotation still converts until it expires). Nothing in it is secret (the
 * merchant may read who it names); what matters is that nobody but the platform can make one,
 * and that its nonce is spent once (`attribution_spends`, in @cw/conversions).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyRing } from '@cw/config';

const VERSION = 1;
const HEADER = 25;
const NONCE_BYTES = 12;
const MAC_BYTES = 16;
/** How long an agent may take from showing a product to the order (docs/decisions/0057-codes-and-agent-tokens.md). */
export const ATTRIBUTION_TOKEN_TTL_MS = 7 * 86_400_000;
/**
 * How long after its expiry a token may still be presented, for a sale made while it was valid (a
 * merchant's late report). Its spend is kept exactly as long (`attribution_spends` TTL): a token
 * presented later could no longer be told spent, so it is refused whatever the sale's date.
 */
export const ATTRIBUTION_TOKEN_LATE_REPORT_MS = 30 * 86_400_000;
/** How far a merchant's order time may lie before the token's issue (clocks apart, seconds in the token). */
export const ATTRIBUTION_TOKEN_CLOCK_SKEW_MS = 5 * 60_000;
/** The wire form: `atp_` and the base64url of at most 25 + 3 * 101 + 16 bytes. */
export const ATTRIBUTION_TOKEN_PATTERN = '^atp_[A-Za-z0-9_-]{40,460}$';
const ASCII_FIELD = /^[\x21-\x7e]{0,100}$/;

/** What an attribution token names. */
export interface AttributionClaims {
  /** The audience: the merchant (campaign) whose checkout may spend it. */
  merchantId: number;
  programId: number;
  publisherId: string;
  productId: string;
  subid: string;
  /** Unique per token: the key its spending is written under. */
  nonce: string;
  expiresAt: Date;
}

const derived = new WeakMap<Buffer, Buffer>();

function tokenKey(secret: Buffer): Buffer {
  let key = derived.get(secret);
  if (!key) derived.set(secret, (key = createHmac('sha256', secret).update('attribution-token/v1').digest()));
  return key;
}

const mac = (secret: Buffer, body: Buffer): Buffer => createHmac('sha256', tokenKey(secret)).update(body).digest().subarray(0, MAC_BYTES);

/** Signs a token under the ring's current key; `nonce` is random unless given (tests). */
export function signAttributionToken(
  keys: KeyRing,
  claims: Omit<AttributionClaims, 'nonce' | 'expiresAt'> & { nonce?: Buffer; expiresAt?: Date },
  now = Date.now(),
): string {
  const fields = [claims.publisherId, claims.productId, claims.subid];
  for (const f of fields) if (!ASCII_FIELD.test(f)) throw new Error('attribution token fields are printable ASCII, at most 100 characters');
  const expires = claims.expiresAt ?? new Date(now + ATTRIBUTION_TOKEN_TTL_MS);
  const body = Buffer.allocUnsafe(HEADER + fields.reduce((n, f) => n + 1 + f.length, 0));
  body[0] = VERSION;
  body.writeUInt32BE(Math.floor(expires.getTime() / 1000), 1);
  body.writeUInt32BE(claims.merchantId, 5);
  body.writeUInt32BE(claims.programId, 9);
  (claims.nonce ?? randomBytes(NONCE_BYTES)).copy(body, 13, 0, NONCE_BYTES);
  let at = HEADER;
  for (const f of fields) {
    body[at] = f.length;
    body.write(f, at + 1, 'latin1');
    at += 1 + f.length;
  }
  return `atp_${Buffer.concat([body, mac(keys.current.key, body)]).toString('base64url')}`;
}

/**
 * The claims of a token signed under a key of the ring, or undefined for anything else
 * (malformed, tampered, signed by someone else). Expiry and audience are the caller's to judge.
 */
export function readAttributionToken(keys: KeyRing, token: string): AttributionClaims | undefined {
  if (typeof token !== 'string' || !token.startsWith('atp_') || token.length > 464) return undefined;
  const raw = Buffer.from(token.slice(4), 'base64url');
  // One encoding only: a token re-encoded (padding, the other alphabet, spare bits) is another string.
  if (raw.length < HEADER + 3 + MAC_BYTES || raw[0] !== VERSION || raw.toString('base64url') !== token.slice(4)) return undefined;
  const body = raw.subarray(0, raw.length - MAC_BYTES);
  const given = raw.subarray(raw.length - MAC_BYTES);
  if (!keys.all.some((k) => timingSafeEqual(given, mac(k.key, body)))) return undefined;
  const fields: string[] = [];
  let at = HEADER;
  for (let i = 0; i < 3; i++) {
    const n = body[at];
    if (n === undefined || at + 1 + n > body.length) return undefined;
    fields.push(body.toString('latin1', at + 1, at + 1 + n));
    at += 1 + n;
  }
  if (at !== body.length) return undefined;
  return {
    expiresAt: new Date(body.readUInt32BE(1) * 1000),
    merchantId: body.readUInt32BE(5),
    programId: body.readUInt32BE(9),
    nonce: body.toString('base64url', 13, 13 + NONCE_BYTES),
    publisherId: fields[0]!,
    productId: fields[1]!,
    subid: fields[2]!,
  };
}

/**
 * When a token was issued: its expiry less the fixed lifetime (every token is signed for
 * `ATTRIBUTION_TOKEN_TTL_MS`; a changed lifetime needs a new token version carrying it).
 */
export const issuedAtOf = (claims: Pick<AttributionClaims, 'expiresAt'>): Date => new Date(claims.expiresAt.getTime() - ATTRIBUTION_TOKEN_TTL_MS);

/**
 * Why a token cannot credit a sale made at `saleAt` and reported at `presentedAt`, or undefined:
 * `before_issue` (the order is dated before the token existed, beyond the clock skew: a backdated
 * order), `expired` (the sale came after its expiry), `late` (presented more than
 * `ATTRIBUTION_TOKEN_LATE_REPORT_MS` after its expiry, whatever the sale's date: its spend is gone).
 * Decision 0057.
 */
export function tokenTimeProblem(
  claims: Pick<AttributionClaims, 'expiresAt'>,
  saleAt: Date,
  presentedAt: Date,
): 'before_issue' | 'expired' | 'late' | undefined {
  const expires = claims.expiresAt.getTime();
  if (presentedAt.getTime() > expires + ATTRIBUTION_TOKEN_LATE_REPORT_MS) return 'late';
  if (saleAt.getTime() > expires) return 'expired';
  if (saleAt.getTime() < issuedAtOf(claims).getTime() - ATTRIBUTION_TOKEN_CLOCK_SKEW_MS) return 'before_issue';
  return undefined;
}

/** The ACP `affiliate_attribution` object of one product shown to an agent. */
export interface AffiliateAttribution {
  provider: string;
  token: string;
  publisher_id: string;
  campaign_id: number;
  expires_at: string;
}

/** The `affiliate_attribution` object for a product: `provider` is the portal's host. */
export function affiliateAttribution(
  keys: KeyRing,
  portalUrl: string,
  claims: Omit<AttributionClaims, 'nonce' | 'expiresAt'>,
  now = Date.now(),
): AffiliateAttribution {
  const expiresAt = new Date(Math.floor((now + ATTRIBUTION_TOKEN_TTL_MS) / 1000) * 1000);
  return {
    provider: new URL(portalUrl).host,
    token: signAttributionToken(keys, { ...claims, expiresAt }, now),
    publisher_id: claims.publisherId,
    campaign_id: claims.merchantId,
    expires_at: expiresAt.toISOString(),
  };
}
