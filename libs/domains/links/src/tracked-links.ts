/**
 * Tracked links: {tracking_url}/c/{code}. One link per (publisher, program, landing URL,
 * sub-ID): the code is an HMAC of those four under the platform key, so the same request always
 * yields the same link, a link is never shared between publishers, and codes cannot be guessed
 * from another publisher's links. Creation is batched: one read, one write for a whole page.
 */
import { createHmac } from 'node:crypto';
import type { LinksData } from './data/links.data';

export interface LinkSpec {
  publisherId: string;
  programId: number;
  merchantId: number;
  landingUrl: string;
  subid: string;
  /** The catalog product a product link is made for (recorded on the link; not part of its identity). */
  product?: LinkProduct;
}

/** A product link's product: catalog id, GTIN and market (docs/decisions/0063-gtin-fallback.md). */
export interface LinkProduct {
  id: string;
  gtin: string;
  market: string;
}

export type LinkSource = 'api' | 'product' | 'monetize';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const MEMO_MAX = 100_000;

/**
 * Codes computed, per key: publisher -> sub-ID -> landing URL -> program -> code. Nested by the
 * identity's own strings, which a page's rows and the caller's principal hand over as the same
 * string objects each time, so a lookup hashes nothing new (a joined key would be built and
 * hashed for every product of every page). At most MEMO_MAX codes per key: past that, all go.
 */
interface Memo {
  size: number;
  byPublisher: Map<string, Map<string, Map<string, Map<number, string>>>>;
}
const memos = new WeakMap<Buffer, Memo>();

/** The map under `key` in `map`, made empty when missing. */
function child<K, V extends Map<unknown, unknown>>(map: Map<K, V>, key: K): V {
  let v = map.get(key);
  if (v === undefined) map.set(key, (v = new Map() as V));
  return v;
}

/**
 * 14 base62 characters (~83 bits) derived from the link's identity. Memoised per key (bounded):
 * product pages ask for the same codes again and again.
 */
export function linkCode(key: Buffer, spec: Pick<LinkSpec, 'publisherId' | 'programId' | 'landingUrl' | 'subid'>): string {
  let memo = memos.get(key);
  if (!memo || memo.size >= MEMO_MAX) memos.set(key, (memo = { size: 0, byPublisher: new Map() }));
  const byProgram = child(child(child(memo.byPublisher, spec.publisherId), spec.subid), spec.landingUrl);
  let code = byProgram.get(spec.programId);
  if (code === undefined) {
    byProgram.set(spec.programId, (code = computeCode(key, `${spec.publisherId}\u0000${spec.programId}\u0000${spec.landingUrl}\u0000${spec.subid}`)));
    memo.size++;
  }
  return code;
}

function computeCode(key: Buffer, identity: string): string {
  const mac = createHmac('sha256', key).update(identity).digest();
  let n = BigInt(`0x${mac.subarray(0, 16).toString('hex')}`);
  let out = '';
  for (let i = 0; i < 14; i++) {
    out += ALPHABET[Number(n % 62n)];
    n /= 62n;
  }
  return out;
}

export function trackedUrl(trackingBase: string, code: string): string {
  return `${trackingBase}/c/${code}`;
}

export interface EnsuredLink {
  code: string;
  created: boolean;
}

/**
 * Makes sure each link exists; returns its code and whether this call created it. Existing links
 * are left as they are (except that `listed` can be turned on). Safe under concurrency: a
 * duplicate insert from a racing request is the same link.
 */
export async function ensureLinks(links: LinksData, key: Buffer, specs: LinkSpec[], opts: { source: LinkSource; listed?: boolean }): Promise<EnsuredLink[]> {
  const codes = specs.map((s) => linkCode(key, s));
  const unique = [...new Set(codes)];
  // Links are never deleted: codes this process has seen stored need no read (products only;
  // `listed` requests read, since they may have to turn listing on).
  if (!opts.listed && links.allKnown(unique)) return codes.map((code) => ({ code, created: false }));
  // Product links need no read either: the codes this process has not seen are inserted in one
  // write, those already stored being skipped as duplicates.
  const existing = opts.listed ? await links.existingCodes(unique) : links.knownOf(unique);
  const now = new Date();
  const missing = new Map<string, LinkSpec>();
  specs.forEach((s, i) => {
    const code = codes[i]!; // one code per spec
    if (!existing.has(code)) missing.set(code, s);
  });
  const created = await links.insertNew(
    [...missing].map(([code, s]) => ({
      _id: code,
      publisher_id: s.publisherId,
      program_id: s.programId,
      campaign_id: s.merchantId,
      landing_url: s.landingUrl,
      subid: s.subid,
      source: opts.source,
      ...(s.product ? { product: { id: s.product.id, gtin: s.product.gtin, market: s.product.market } } : {}),
      listed: !!opts.listed,
      created_at: now,
      updated_at: now,
    })),
  );
  if (opts.listed)
    await links.markListed(
      unique.filter((c) => existing.has(c)),
      now,
    );
  // Links stored before they recorded their product get it now, once per process (decision 0063).
  const withProduct = new Map<string, LinkProduct>();
  specs.forEach((s, i) => {
    const code = codes[i]!;
    if (s.product && !created.has(code)) withProduct.set(code, s.product);
  });
  if (withProduct.size) await links.setProductsWhereMissing(withProduct);
  // Every code is stored now: it existed, this call created it, or a racing call did (11000).
  links.remember(unique);
  return codes.map((code) => ({ code, created: created.has(code) }));
}
