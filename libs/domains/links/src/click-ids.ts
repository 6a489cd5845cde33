/**
 * Click ids that carry, signed, what attribution needs: the link (whose stored row names the
 * publisher, program, merchant and sub-ID, and never changes), the time of the click, and whether
 * it was flagged as a bot or was a link preview (HEAD). A merchant can therefore report a sale on
 * a click the moment the redirect answered, on any tracker instance, and on a click whose row
 * never reached the database (the tracker buffers click writes; a crash loses the buffer): the
 * conversion is attributed all the same.
 *
 * Layout (base64url after `clk_`): version (1 byte) | time in ms (6) | flags (1) | nonce (6) |
 * link code (ASCII, 1-64) | HMAC-SHA256 of everything before it, truncated to 10 bytes, under a
 * key derived for this purpose only from the key ring's current key. Any key of the ring verifies
 * (a click made before a rotation still converts).
 */
import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyRing } from '@cw/config';

const VERSION = 1;
const HEADER = 14;
const MAC_BYTES = 10;
const NONCE_BYTES = 6;
const BOT = 1;
const PREVIEW = 2;
const LINK_CODE = /^[A-Za-z0-9]{1,64}$/;

/** What a signed click id says about its click. */
export interface ClickClaims {
  linkId: string;
  at: Date;
  isBot: boolean;
  /** A HEAD request (a link preview): no click was recorded and none converts. */
  preview: boolean;
}

/** The longest body a click id signs: the header and a 64-character link code. */
const MAX_BODY = HEADER + 64;
const BLOCK = 64;

/**
 * HMAC-SHA256 (RFC 2104) under one key, truncated to MAC_BYTES: the inner and outer hash of the
 * key's pads, each one `crypto.hash` call over a buffer that already holds its pad. The same bytes
 * as `createHmac` (click-ids.test.ts), without a stream object per click: the redirect signs one
 * id per request.
 */
class ClickMac {
  private readonly inner = Buffer.alloc(BLOCK + MAX_BODY);
  private readonly outer = Buffer.alloc(BLOCK + 32);

  constructor(private readonly key: Buffer) {
    // A key is at most one block (a derived key is 32 bytes); zero-padded, then xored with each pad.
    for (let i = 0; i < BLOCK; i++) {
      this.inner[i] = (key[i] ?? 0) ^ 0x36;
      this.outer[i] = (key[i] ?? 0) ^ 0x5c;
    }
  }

  /**
   * Writes the MAC of `body` into `out` at `at`. The digests come back as latin1 ('binary') strings, written
   * into place: half the cost of digests as Buffers, each a native allocation of its own.
   */
  signInto(body: Buffer, out: Buffer, at: number): void {
    if (body.length > MAX_BODY) {
      createHmac('sha256', this.key).update(body).digest().copy(out, at, 0, MAC_BYTES);
      return;
    }
    body.copy(this.inner, BLOCK);
    this.outer.write(hash('sha256', this.inner.subarray(0, BLOCK + body.length), 'binary'), BLOCK, 32, 'latin1');
    out.write(hash('sha256', this.outer, 'binary'), at, MAC_BYTES, 'latin1');
  }

  sign(body: Buffer): Buffer {
    const mac = Buffer.allocUnsafe(MAC_BYTES);
    this.signInto(body, mac, 0);
    return mac;
  }
}

const derivedKeys = new WeakMap<Buffer, ClickMac>();

/** The signer of click ids under a key of the ring (a key derived for this purpose only). */
function clickKey(secret: Buffer): ClickMac {
  let key = derivedKeys.get(secret);
  if (!key) derivedKeys.set(secret, (key = new ClickMac(createHmac('sha256', secret).update('click-id/v1').digest())));
  return key;
}

/** The truncated HMAC of a click id's body (exported for its test against createHmac). */
export const clickMac = (secret: Buffer, body: Buffer): Buffer => clickKey(secret).sign(body);

/** Signs click ids; nonces come from a pooled random buffer (one getrandom call per `poolSize` clicks). */
export class ClickIds {
  private pool = Buffer.alloc(0);
  private at = 0;
  private readonly key: ClickMac;

  constructor(
    keys: KeyRing,
    private readonly poolSize = 1024,
  ) {
    this.key = clickKey(keys.current.key);
  }

  next(linkId: string, flags: { isBot: boolean; preview?: boolean }, now = Date.now()): string {
    if (this.at >= this.pool.length) {
      this.pool = randomBytes(NONCE_BYTES * this.poolSize);
      this.at = 0;
    }
    const end = HEADER + linkId.length;
    const raw = Buffer.allocUnsafe(end + MAC_BYTES);
    raw[0] = VERSION;
    raw.writeUIntBE(now, 1, 6);
    raw[7] = (flags.isBot ? BOT : 0) | (flags.preview ? PREVIEW : 0);
    this.pool.copy(raw, 8, this.at, this.at + NONCE_BYTES);
    this.at += NONCE_BYTES;
    raw.write(linkId, HEADER, 'latin1');
    this.key.signInto(raw.subarray(0, end), raw, end);
    return `clk_${raw.toString('base64url')}`;
  }
}

/** What a click id of the signed layout holds, read without checking its signature. */
export interface ClickIdParts {
  at: number;
  flags: number;
  linkId: string;
  /** The nonce and the signature (16 bytes): with the time, flags and link, the whole id. */
  tail: Buffer;
}

/** Bytes of `ClickIdParts.tail`. */
export const CLICK_ID_TAIL = NONCE_BYTES + MAC_BYTES;

/**
 * The parts of an id in the signed layout (its signature not checked: storage only), or undefined
 * for any other id. `clickIdOf(parts)` gives the same id back, so a stored click keeps 16 bytes
 * of its id beside the time, bot flag and link it already keeps.
 */
export function clickIdParts(clickId: string): ClickIdParts | undefined {
  if (!clickId.startsWith('clk_')) return undefined;
  const raw = Buffer.from(clickId.slice(4), 'base64url');
  if (raw.length <= HEADER + MAC_BYTES || raw[0] !== VERSION || raw.toString('base64url') !== clickId.slice(4)) return undefined;
  const linkId = raw.toString('latin1', HEADER, raw.length - MAC_BYTES);
  if (!LINK_CODE.test(linkId)) return undefined;
  const tail = Buffer.allocUnsafe(CLICK_ID_TAIL);
  raw.copy(tail, 0, 8, HEADER);
  raw.copy(tail, NONCE_BYTES, raw.length - MAC_BYTES);
  return { at: raw.readUIntBE(1, 6), flags: raw[7]!, linkId, tail };
}

/** Decoded ids land here (the longest id of the layout is 88 bytes): packing a batch allocates nothing per click. */
const scratch = Buffer.allocUnsafe(MAX_BODY + MAC_BYTES);
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Copies the 16-byte tail (clickIdParts' `tail`) of an id in the signed layout into `out` at
 * `offset` when the id is exactly the one `clickIdOf(at, flags, linkId, tail)` gives back, and
 * answers whether it did; answers false (copying nothing) for any other id. What packing a click
 * asks, without clickIdParts' buffers and strings.
 */
export function copyClickIdTail(clickId: string, at: number, flags: number, linkId: string, out: Buffer, offset: number): boolean {
  const bytes = HEADER + linkId.length + MAC_BYTES;
  // The unpadded base64url of `bytes` bytes, in the url alphabet only (a decoder also takes `+/=`).
  if (bytes > scratch.length || clickId.length !== 4 + Math.ceil((4 * bytes) / 3) || !clickId.startsWith('clk_')) return false;
  const body = clickId.slice(4);
  if (!BASE64URL.test(body) || scratch.write(body, 0, 'base64url') !== bytes) return false;
  // The bits past the last byte are zero in the one encoding clickIdOf writes.
  const last = body.charCodeAt(body.length - 1);
  const sextet = last >= 97 ? last - 71 : last >= 65 ? last - 65 : last >= 48 ? last + 4 : last === 45 ? 62 : 63;
  const spare = bytes % 3 === 1 ? 0b1111 : bytes % 3 === 2 ? 0b11 : 0;
  if (sextet & spare) return false;
  if (scratch[0] !== VERSION || scratch[7] !== flags || scratch.readUIntBE(1, 6) !== at) return false;
  for (let i = 0; i < linkId.length; i++) if (scratch[HEADER + i] !== linkId.charCodeAt(i)) return false;
  scratch.copy(out, offset, 8, HEADER);
  scratch.copy(out, offset + NONCE_BYTES, bytes - MAC_BYTES, bytes);
  return true;
}

/** The id whose parts these are (clickIdParts' inverse); `tail` is read at `offset`. */
export function clickIdOf(at: number, flags: number, linkId: string, tail: Uint8Array, offset = 0): string {
  const raw = Buffer.allocUnsafe(HEADER + linkId.length + MAC_BYTES);
  raw[0] = VERSION;
  raw.writeUIntBE(at, 1, 6);
  raw[7] = flags;
  raw.set(tail.subarray(offset, offset + NONCE_BYTES), 8);
  raw.write(linkId, HEADER, 'latin1');
  raw.set(tail.subarray(offset + NONCE_BYTES, offset + CLICK_ID_TAIL), HEADER + linkId.length);
  return `clk_${raw.toString('base64url')}`;
}

export const CLICK_ID_BOT_FLAG = BOT;

/** The claims of a click id signed under a key of the ring; undefined for any other id (unsigned, tampered, malformed). */
export function readClickId(keys: KeyRing, clickId: string): ClickClaims | undefined {
  if (!clickId.startsWith('clk_')) return undefined;
  const raw = Buffer.from(clickId.slice(4), 'base64url');
  if (raw.length <= HEADER + MAC_BYTES || raw[0] !== VERSION || raw.toString('base64url') !== clickId.slice(4)) return undefined;
  const body = raw.subarray(0, raw.length - MAC_BYTES);
  const given = raw.subarray(raw.length - MAC_BYTES);
  if (!keys.all.some((k) => timingSafeEqual(given, clickKey(k.key).sign(body)))) return undefined;
  const linkId = body.toString('latin1', HEADER);
  if (!LINK_CODE.test(linkId)) return undefined;
  return { linkId, at: new Date(body.readUIntBE(1, 6)), isBot: (body[7]! & BOT) !== 0, preview: (body[7]! & PREVIEW) !== 0 };
}
