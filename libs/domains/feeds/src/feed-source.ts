/**
 * Where feed rows come from. A feed delivers, in stable product-id order, at most 500 fresh
 * products per program and 5,000 per country: so each program contributes its first 500 fresh
 * products by id, and a k-way merge of those streams by id, cut at the cap, is the feed. Memory is
 * bounded by the caps, never by the catalog.
 *
 * Each (country, program) stream is read from a prepared file in GridFS (`feedfiles` bucket, one
 * JSON line per product, written by `regenerateMarket`), so every instance serves the same file;
 * when a program has no file yet, from a cursor on the catalog index (country, program_id, _id).
 * Tracked links are not in the files: they depend on the account and are computed when served.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import mongoose from 'mongoose';
import type { FeedSourceData as Models } from './deps';

export const MAX_PER_PROGRAM = 500;
export const MAX_PER_COUNTRY = 5000;
const FRESHNESS_MS = 48 * 3_600_000;

export interface FeedRecord {
  id: string;
  title: string;
  description: string;
  source_url: string;
  image: string;
  availability: string;
  price: string;
  sale_price: string;
  currency: string;
  brand: string;
  gtin: string;
  mpn: string;
  condition: string;
  category: string;
  merchant_id: number;
  program_id: number;
  last_seen_at: number;
  fresh_until: number;
}

const FIELDS = {
  title: 1,
  description: 1,
  source_url: 1,
  image: 1,
  availability: 1,
  price: 1,
  sale_price: 1,
  currency: 1,
  brand: 1,
  gtin: 1,
  mpn: 1,
  condition: 1,
  category: 1,
  merchant_id: 1,
  program_id: 1,
  last_seen_at: 1,
  fresh_until: 1,
} as const;

type ProductLean = Record<string, unknown> & { _id: string; price: unknown; sale_price?: unknown; last_seen_at: Date; fresh_until: Date };

function toRecord(p: ProductLean): FeedRecord {
  const s = (v: unknown) => (v === undefined || v === null ? '' : String(v));
  return {
    id: p._id,
    title: s(p.title),
    description: s(p.description),
    source_url: s(p.source_url),
    image: s(p.image),
    availability: s(p.availability),
    price: s(p.price),
    sale_price: s(p.sale_price),
    currency: s(p.currency),
    brand: s(p.brand),
    gtin: s(p.gtin),
    mpn: s(p.mpn),
    condition: s(p.condition) || 'new',
    category: s(p.category),
    merchant_id: Number(p.merchant_id),
    program_id: Number(p.program_id),
    last_seen_at: p.last_seen_at.getTime(),
    fresh_until: p.fresh_until.getTime(),
  };
}

const isFresh = (r: FeedRecord, now: number) => r.last_seen_at >= now - FRESHNESS_MS && r.fresh_until > now;

function bucket(models: Models) {
  return models.feeds.bucket();
}

const fileName = (country: string, programId: number) => `${country}/${programId}.jsonl`;

export interface FeedFileInfo {
  id: string;
  generatedAt: Date;
}

/** The newest prepared file of each program in the country (absent when none was written). */
export async function feedFiles(models: Models, country: string, programIds: number[]): Promise<Map<number, FeedFileInfo>> {
  const files = await bucket(models)
    .find({ filename: { $in: programIds.map((id) => fileName(country, id)) } })
    .sort({ uploadDate: -1 })
    .toArray();
  const out = new Map<number, FeedFileInfo>();
  for (const f of files) {
    const programId = Number(f.metadata?.program_id);
    if (!out.has(programId)) out.set(programId, { id: String(f._id), generatedAt: f.uploadDate });
  }
  return out;
}

function catalogCursor(models: Models, country: string, programId: number, now: Date) {
  return models.catalog.freshProducts<ProductLean>(
    { country, programId, freshSince: new Date(now.getTime() - FRESHNESS_MS), now, limit: MAX_PER_PROGRAM },
    FIELDS,
  );
}

/** The non-empty lines of a byte stream; an error of the stream (a lost connection) is thrown here. */
async function* jsonLines(stream: Readable): AsyncGenerator<string> {
  stream.setEncoding('utf8'); // characters split across chunks are joined
  let rest = '';
  for await (const chunk of stream as AsyncIterable<string>) {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) if (line) yield line;
  }
  if (rest) yield rest;
}

/** One program's rows in id order: its prepared file when there is one, else the catalog. */
async function* programRows(
  models: Models,
  country: string,
  programId: number,
  file: FeedFileInfo | undefined,
  now: Date,
  closers: Array<() => void>,
): AsyncGenerator<FeedRecord> {
  const t = now.getTime();
  if (file) {
    const stream = bucket(models).openDownloadStream(new mongoose.Types.ObjectId(file.id));
    closers.push(() => stream.destroy());
    for await (const line of jsonLines(stream)) {
      const r = JSON.parse(line) as FeedRecord;
      if (isFresh(r, t)) yield r;
    }
    return;
  }
  const cursor = catalogCursor(models, country, programId, now);
  closers.push(() => void cursor.close().catch(() => undefined));
  for await (const p of cursor) yield toRecord(p);
}

export interface FeedSelection {
  country: string;
  programIds: number[];
  files: Map<number, FeedFileInfo>;
  cap: number;
}

/**
 * The feed's rows: the programs' streams merged by id, at most `cap` rows. `close` stops every
 * source (a client that goes away mid-feed).
 */
export function feedRows(models: Models, sel: FeedSelection, now = new Date()): { rows: AsyncGenerator<FeedRecord>; close: () => void } {
  const closers: Array<() => void> = [];
  const sources = sel.programIds.map((id) => programRows(models, sel.country, id, sel.files.get(id), now, closers));
  async function* merge(): AsyncGenerator<FeedRecord> {
    const heads: Array<{ it: AsyncGenerator<FeedRecord>; r: FeedRecord }> = [];
    try {
      for (const it of sources) {
        const n = await it.next();
        if (!n.done) heads.push({ it, r: n.value });
      }
      let sent = 0;
      while (heads.length && sent < sel.cap) {
        let min = 0;
        let head = heads[0]!;
        for (const [i, h] of heads.entries()) if (h.r.id < head.r.id) [min, head] = [i, h];
        yield head.r;
        sent++;
        const n = await head.it.next();
        if (n.done) heads.splice(min, 1);
        else head.r = n.value;
      }
    } finally {
      for (const close of closers) close();
      await Promise.allSettled(sources.map((s) => s.return(undefined)));
    }
  }
  return { rows: merge(), close: () => closers.forEach((c) => c()) };
}

/**
 * Writes a fresh file for every active program with products in the country (its first 500 fresh
 * products by id, as JSON lines), then removes the older files. Returns the files written.
 */
export async function regenerateMarket(models: Models, country: string, now = new Date()): Promise<{ country: string; files: number; products: number }> {
  const programIds = (await models.programs.active({ country }, { _id: 1 })).map((p) => p._id);
  const b = bucket(models);
  let products = 0;
  for (const programId of programIds) {
    const upload = b.openUploadStream(fileName(country, programId), { metadata: { country, program_id: programId, generated_at: now } });
    let count = 0;
    async function* lines() {
      for await (const p of catalogCursor(models, country, programId, now)) {
        count++;
        yield `${JSON.stringify(toRecord(p))}\n`;
      }
    }
    // pipeline owns the errors of both sides (a lost connection fails this call, never the process)
    // and closes the cursor; a half-written file is removed.
    await pipeline(Readable.from(lines()), upload).catch(async (err: unknown) => {
      await upload.abort().catch(() => undefined);
      throw err;
    });
    products += count;
    const older = await b.find({ filename: fileName(country, programId), _id: { $ne: upload.id } }).toArray();
    for (const f of older) await b.delete(f._id).catch(() => undefined);
  }
  await models.catalog.feedFilesWritten(country, now);
  return { country, files: programIds.length, products };
}

/** Markets whose files are older than `maxAgeMs` or than the last catalog change there. */
export async function staleMarkets(models: Models, maxAgeMs: number, now = new Date()): Promise<string[]> {
  const countries = await models.programs.activeCountries();
  const states = await models.catalog.marketStates();
  return countries.filter((c) => {
    const s = states.get(c);
    if (!s?.generated_at) return true;
    return s.generated_at.getTime() < now.getTime() - maxAgeMs || (s.catalog_changed_at ?? new Date(0)) > s.generated_at;
  });
}
