/**
 * The compaction of a low-traffic account's clicks (docs/scaling.md, "Clicks: buckets"): a bucket
 * holds one tracker flush of one account, so an account with less than a click per flush gets a
 * bucket per click. Its small buckets, once counted and an hour old, are merged in time order into
 * wide buckets (`w`) of one UTC day and at most BUCKET_MAX clicks. This module decides the groups
 * and builds a merged bucket; links.data.ts reads and writes them.
 */
import { BUCKET_MAX, BUCKET_WINDOW_MS, packBucket, unpackBucket } from './click-bucket';
import type { ClickBucketDoc } from './click-bucket.schema';

export const DAY_MS = 86_400_000;
/** A bucket of more clicks than this is left as it is (merging full buckets gains nothing). */
export const MERGE_SOURCE_MAX = BUCKET_MAX / 2;

/** What the planner reads of a bucket (not its columns). */
export type BucketSpan = Pick<ClickBucketDoc, '_id' | 't1' | 'n'>;

const windowOf = (b: BucketSpan) => Math.floor(new Date(b.t1).getTime() / BUCKET_WINDOW_MS);

/**
 * The groups to merge among an account's mergeable buckets (small, counted, not wide), given in
 * `t1` order, and `to`: every bucket ending before it is decided. A small bucket lies in one
 * window, so a group takes whole windows (two groups then never overlap), at most BUCKET_MAX clicks
 * (a window's buckets past that stay as they are), of one UTC day; a group of one bucket is left
 * alone. The last group is kept for a later run (from `to`, its first window) while its day goes
 * on before `cutoff` and more buckets may join it, unless `closeLast`.
 */
export function planMerges(buckets: BucketSpan[], cutoff: number, closeLast = false): { groups: string[][]; to: number } {
  const groups: string[][] = [];
  let group: BucketSpan[] = [];
  let clicks = 0;
  let day = -1;
  const close = () => {
    if (group.length > 1) groups.push(group.map((b) => b._id));
    group = [];
    clicks = 0;
  };
  for (let i = 0; i < buckets.length;) {
    const w = windowOf(buckets[i]!);
    const inWindow: BucketSpan[] = [];
    let n = 0;
    for (; i < buckets.length && windowOf(buckets[i]!) === w; i++)
      if (n + buckets[i]!.n <= BUCKET_MAX) {
        inWindow.push(buckets[i]!);
        n += buckets[i]!.n;
      }
    const d = Math.floor((w * BUCKET_WINDOW_MS) / DAY_MS);
    if (group.length && (d !== day || clicks + n > BUCKET_MAX)) close();
    group.push(...inWindow);
    clicks += n;
    day = d;
  }
  if (group.length && !closeLast && day >= Math.floor(cutoff / DAY_MS)) return { groups, to: windowOf(group[0]!) * BUCKET_WINDOW_MS };
  close();
  return { groups, to: cutoff };
}

/** The id of the wide bucket merged from buckets whose first is `first` (the same group, the same id). */
export const mergedId = (first: string) => `w.${first}`;

/**
 * One wide bucket of these sources' clicks (counted, so it carries no stats transaction), in their
 * order, naming them while they may still exist (`w: 2`, `src`, `srcn`).
 */
export function mergedBucket(sources: ClickBucketDoc[], at: Date): ClickBucketDoc {
  const rows = sources.flatMap((s) => unpackBucket(s).map((c) => ({ ...c, stats_txn: null })));
  return {
    ...packBucket(rows),
    _id: mergedId(sources[0]!._id),
    w: 2,
    src: sources.map((s) => s._id),
    srcn: sources.map((s) => s.n),
    merged_at: at,
  };
}

/**
 * Per click of a wide bucket whose sources may still exist (`w: 2`), whether it is to be skipped:
 * the clicks of sources that exist are read from them.
 */
export function skippedClicks(doc: ClickBucketDoc, existing: Set<string>): Uint8Array | undefined {
  if (doc.w !== 2 || !doc.src?.some((id) => existing.has(id))) return undefined;
  const skip = new Uint8Array(doc.n);
  let at = 0;
  doc.src.forEach((id, i) => {
    const n = doc.srcn![i]!;
    if (existing.has(id)) skip.fill(1, at, at + n);
    at += n;
  });
  return skip;
}
