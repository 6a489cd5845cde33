/**
 * Tracked links: {tracking_url}/c/{code}. One link per (publisher, program, landing URL,
 * sub-ID): the code is an HMAC of those four under the platform key, so the same request always
 * yields the same link, a link is never shared between publishers, and codes cannot be guessed
 * from another publisher's links. Creation is batched: one read, one write for a whole page.
 */
import { createHmac } from 'node:crypto';
import type { Models } from '@cw/db';

export interface LinkSpec {
  publisherId: string;
  programId: number;
  campaignId: number;
  landingUrl: string;
  subid: string;
}

export type LinkSource = 'api' | 'product' | 'monetize';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 14 base62 characters (~83 bits) derived from the link's identity. */
export function linkCode(key: Buffer, spec: Pick<LinkSpec, 'publisherId' | 'programId' | 'landingUrl' | 'subid'>): string {
  const mac = createHmac('sha256', key).update(`${spec.publisherId}\u0000${spec.programId}\u0000${spec.landingUrl}\u0000${spec.subid}`).digest();
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
export async function ensureLinks(models: Models, key: Buffer, specs: LinkSpec[], opts: { source: LinkSource; listed?: boolean }): Promise<EnsuredLink[]> {
  const codes = specs.map((s) => linkCode(key, s));
  const unique = [...new Set(codes)];
  const known = knownCodes(models);
  // Links are never deleted: codes this process has seen stored need no read (products only;
  // `listed` requests read, since they may have to turn listing on).
  if (!opts.listed && unique.every((c) => known.has(c))) return codes.map((code) => ({ code, created: false }));
  const existing = new Set((await models.Link.find({ _id: { $in: unique } }, { _id: 1 }).lean()).map((l) => String(l._id)));
  const now = new Date();
  const missing = new Map<string, LinkSpec>();
  specs.forEach((s, i) => {
    if (!existing.has(codes[i])) missing.set(codes[i], s);
  });
  const created = new Set<string>();
  if (missing.size) {
    const docs = [...missing].map(([code, s]) => ({
      _id: code,
      publisher_id: s.publisherId,
      program_id: s.programId,
      campaign_id: s.campaignId,
      landing_url: s.landingUrl,
      subid: s.subid,
      source: opts.source,
      listed: !!opts.listed,
      created_at: now,
      updated_at: now,
    }));
    try {
      await models.Link.collection.insertMany(docs as never[], { ordered: false });
      docs.forEach((d) => created.add(d._id));
    } catch (e) {
      const err = e as { code?: number; writeErrors?: Array<{ index: number; code: number }>; result?: { insertedIds?: Record<number, unknown> } };
      const errors = err.writeErrors ?? [];
      if (err.code !== 11000 && !errors.length) throw e;
      if (errors.some((w) => w.code !== 11000)) throw e;
      const failed = new Set(errors.map((w) => w.index));
      docs.forEach((d, i) => !failed.has(i) && created.add(d._id));
    }
  }
  if (opts.listed) {
    const toList = unique.filter((c) => existing.has(c));
    if (toList.length) await models.Link.updateMany({ _id: { $in: toList }, listed: false }, { $set: { listed: true, updated_at: now } });
  }
  // Every code is stored now: it existed, this call created it, or a racing call did (11000).
  for (const c of unique) known.add(c);
  return codes.map((code) => ({ code, created: created.has(code) }));
}

/** Per connection (models), a bounded set of link codes known to be stored. */
const KNOWN_MAX = 200_000;
const knownByModels = new WeakMap<Models['Link'], KnownCodes>();

class KnownCodes {
  private codes = new Set<string>();
  has(code: string): boolean {
    return this.codes.has(code);
  }
  add(code: string): void {
    if (this.codes.size >= KNOWN_MAX) this.codes.clear();
    this.codes.add(code);
  }
}

function knownCodes(models: Models): KnownCodes {
  let k = knownByModels.get(models.Link);
  if (!k) knownByModels.set(models.Link, (k = new KnownCodes()));
  return k;
}
