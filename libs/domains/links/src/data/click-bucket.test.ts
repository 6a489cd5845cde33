import { describe, expect, it } from 'vitest';
import { keyRing } from '@cw/config';
import { ClickIds } from '../click-ids';
import type { ClickBucketDoc } from './click-bucket.schema';
import {
  BUCKET_COUNTING,
  BUCKET_WINDOW_MS,
  bucketIdsOf,
  bucketsOf,
  humanClickCounts,
  packBucket,
  unpackBucket,
  type BucketFilter,
  type ClickCount,
  type ClickRow,
} from './click-bucket';

const ids = new ClickIds(keyRing(Buffer.alloc(32, 7)));
const T = Date.UTC(2026, 10, 1, 12, 0, 0);

function click(i: number, over: Partial<ClickRow> = {}): ClickRow {
  const link = over.link_id ?? `lnk${i % 3}`;
  const at = over.created_at ?? new Date(T + i * 37);
  const isBot = over.is_bot ?? i % 5 === 0;
  return {
    _id: ids.next(link, { isBot }, at.getTime()),
    link_id: link,
    publisher_id: 'pub_a',
    program_id: 1000 + (i % 3),
    campaign_id: 500 + (i % 3),
    subid: i % 3 === 2 ? '' : `sub-${i % 3}`,
    created_at: at,
    user_agent: i % 2 ? 'Mozilla/5.0 Firefox' : 'curl/8',
    ip_hash: `${i % 7}`.repeat(32),
    referrer: i % 4 ? '' : `https://blog.example/${i}`,
    is_bot: isBot,
    // Every reason in turn (bots are every fifth click).
    ...(isBot ? { bot_reason: (['user_agent', 'no_user_agent', 'rate', 'agent', 'datacenter'] as const)[Math.floor(i / 5) % 5] } : {}),
    stats_txn: 'stx_1',
    ...over,
  };
}

/** The clicks a list with this filter keeps, found by checking every click. */
function keptBy(clicks: ClickRow[], f: BucketFilter): ClickRow[] {
  return clicks.filter(
    (c) =>
      (f.subid === undefined || c.subid === f.subid) &&
      (f.linkId === undefined || c.link_id === f.linkId) &&
      (f.merchantId === undefined || c.campaign_id === f.merchantId) &&
      (f.includeBots || !c.is_bot),
  );
}

describe('click buckets', () => {
  it('give back every click with every field it was stored with, in the order stored', () => {
    const clicks = Array.from({ length: 200 }, (_, i) => click(i));
    const doc = packBucket(clicks);
    expect(unpackBucket(doc)).toEqual(clicks);
    expect(doc).toMatchObject({ _id: clicks[0]!._id, publisher_id: 'pub_a', n: 200, h: clicks.filter((c) => !c.is_bot).length, stats_txn: 'stx_1' });
    expect(doc.t0).toEqual(clicks[0]!.created_at);
    expect(doc.t1).toEqual(clicks[199]!.created_at);
    expect(new Set(doc.ls)).toEqual(new Set(['lnk0', 'lnk1', 'lnk2']));
  });

  it("keep a GTIN fallback's program left (column f) only in buckets holding such a click, and give it back per click", () => {
    const plain = Array.from({ length: 20 }, (_, i) => click(i));
    expect(packBucket(plain).f).toBeUndefined();
    const mixed = Array.from({ length: 20 }, (_, i) => click(i, i % 4 === 1 ? { fallback_from: 70_000 + i } : {}));
    const doc = packBucket(mixed);
    expect(doc.f?.length).toBe(4 * 20);
    expect(unpackBucket(doc)).toEqual(mixed);
    expect(
      unpackBucket(doc)
        .filter((c) => c.fallback_from != null)
        .map((c) => c.fallback_from),
    ).toEqual([70_001, 70_005, 70_009, 70_013, 70_017]);
  });

  it('give back only the clicks a filter keeps, the same as filtering every click', () => {
    const clicks = Array.from({ length: 200 }, (_, i) => click(i));
    const doc = packBucket(clicks);
    const filters = [
      { subid: 'sub-1' },
      { subid: 'sub-1', includeBots: true },
      { linkId: 'lnk2', includeBots: true },
      { merchantId: 500 },
      { subid: 'sub-0', merchantId: 501 },
      { subid: 'nowhere' },
      {},
    ];
    for (const f of filters) {
      const expected = keptBy(clicks, f);
      expect(unpackBucket(doc, f), JSON.stringify(f)).toEqual(expected);
    }
    expect(unpackBucket(doc, { subid: 'sub-0', merchantId: 501 })).toEqual([]);
  });

  it('keep each distinct sub-ID, merchant and program once, and read buckets of the earlier one-entry-per-target layout the same', async () => {
    const { serialize, deserialize } = await import('bson');
    const clicks = Array.from({ length: 300 }, (_, i) =>
      click(i, { link_id: `lnk${i % 60}`, subid: `sub-${i % 7}`, campaign_id: 500 + (i % 4), program_id: 1000 + (i % 4) }),
    );
    const doc = packBucket(clicks);
    expect(doc.ls).toHaveLength(new Set(clicks.map((c) => `${c.link_id}|${c.subid}|${c.campaign_id}`)).size);
    expect([...doc.lsub].sort()).toEqual([...new Set(clicks.map((c) => c.subid))].sort());
    expect([...doc.lc].sort()).toEqual([500, 501, 502, 503]);
    const stored = deserialize(serialize(doc)) as ClickBucketDoc;
    expect(unpackBucket(stored)).toEqual(clicks);
    // The same bucket as an earlier version stored it: one lsub, lc and lp entry per target, no tm.
    const tm = Buffer.from(doc.tm!);
    const legacy: ClickBucketDoc = {
      ...stored,
      lsub: doc.ls.map((_, ti) => doc.lsub[tm.readUInt16LE(6 * ti)]!),
      lc: doc.ls.map((_, ti) => doc.lc[tm.readUInt16LE(6 * ti + 2)]!),
      lp: doc.ls.map((_, ti) => doc.lp[tm.readUInt16LE(6 * ti + 4)]!),
    };
    delete legacy.tm;
    expect(unpackBucket(legacy)).toEqual(clicks);
    for (const f of [{ subid: 'sub-3' }, { merchantId: 502, includeBots: true }, { linkId: 'lnk7', subid: 'sub-0' }, { subid: 'sub-3', merchantId: 501 }]) {
      const expected = keptBy(clicks, f);
      expect(expected.length, JSON.stringify(f)).toBeGreaterThan(0);
      expect(unpackBucket(stored, f), JSON.stringify(f)).toEqual(expected);
      expect(unpackBucket(legacy, f), JSON.stringify(f)).toEqual(expected);
    }
  });

  it('count their human clicks per target and slot from the columns alone, as counting every click would', async () => {
    const { serialize, deserialize } = await import('bson');
    // Over 2 seconds, slots of 500 ms: clicks of one target fall in several slots; every bot reason, and a bot without one.
    const clicks = Array.from({ length: 400 }, (_, i) =>
      click(i, { link_id: `lnk${i % 9}`, subid: `sub-${i % 4}`, campaign_id: 500 + (i % 3), created_at: new Date(T + i * 5) }),
    ).map((c, i) => (i % 17 === 3 ? { ...c, is_bot: true, bot_reason: null } : c));
    const doc = packBucket(clicks);
    const expected = new Map<string, number>();
    for (const c of clicks.filter((c) => !c.is_bot)) {
      const key = `${c.publisher_id}|${c.link_id}|${c.program_id}|${c.campaign_id}|${c.subid}|${Math.floor(c.created_at.getTime() / 500)}`;
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }
    const countsOf = (found: ClickCount[]) =>
      new Map(found.map((g) => [`${g.publisher_id}|${g.link_id}|${g.program_id}|${g.campaign_id}|${g.subid}|${Math.floor(g.at / 500)}`, g.n]));
    // Read back as the driver gives it (binary columns), with only the columns counting reads.
    const stored = deserialize(serialize(doc)) as ClickBucketDoc;
    const projected = Object.fromEntries(Object.keys(BUCKET_COUNTING).map((k) => [k, stored[k as keyof ClickBucketDoc]])) as unknown as ClickBucketDoc;
    const found = humanClickCounts(projected, 500);
    expect(found.length).toBe(expected.size);
    expect(countsOf(found)).toEqual(expected);
    // Each group's time is one of its clicks' (in its slot).
    for (const g of found) expect(clicks.some((c) => c.link_id === g.link_id && c.created_at.getTime() === g.at && !c.is_bot)).toBe(true);
    // A bucket of the earlier one-entry-per-target layout counts the same.
    const tm = Buffer.from(doc.tm!);
    const legacy = {
      ...projected,
      lsub: doc.ls.map((_, ti) => doc.lsub[tm.readUInt16LE(6 * ti)]!),
      lc: doc.ls.map((_, ti) => doc.lc[tm.readUInt16LE(6 * ti + 2)]!),
      lp: doc.ls.map((_, ti) => doc.lp[tm.readUInt16LE(6 * ti + 4)]!),
    };
    delete legacy.tm;
    expect(countsOf(humanClickCounts(legacy, 500))).toEqual(expected);
  });

  it('keep the strings as one NUL-separated string, as an array when one holds a NUL, and read buckets of the earlier array layout', async () => {
    const { serialize, deserialize } = await import('bson');
    const clicks = Array.from({ length: 40 }, (_, i) => click(i));
    const doc = packBucket(clicks);
    expect(doc.s).toBeUndefined();
    expect(typeof doc.sj).toBe('string');
    const stored = deserialize(serialize(doc)) as ClickBucketDoc;
    expect(unpackBucket(stored)).toEqual(clicks);
    const { sj, ...rest } = stored;
    expect(unpackBucket({ ...rest, s: sj!.split('\u0000') })).toEqual(clicks);
    const odd = [click(1, { referrer: 'a\u0000b' }), click(2, { user_agent: '' }), click(3)];
    const arrays = packBucket(odd);
    expect(arrays.sj).toBeUndefined();
    expect(unpackBucket(deserialize(serialize(arrays)) as ClickBucketDoc)).toEqual(odd);
  });

  it('keep 16 bytes of a signed id and rebuild it; keep other ids whole and findable (u)', () => {
    const signed = packBucket([click(1), click(2)]);
    expect(signed.id).toBeUndefined();
    expect(signed.u).toBeUndefined();
    expect(signed.k!.length).toBe(32);
    // An unsigned id, and a signed id that does not say what its row says (another time).
    const mixed = [click(1), click(2, { _id: 'clk_legacy_1' }), click(3, { _id: ids.next('lnk0', { isBot: false }, T - 1) })];
    const doc = packBucket(mixed);
    expect(doc.k).toBeUndefined();
    expect(doc.id).toEqual(mixed.map((c) => c._id));
    expect(doc.u).toEqual(['clk_legacy_1', mixed[2]!._id]);
    expect(unpackBucket(doc).map((c) => c._id)).toEqual(mixed.map((c) => c._id));
  });

  it('rebuild an id from its 16 bytes only when it is exactly the id the row gives back', () => {
    // Links of each length mod 3 (the spare bits of the last character differ), and ids holding the url alphabet's - and _.
    const base = ['lnk0', 'lnk01', 'lnk012'].flatMap((link) => Array.from({ length: 30 }, (_, i) => click(i, { link_id: link })));
    const urlChars = base.filter((c) => /[-_]/.test(c._id.slice(4))).slice(0, 6);
    expect(urlChars.length).toBeGreaterThan(0);
    const variants: ClickRow[] = [];
    for (const c of [...base.filter((_, i) => i % 30 < 3), ...urlChars]) {
      const body = c._id.slice(4);
      const last = body.at(-1)!;
      // The same bytes in another spelling: the other alphabet, padding, spare bits set.
      if (/[-_]/.test(body)) variants.push({ ...c, _id: `clk_${body.replace(/-/g, '+').replace(/_/g, '/')}` });
      variants.push({ ...c, _id: `clk_${body}=` });
      // (A length of bytes divisible by 3 leaves no spare bits: another last character is another, valid id.)
      if ((24 + c.link_id.length) % 3)
        variants.push({ ...c, _id: `clk_${body.slice(0, -1)}${last === 'z' ? 'y' : String.fromCharCode(last.charCodeAt(0) + 1)}` });
      // An id that says something else than its row: another link, time or bot flag.
      variants.push({ ...c, link_id: c.link_id === 'lnk0' ? 'lnk1' : 'lnk0' });
      variants.push({ ...c, created_at: new Date(c.created_at.getTime() + 1) });
      variants.push({ ...c, is_bot: !c.is_bot, bot_reason: c.is_bot ? undefined : 'rate' });
    }
    const rows = [...base, ...variants];
    const doc = packBucket(rows);
    expect(unpackBucket(doc).map((c) => c._id)).toEqual(rows.map((c) => c._id));
    // Every variant is kept whole (listed in u, one entry per click); no original is.
    expect(doc.u).toHaveLength(variants.length);
    expect(packBucket(base).u).toBeUndefined();
  });

  it("keep the redirect's address hashes as 16 bytes each, any other hash as a string, and give back '' when read without them", async () => {
    const { serialize, deserialize } = await import('bson');
    const hashed = Array.from({ length: 50 }, (_, i) => click(i, { ip_hash: (i * 7919).toString(16).padStart(32, 'a') }));
    const doc = packBucket(hashed);
    expect(doc.ih!.length).toBe(16 * 50);
    expect(doc.ip).toBeUndefined();
    expect(doc.sj).not.toContain(hashed[3]!.ip_hash);
    // As stored and read back through BSON (the driver's Binary).
    const stored = deserialize(serialize(doc)) as typeof doc;
    expect(unpackBucket(stored)).toEqual(hashed);
    // Demo data's digits, an empty hash, upper case: the whole bucket keeps its hashes as strings.
    const other = [click(1, { ip_hash: '1234567890123456' }), click(2, { ip_hash: '' }), click(3, { ip_hash: 'AB'.repeat(16) })];
    const strings = packBucket(other);
    expect(strings.ih).toBeUndefined();
    expect(unpackBucket(deserialize(serialize(strings)) as typeof doc)).toEqual(other);
    // The clicks list's read leaves the hash column out.
    const { ih: _left, ...listed } = stored;
    expect(unpackBucket(listed).map((c) => c.ip_hash)).toEqual(hashed.map(() => ''));
    expect(unpackBucket(listed).map((c) => ({ ...c, ip_hash: 'x' }))).toEqual(hashed.map((c) => ({ ...c, ip_hash: 'x' })));
  });

  it('are one per publisher and window of a batch, at most 1,000 clicks, the same for the same batch', () => {
    const batch = [
      ...Array.from({ length: 1500 }, (_, i) => click(i, { created_at: new Date(T + (i % 100)) })),
      click(1, { publisher_id: 'pub_b' }),
      click(2, { created_at: new Date(T + BUCKET_WINDOW_MS) }),
      // Back to the first window: into its open bucket.
      click(4, { created_at: new Date(T + 5) }),
    ];
    const buckets = bucketsOf(batch);
    expect(buckets.map((b) => [b.doc.publisher_id, b.doc.n])).toEqual([
      ['pub_a', 1000],
      ['pub_a', 501],
      ['pub_b', 1],
      ['pub_a', 1],
    ]);
    expect(buckets[1]!.rows.at(-1)).toBe(batch.length - 1);
    // Stored under a stats transaction: every bucket carries it, whatever the rows say.
    expect(bucketsOf(batch, 'stx_2').map((b) => b.doc.stats_txn)).toEqual(['stx_2', 'stx_2', 'stx_2', 'stx_2']);
    expect(buckets.flatMap((b) => b.rows).sort((a, b) => a - b)).toEqual(batch.map((_, i) => i));
    for (const b of buckets) expect(b.doc.t1.getTime() - b.doc.t0.getTime()).toBeLessThan(BUCKET_WINDOW_MS);
    expect(bucketsOf(batch).map((b) => b.doc._id)).toEqual(buckets.map((b) => b.doc._id));
    // What a stats transaction names the batch by, known before it is packed: the same ids.
    expect(bucketIdsOf(batch)).toEqual(buckets.map((b) => b.doc._id));
  });

  it('take a small fraction of the bytes of one document per click', async () => {
    const { serialize } = await import('bson');
    const clicks = Array.from({ length: 1000 }, (_, i) => click(i, { ip_hash: `${i % 300}`.padStart(32, '0') }));
    const rows = clicks.reduce((n, c) => n + serialize(c).length, 0);
    const bucket = serialize(packBucket(clicks)).length;
    expect(rows / bucket).toBeGreaterThan(5);
  });
});
