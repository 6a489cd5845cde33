import { describe, expect, it } from 'vitest';
import { BUCKET_WINDOW_MS } from './click-bucket';
import { DAY_MS, planMerges, skippedClicks, type BucketSpan } from './click-compaction';
import type { ClickBucketDoc } from './click-bucket.schema';

const DAY0 = Date.UTC(2026, 10, 2);
/** A bucket ending at `ms` after DAY0 holding `n` clicks. */
const span = (id: string, ms: number, n = 1): BucketSpan => ({ _id: id, t1: new Date(DAY0 + ms), n });

describe('planMerges', () => {
  it('groups a day of one-click buckets into groups of at most 1,000 clicks, whole windows each, in order', () => {
    // 2,500 one-click buckets, two per window.
    const buckets = Array.from({ length: 2500 }, (_, i) => span(`b${i}`, Math.floor(i / 2) * BUCKET_WINDOW_MS + (i % 2) * 3));
    const { groups, to } = planMerges(buckets, DAY0 + 2 * DAY_MS);
    expect(groups.map((g) => g.length)).toEqual([1000, 1000, 500]);
    expect(groups.flat()).toEqual(buckets.map((b) => b._id));
    expect(to).toBe(DAY0 + 2 * DAY_MS);
  });

  it('never puts two days in one group, and leaves a lone bucket alone', () => {
    const buckets = [span('a', 5), span('b', 60_000), span('c', DAY_MS + 5), span('d', 2 * DAY_MS + 1), span('e', 2 * DAY_MS + 20_000)];
    expect(planMerges(buckets, DAY0 + 3 * DAY_MS).groups).toEqual([
      ['a', 'b'],
      ['d', 'e'],
    ]);
  });

  it('keeps the last group of a day still going for a later run, from its first window', () => {
    const buckets = [span('a', 5), span('b', DAY_MS + 12_345), span('c', DAY_MS + 40_000)];
    const cutoff = DAY0 + DAY_MS + 3_600_000;
    const { groups, to } = planMerges(buckets, cutoff);
    expect(groups).toEqual([]);
    expect(to).toBe(DAY0 + DAY_MS + 10_000);
    // Unless told to close it (the end of a chunk read).
    expect(planMerges(buckets, cutoff, true)).toEqual({ groups: [['b', 'c']], to: cutoff });
  });

  it('takes a window whole or starts a new group with it, so groups never overlap', () => {
    // 999 clicks, then a window of two buckets: the window goes to the next group.
    const buckets = [span('a', 5, 500), span('b', 10_005, 499), span('c', 20_001), span('d', 20_002), span('e', 30_000)];
    expect(planMerges(buckets, DAY0 + DAY_MS).groups).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
  });
});

describe('skippedClicks', () => {
  it("flags the clicks of a merge's sources that still exist, by position", () => {
    const doc = { n: 6, w: 2, src: ['x', 'y', 'z'], srcn: [2, 3, 1] } as ClickBucketDoc;
    expect([...skippedClicks(doc, new Set(['y']))!]).toEqual([0, 0, 1, 1, 1, 0]);
    expect(skippedClicks(doc, new Set())).toBeUndefined();
    expect(skippedClicks({ ...doc, w: 1 }, new Set(['y']))).toBeUndefined();
  });
});
