/**
 * Postback signatures as the platform makes them (Standard Webhooks with this API's header
 * names): `X-CW-Signature: v1,<base64 HMAC-SHA256 of "{X-CW-Delivery}.{X-CW-Timestamp}.{body}">`,
 * keyed by the bytes after `whsec_`; during a secret rotation several space-separated signatures.
 * Web Crypto only, so it runs wherever fetch does (Node, Deno, Bun, edge workers).
 */
import type { AccountEvent } from './types.js';

export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

export type PostbackFailure = 'missing_header' | 'invalid_timestamp' | 'timestamp_outside_tolerance' | 'no_matching_signature' | 'no_secret' | 'invalid_body';

/** A postback that is not verifiably the platform's (reason says why); answer it with 4xx. */
export class PostbackVerificationError extends Error {
  constructor(
    readonly reason: PostbackFailure,
    message: string,
  ) {
    super(message);
    this.name = 'PostbackVerificationError';
  }
}

export interface VerifyOptions {
  /** How far X-CW-Timestamp may be from now, either way (default 300 s). */
  toleranceSeconds?: number;
  /** The present (tests). */
  now?: Date | number;
}

const encoder = new TextEncoder();

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === lower) return Array.isArray(v) ? v.join(' ') : v;
  }
  return undefined;
}

function base64ToBytes(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

const asBytes = (body: string | Uint8Array): Uint8Array => (typeof body === 'string' ? encoder.encode(body) : body);

async function hmac(secret: string, deliveryId: string, timestamp: string, body: Uint8Array): Promise<Uint8Array> {
  const key = await globalThis.crypto.subtle.importKey('raw', base64ToBytes(secret.replace(/^whsec_/, '')), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const prefix = encoder.encode(`${deliveryId}.${timestamp}.`);
  const content = new Uint8Array(prefix.length + body.length);
  content.set(prefix);
  content.set(body, prefix.length);
  return new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', key, content));
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** The X-CW-Signature value the platform would send for this delivery, one signature per secret. */
export async function signPostback(secrets: string | string[], deliveryId: string, timestamp: number, body: string | Uint8Array): Promise<string> {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  const sigs = await Promise.all(list.map(async (s) => `v1,${bytesToBase64(await hmac(s, deliveryId, String(timestamp), asBytes(body)))}`));
  return sigs.join(' ');
}

/** A new signing secret in the platform's form (`whsec_` and 32 random bytes, base64). */
export function generatePostbackSecret(): string {
  return `whsec_${bytesToBase64(globalThis.crypto.getRandomValues(new Uint8Array(32)))}`;
}

/**
 * Checks a postback's signature without reading its body: for GET postbacks, whose signed
 * "body" is the full request URL as received. Throws PostbackVerificationError.
 */
export async function verifyPostbackSignature(
  headers: HeadersLike,
  rawBody: string | Uint8Array,
  secrets: string | string[],
  options: VerifyOptions = {},
): Promise<void> {
  const list = (typeof secrets === 'string' ? [secrets] : secrets).filter(Boolean);
  if (!list.length) throw new PostbackVerificationError('no_secret', 'No secret to verify with.');
  const deliveryId = header(headers, 'x-cw-delivery');
  const timestamp = header(headers, 'x-cw-timestamp');
  const signature = header(headers, 'x-cw-signature');
  if (!deliveryId || !timestamp || !signature)
    throw new PostbackVerificationError('missing_header', 'X-CW-Delivery, X-CW-Timestamp and X-CW-Signature are all required.');
  if (!/^\d{1,12}$/.test(timestamp)) throw new PostbackVerificationError('invalid_timestamp', 'X-CW-Timestamp is not Unix seconds.');
  const now = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(Math.floor(now / 1000) - Number(timestamp)) > tolerance)
    throw new PostbackVerificationError('timestamp_outside_tolerance', `X-CW-Timestamp is more than ${tolerance} s from now (a replay, or a clock off).`);
  const presented = signature
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => {
      try {
        return base64ToBytes(s.slice(3));
      } catch {
        return new Uint8Array();
      }
    });
  const body = asBytes(rawBody);
  for (const secret of list) {
    const expected = await hmac(secret, deliveryId, timestamp, body);
    if (presented.some((p) => equalBytes(p, expected))) return;
  }
  throw new PostbackVerificationError('no_matching_signature', 'No signature matches any of the secrets.');
}

/**
 * Verifies a POST postback and returns its event (a sale event, or `payout.paid` / `payout.failed`
 * when the postback opted in to them: narrow on `type`). `rawBody` is the body exactly as received
 * (not re-serialized JSON); `secrets` every secret valid now (two during a rotation). Throws
 * PostbackVerificationError for a missing header, a timestamp outside the tolerance window, or
 * no matching signature.
 */
export async function verifyPostback(
  headers: HeadersLike,
  rawBody: string | Uint8Array,
  secrets: string | string[],
  options: VerifyOptions = {},
): Promise<AccountEvent> {
  await verifyPostbackSignature(headers, rawBody, secrets, options);
  try {
    return JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody)) as AccountEvent;
  } catch {
    throw new PostbackVerificationError('invalid_body', 'The signed body is not JSON (a GET postback? use verifyPostbackSignature with the URL).');
  }
}
