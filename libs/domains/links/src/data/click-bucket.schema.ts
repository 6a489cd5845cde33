import { Schema } from 'mongoose';

/**
 * Many clicks of one publisher in one document (./click-bucket.ts packs and unpacks them). Binary
 * columns come back from the driver as Binary: read them through `unpackBucket`.
 */
export interface ClickBucketDoc {
  /** The id of its first click. */
  _id: string;
  publisher_id: string;
  /** Its first and last click's time (one window: t1 - t0 < BUCKET_WINDOW_MS). */
  t0: Date;
  t1: Date;
  /** Clicks, and clicks not flagged as bots. */
  n: number;
  h: number;
  /**
   * Its targets: each one's link (`ls`); the distinct programs, merchants (campaigns) and sub-IDs
   * (`lp`, `lc`, `lsub`: the filter indexes' values); per target, its sub-ID, merchant and program
   * as indexes into those (`tm`, three uint16, little-endian). Buckets of earlier versions have no
   * `tm` and one `lp`, `lc` and `lsub` entry per target.
   */
  ls: string[];
  lp: number[];
  lc: number[];
  lsub: string[];
  tm?: Buffer;
  /** Distinct user agents and referrers, and address hashes not kept in `ih`. */
  s?: string[];
  /**
   * The same table as one string, its values separated by NUL (when none holds one): one value
   * to encode and decode instead of hundreds.
   */
  sj?: string;
  /**
   * Per click: ms after t0 (uint32), target (uint16), user agent, address hash and referrer in `s`
   * (uint16), bot reason (uint8). Address hashes of the redirect's layout (32 hex digits, every one
   * of the bucket's) are instead their 16 bytes each in `ih`, and `ip` is absent.
   */
  at: Buffer;
  l: Buffer;
  ua: Buffer;
  ip?: Buffer;
  ih?: Buffer;
  rf: Buffer;
  b: Buffer;
  /** Per click, the smart link route that answered (uint8: 0 none, else its index + 1); absent when none did. */
  r?: Buffer;
  /** Per click, the program a product link fell back from (GTIN fallback; uint32 LE, 0 none); absent when no click did. */
  f?: Buffer;
  /** Per click, the nonce and signature of its signed id (16 bytes); or, for ids of another layout, `id`. */
  k?: Buffer;
  id?: string[];
  /** The ids not of the signed layout (older clicks): found by id through a sparse index. */
  u?: string[];
  /** The stats transaction that stored (and counts) these clicks. */
  stats_txn?: string;
  /**
   * A wide bucket: small, counted buckets of one account merged by the compaction (one UTC day, at
   * most BUCKET_MAX clicks; an account's wide buckets never overlap). 2 while its sources may still
   * exist (`src`, with how many clicks each gave, `srcn`, in order; merged at `merged_at`), 1 once
   * they are deleted.
   */
  w?: 1 | 2;
  src?: string[];
  srcn?: number[];
  merged_at?: Date;
}

export const clickBucketSchema = new Schema<ClickBucketDoc>(
  {
    _id: { type: String, required: true },
    publisher_id: { type: String, required: true },
    t0: { type: Date, required: true },
    t1: { type: Date, required: true },
    n: { type: Number, required: true },
    h: { type: Number, required: true },
    ls: [String],
    lp: [Number],
    lc: [Number],
    lsub: [String],
    tm: Buffer,
    s: { type: [String], default: undefined },
    sj: String,
    at: Buffer,
    l: Buffer,
    ua: Buffer,
    ip: Buffer,
    ih: Buffer,
    rf: Buffer,
    b: Buffer,
    r: Buffer,
    f: Buffer,
    k: Buffer,
    id: { type: [String], default: undefined },
    u: { type: [String], default: undefined },
    stats_txn: String,
    w: Number,
    src: { type: [String], default: undefined },
    srcn: { type: [Number], default: undefined },
    merged_at: Date,
  },
  { versionKey: false },
);
// The clicks list reads buckets newest first (by their last click) and merges them; each filter
// of the list has its own (multikey) index, so a filtered page reads only buckets that match.
clickBucketSchema.index({ publisher_id: 1, t1: -1, _id: 1 });
clickBucketSchema.index({ publisher_id: 1, ls: 1, t1: -1, _id: 1 });
clickBucketSchema.index({ publisher_id: 1, lsub: 1, t1: -1, _id: 1 });
clickBucketSchema.index({ publisher_id: 1, lc: 1, t1: -1, _id: 1 });
// Wide buckets only (the compaction's): the one straddling a bound, an account's newest, its merges to settle.
clickBucketSchema.index({ publisher_id: 1, w: 1, t1: 1 }, { partialFilterExpression: { w: { $exists: true } } });
// Ids of the older layout only (signed ids are found by their link and time).
clickBucketSchema.index({ u: 1 }, { sparse: true });
