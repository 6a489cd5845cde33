/**
 * The links domain's data: tracked links (one per publisher, program, landing URL and sub-ID) and
 * the clicks on them. Other libs reach it through `LinksData`'s methods; the models stay here.
 */
import type { Model } from 'mongoose';
import { CacheNamespace, type CacheSpec } from '@cw/cache';
import { defineDomain, modelVault, insertManyTolerant, mergeSorted, sortedDistinct, type ListPage, type SortedDistinctOptions } from '@cw/db';
import { clickIdParts } from '../click-ids';
import type { BotReason } from '../bot-detection';
import type { LinkRoute } from '../link-routes';
import {
  BUCKET_COUNTING,
  BUCKET_WINDOW_MS,
  BUCKET_WITHOUT_HASHES,
  bucketIdsOf,
  bucketsOf,
  humanClickCounts,
  newestFirst,
  unpackBucket,
  windowEnd,
  type ClickCount,
  type ClickRow,
} from './click-bucket';
import { clickBucketSchema, type ClickBucketDoc } from './click-bucket.schema';
import { DAY_MS, MERGE_SOURCE_MAX, mergedBucket, planMerges, skippedClicks, type BucketSpan } from './click-compaction';
import { clickCompactionSchema, type ClickCompactionDoc } from './click-compaction.schema';
import { clickSchema, type ClickDoc } from './click.schema';
import { linkSchema, type LinkDoc } from './link.schema';

export type LinkRow = Omit<LinkDoc, 'routes'> & { _id: string; routes?: LinkRoute[] | null };

/** What the health pass reads of a link. */
export type HealthLinkRow = Pick<LinkRow, '_id' | 'publisher_id' | 'program_id' | 'landing_url' | 'product' | 'health' | 'check_landing' | 'created_at'>;
const HEALTH_FIELDS = { publisher_id: 1, program_id: 1, landing_url: 1, product: 1, health: 1, check_landing: 1, created_at: 1 } as const;
/** The health pass's write of one link: a new state, or its clicks lost (0 removes them). */
export interface HealthUpdate {
  code: string;
  health?: { state: string; since: Date };
  clicksLost?: number;
}
const UNHEALTHY = ['out_of_stock', 'program_paused', 'program_ended', 'not_approved', 'unreachable'] as const;
export type { ClickCount, ClickRow };

/** The links list's order (the index `{publisher_id, listed, created_at: -1, _id: 1}`). */
export const LINK_LIST_ORDER = [
  ['created_at', -1],
  ['_id', 1],
] as const;

/** The clicks list's order (merged from buckets read by `{publisher_id, t1: -1, _id: 1}`). */
export const CLICK_LIST_ORDER = [
  ['created_at', -1],
  ['_id', 1],
] as const;

export interface ClickFilter {
  publisherId: string;
  subid?: string;
  merchantId?: number;
  linkId?: string;
  includeBots: boolean;
  /** Only clicks flagged for this reason. */
  botReason?: BotReason;
  /** true: only clicks a product link's GTIN fallback answered; false: only the others. */
  fallback?: boolean;
}

/** What the stats read model counts of a click. */
export type CountedClick = Pick<ClickRow, '_id' | 'publisher_id' | 'link_id' | 'program_id' | 'campaign_id' | 'subid' | 'created_at' | 'is_bot' | 'stats_txn'>;
const COUNTED_CLICK = { publisher_id: 1, link_id: 1, program_id: 1, campaign_id: 1, subid: 1, created_at: 1, is_bot: 1, stats_txn: 1 } as const;

export interface LinksModels {
  Link: Model<LinkDoc>;
  ClickBucket: Model<ClickBucketDoc>;
  /** Click rows of the older layout, until `clicks:migrate` has moved them. */
  Click: Model<ClickDoc>;
  /** How far the compaction of each account's clicks has looked. */
  ClickCompaction: Model<ClickCompactionDoc>;
}

/** Wide buckets (the compaction's), settled or not: `{publisher_id, w, t1}` holds only them. */
const WIDE = { $in: [1, 2] as Array<1 | 2> };

/** Link codes this process has seen stored (docs/decisions/0045-one-cache-abstraction.md). */
export const KNOWN_LINKS_CACHE: CacheSpec = {
  name: 'links.knownCodes',
  keeps: 'Link codes this process has seen stored, so a product page does not re-read its links',
  maxEntries: 200_000,
  freshMs: Infinity,
  invalidation: 'Never stale (links are never deleted). `POST /links/` always reads.',
};

/** Whether click rows of the older layout are gone: a count saved while they are. */
export const LEGACY_CLICKS_EMPTY_CACHE: CacheSpec = {
  name: 'links.legacyClicksEmpty',
  keeps: 'That no click rows of the older layout are left (one value, kept only while true)',
  maxEntries: 1,
  freshMs: 60_000,
  invalidation: 'This process moves click rows (`clicks:migrate`).',
};

const { DomainHandle, open } = modelVault<LinksModels>('links');

/** Tracked links by code and the clicks on them: the reads and writes of link creation, listing, redirects and counting. */
export class LinksData extends DomainHandle {
  /** Link codes this process has seen stored. */
  readonly known = new CacheNamespace<string, true>(KNOWN_LINKS_CACHE);

  private get models(): LinksModels {
    return open(this);
  }

  /** True when this process has seen every code stored (no read needed). */
  allKnown(codes: string[]): boolean {
    return codes.every((c) => this.known.get(c) !== undefined);
  }

  /** The codes among these this process has seen stored. */
  knownOf(codes: string[]): Set<string> {
    return new Set(codes.filter((c) => this.known.get(c) !== undefined));
  }

  remember(codes: Iterable<string>): void {
    for (const c of codes) if (!this.known.has(c)) this.known.set(c, true);
  }

  async existingCodes(codes: string[]): Promise<Set<string>> {
    return new Set((await this.models.Link.find({ _id: { $in: codes } }, { _id: 1 }).lean()).map((l) => String(l._id)));
  }

  /** Inserts links; those already stored (a racing request) are not errors. Returns the codes this call stored. */
  async insertNew(docs: LinkRow[]): Promise<Set<string>> {
    const { inserted } = await insertManyTolerant(this.models.Link.collection, docs as never[]);
    return new Set(docs.filter((_, i) => inserted.has(i)).map((d) => d._id));
  }

  async markListed(codes: string[], now: Date): Promise<void> {
    if (codes.length) await this.models.Link.updateMany({ _id: { $in: codes }, listed: false }, { $set: { listed: true, updated_at: now } });
  }

  /** Replaces the routes of these links (an empty list removes them); the redirect sees them within its cache's freshness. */
  async setRoutes(routes: Map<string, LinkRoute[]>, now: Date): Promise<void> {
    if (!routes.size) return;
    await this.models.Link.bulkWrite(
      [...routes].map(([code, r]) => ({
        updateOne: {
          filter: { _id: code },
          update: r.length ? { $set: { routes: r, updated_at: now } } : { $unset: { routes: 1 }, $set: { updated_at: now } },
        },
      })),
      { ordered: false },
    );
  }

  /** Records each link's product where it has none yet (links made before products were recorded: decision 0063). */
  async setProductsWhereMissing(products: Map<string, { id: string; gtin: string; market: string }>): Promise<void> {
    if (!products.size) return;
    await this.models.Link.bulkWrite(
      [...products].map(([code, p]) => ({
        updateOne: { filter: { _id: code, product: { $exists: false } }, update: { $set: { product: { id: p.id, gtin: p.gtin, market: p.market } } } },
      })),
      { ordered: false },
    );
  }

  /** Sets (true or false) or removes (null) links' own fallback switch. */
  async setFallback(fallback: Map<string, boolean | null>, now: Date): Promise<void> {
    if (!fallback.size) return;
    await this.models.Link.bulkWrite(
      [...fallback].map(([code, f]) => ({
        updateOne: {
          filter: { _id: code },
          update: f === null ? { $unset: { fallback: 1 }, $set: { updated_at: now } } : { $set: { fallback: f, updated_at: now } },
        },
      })),
      { ordered: false },
    );
  }

  async byCodes(codes: string[]): Promise<Map<string, LinkRow>> {
    const rows = await this.models.Link.find({ _id: { $in: codes } }).lean<LinkRow[]>();
    return new Map(rows.map((r) => [r._id, r]));
  }

  byCode(code: string): Promise<LinkRow | null> {
    return this.models.Link.findById(code).lean<LinkRow>();
  }

  /** Links created through the links API, newest first (LINK_LIST_ORDER), in `page`'s window. */
  listed(filter: { publisherId: string; subid?: string; merchantId?: number; health?: string }, page: ListPage, limit: number): Promise<LinkRow[]> {
    const q: Record<string, unknown> = { publisher_id: filter.publisherId, listed: true };
    // A link never found unhealthy stores no health: it is ok.
    if (filter.health !== undefined) q['health.state'] = filter.health === 'ok' ? { $in: ['ok', null] } : filter.health;
    if (filter.subid !== undefined) q.subid = filter.subid;
    if (filter.merchantId !== undefined) q.campaign_id = filter.merchantId;
    return this.models.Link.find(page.filter(q)).sort(page.sort).skip(page.skip).limit(limit).lean<LinkRow[]>();
  }

  /** The publisher's links (every one, listed or not), oldest first. */
  linksOfPublisher(publisherId: string): Promise<LinkRow[]> {
    return this.models.Link.find({ publisher_id: publisherId }).sort({ created_at: 1, _id: 1 }).lean<LinkRow[]>();
  }

  /** How many links each of these publishers holds. */
  async linkCounts(publisherIds: string[]): Promise<Map<string, number>> {
    const rows = await this.models.Link.aggregate<{ _id: string; n: number }>([
      { $match: { publisher_id: { $in: publisherIds } } },
      { $group: { _id: '$publisher_id', n: { $sum: 1 } } },
    ]);
    return new Map(rows.map((r) => [r._id, r.n]));
  }

  /** Turns the landing check of link health on (true) or off (false) for these links. */
  async setCheckLanding(checks: Map<string, boolean>, now: Date): Promise<void> {
    if (!checks.size) return;
    await this.models.Link.bulkWrite(
      [...checks].map(([code, on]) => ({
        updateOne: {
          filter: { _id: code },
          update: on ? { $set: { check_landing: true, updated_at: now } } : { $unset: { check_landing: 1 }, $set: { updated_at: now } },
        },
      })),
      { ordered: false },
    );
  }

  /** The health pass's read (../link-health.ts): up to `limit` links after `after` in `_id` order, only the fields it judges. */
  healthBatch(after: string | undefined, limit: number): Promise<HealthLinkRow[]> {
    return this.models.Link.find(after === undefined ? {} : { _id: { $gt: after } }, HEALTH_FIELDS)
      .sort({ _id: 1 })
      .limit(limit)
      .maxTimeMS(0)
      .lean<HealthLinkRow[]>();
  }

  /** The health pass's writes: a new state (`since` with it; clicks lost start again) or a link's clicks lost recounted, in one bulk write. */
  async setHealth(updates: HealthUpdate[]): Promise<void> {
    if (!updates.length) return;
    await this.models.Link.bulkWrite(
      updates.map((u) => ({
        updateOne: {
          filter: { _id: u.code },
          update: u.health
            ? { $set: { health: { state: u.health.state, since: u.health.since } } }
            : u.clicksLost
              ? { $set: { 'health.clicks_lost': u.clicksLost } }
              : { $unset: { 'health.clicks_lost': 1 } },
        },
      })),
      { ordered: false },
    );
  }

  /** The account's links in an unhealthy `state`, after `after` in `_id` order (the index `{publisher_id, health.state, _id}`): the clicks lost recount. */
  inHealthState(publisherId: string, state: string, after: string | undefined, limit: number): Promise<HealthLinkRow[]> {
    const q: Record<string, unknown> = { publisher_id: publisherId, 'health.state': state };
    if (after !== undefined) q._id = { $gt: after };
    return this.models.Link.find(q, HEALTH_FIELDS).sort({ _id: 1 }).limit(limit).maxTimeMS(0).lean<HealthLinkRow[]>();
  }

  /** The account's links not ok that lost clicks, most clicks lost first (the partial index on `health.clicks_lost`). */
  losingClicks(publisherId: string, limit: number): Promise<LinkRow[]> {
    return this.models.Link.find({ publisher_id: publisherId, 'health.clicks_lost': { $exists: true } })
      .sort({ 'health.clicks_lost': -1, _id: 1 })
      .limit(limit)
      .lean<LinkRow[]>();
  }

  /** How many of the account's links are not ok. */
  unhealthyCount(publisherId: string): Promise<number> {
    return this.models.Link.countDocuments({ publisher_id: publisherId, 'health.state': { $in: [...UNHEALTHY] } });
  }

  /** Stores a batch; clicks already stored (a retried, partly written batch) are skipped. Returns how many this call stored. */
  async insertClickBatch(clicks: ClickRow[]): Promise<number> {
    return (await this.insertClickRows(clicks)).size;
  }

  /**
   * Stores a batch in buckets (one per publisher and window, click-bucket.ts) and answers the
   * indexes (in `clicks`) of the clicks this call stored. The same batch makes the same buckets,
   * so a bucket an earlier, partly failed attempt stored is skipped whole, not doubled. `txn`: the
   * stats transaction the batch is stored under (storeClicks), else each click's own.
   */
  async insertClickRows(clicks: ClickRow[], txn?: string): Promise<Set<number>> {
    const buckets = bucketsOf(clicks, txn);
    const { inserted } = await insertManyTolerant(this.models.ClickBucket.collection, buckets.map((b) => b.doc) as never[]);
    return new Set(buckets.flatMap((b, i) => (inserted.has(i) ? b.rows : [])));
  }

  /** Whether click rows of the older layout may be left (not migrated yet); known empty for a minute at a time. */
  readonly legacyEmpty = new CacheNamespace<'all', true>(LEGACY_CLICKS_EMPTY_CACHE);
  private async legacyLeft(): Promise<boolean> {
    if (this.legacyEmpty.get('all')) return false;
    const left = (await this.models.Click.estimatedDocumentCount()) > 0;
    if (!left) this.legacyEmpty.set('all', true);
    return left;
  }

  /**
   * Newest first (CLICK_LIST_ORDER), in `page`'s window; never the address hash. Buckets are read
   * newest first by their last click, a few at a time, and merged: a click is in order once it is
   * newer than the last click of the next bucket. The cost is the page plus the buckets it touches
   * (at a cursor, plus the buckets of the cursor's window), whatever the account's history.
   */
  async listClicks(f: ClickFilter, page: ListPage, limit: number): Promise<ClickRow[]> {
    const need = page.skip + limit;
    const pos = page.after as [Date, string] | undefined;
    const at = pos ? pos[0].getTime() : Infinity;
    const keep = (c: ClickRow) =>
      (f.subid === undefined || c.subid === f.subid) &&
      (f.merchantId === undefined || c.campaign_id === f.merchantId) &&
      (f.linkId === undefined || c.link_id === f.linkId) &&
      (f.includeBots || !c.is_bot) &&
      (f.botReason === undefined || c.bot_reason === f.botReason) &&
      (f.fallback === undefined || (c.fallback_from != null) === f.fallback) &&
      (!pos || c.created_at.getTime() < at || (c.created_at.getTime() === at && c._id > pos[1]));

    const only = { linkId: f.linkId, subid: f.subid, merchantId: f.merchantId, includeBots: f.includeBots };
    let pending: ClickRow[] = [];
    // Rows of before buckets never fell back.
    if (f.fallback !== true && (await this.legacyLeft())) {
      const q: Record<string, unknown> = { publisher_id: f.publisherId };
      if (f.subid !== undefined) q.subid = f.subid;
      if (f.merchantId !== undefined) q.campaign_id = f.merchantId;
      if (f.linkId !== undefined) q.link_id = f.linkId;
      if (!f.includeBots) q.is_bot = false;
      if (f.botReason !== undefined) q.bot_reason = f.botReason;
      pending = await this.models.Click.find(page.filter(q)).sort(page.sort).limit(need).lean<ClickRow[]>();
    }
    const out: ClickRow[] = [];
    const seen = new Set<string>();
    /** Moves the pending clicks newer than `bound` (ms) to `out`, in order. */
    const settle = (bound: number) => {
      pending.sort(newestFirst);
      let i = 0;
      for (; i < pending.length && pending[i]!.created_at.getTime() > bound; i++) {
        const c = pending[i]!;
        if (seen.has(c._id)) continue;
        out.push(c);
        seen.add(c._id);
      }
      pending = pending.slice(i);
    };

    const base: Record<string, unknown> = { publisher_id: f.publisherId };
    // Buckets holding the link, sub-ID and merchant asked for (each through its index); each click is checked by `keep`.
    if (f.linkId !== undefined) base.ls = f.linkId;
    if (f.subid !== undefined) base.lsub = f.subid;
    if (f.merchantId !== undefined) base.lc = f.merchantId;
    if (!f.includeBots) base.h = { $gt: 0 };
    // Only buckets holding a fallback click have the column.
    if (f.fallback === true) base.f = { $exists: true };
    // A bucket holds one window: at a cursor, only buckets ending before the cursor's window ends,
    // and the one wide bucket (a day's, the compaction's) that may end after it and hold clicks before it.
    if (pos) {
      base.t0 = { $lte: pos[0] };
      const wide = await this.wideAfter(f.publisherId, windowEnd(at), BUCKET_WITHOUT_HASHES);
      if (wide && new Date(wide.t0).getTime() <= at) pending.push(...unpackBucket(wide, only).filter(keep));
    }
    let last: { t1: Date; _id: string } | undefined;
    let batch = 2;
    let read = 0;
    let kept = 0;
    while (out.length < need) {
      const q = { ...base };
      if (last) {
        q.t1 = { $lte: last.t1 };
        q.$or = [{ t1: { $lt: last.t1 } }, { t1: last.t1, _id: { $gt: last._id } }];
      } else if (pos) q.t1 = { $lt: new Date(windowEnd(at)) };
      const buckets = await this.models.ClickBucket.find(q, BUCKET_WITHOUT_HASHES).sort(BUCKET_ORDER).limit(batch).lean<ClickBucketDoc[]>();
      for (const b of buckets) {
        settle(new Date(b.t1).getTime());
        if (out.length >= need) break;
        read++;
        const mine = unpackBucket(b, only).filter(keep);
        pending.push(...mine);
        kept += mine.length;
      }
      if (buckets.length < batch) {
        settle(-Infinity);
        break;
      }
      const end = buckets[buckets.length - 1]!;
      last = { t1: end.t1, _id: end._id };
      // As many buckets as the clicks still needed take at the rate seen so far (few clicks per bucket: more a round).
      batch = Math.max(2, Math.min(256, Math.ceil(((need - out.length - pending.length) * read) / Math.max(kept, 1)) + 1));
    }
    return out.slice(page.skip, need);
  }

  /**
   * A stored click by id. A signed id names its link and time: the buckets of that link's
   * publisher in that window. Other ids (older clicks, demo data) through the sparse `u` index.
   * Rows not migrated yet are read where they are.
   */
  async clickById(id: string): Promise<ClickRow | null> {
    const parts = clickIdParts(id);
    if (parts) {
      const link = await this.models.Link.findById(parts.linkId, { publisher_id: 1 }).lean();
      if (link) {
        const t = new Date(parts.at);
        const q = { publisher_id: link.publisher_id, ls: parts.linkId, t1: { $gte: t, $lt: new Date(windowEnd(parts.at)) }, t0: { $lte: t } };
        const found = this.clickIn(await this.models.ClickBucket.find(q).lean<ClickBucketDoc[]>(), id);
        if (found) return found;
        // Or in the wide bucket (a day's) that ends after that window.
        const wide = await this.wideAfter(link.publisher_id, windowEnd(parts.at));
        const inWide = wide && wide.t0 <= t ? this.clickIn([wide], id) : undefined;
        if (inWide) return inWide;
      }
    }
    const found = this.clickIn(await this.models.ClickBucket.find({ u: id }).lean<ClickBucketDoc[]>(), id);
    return found ?? this.models.Click.findById(id).lean<ClickRow>();
  }

  /** The account's first wide bucket ending at or after `at`: the only one that can hold clicks before it (they never overlap). */
  private wideAfter(publisherId: string, at: number, projection?: Record<string, 0>): Promise<ClickBucketDoc | null> {
    return this.models.ClickBucket.findOne({ publisher_id: publisherId, w: WIDE, t1: { $gte: new Date(at) } }, projection)
      .sort({ t1: 1 })
      .lean<ClickBucketDoc>();
  }

  private clickIn(buckets: ClickBucketDoc[], id: string): ClickRow | undefined {
    for (const b of buckets) for (const c of unpackBucket(b)) if (c._id === id) return c;
    return undefined;
  }

  /**
   * What names a batch's stored clicks for `clicksOfBatch`, known before it is stored: the ids of
   * the buckets insertClickRows makes of it (a bucket's id is its first click's), one per publisher
   * and window, not one per click.
   */
  batchIds(clicks: ClickRow[]): string[] {
    return bucketIdsOf(clicks);
  }

  /**
   * The clicks of a batch still marked with its stats transaction (what a dead writer stored),
   * found by `ids`: its buckets' ids (batchIds), or, for a batch stored by an earlier version, every
   * click's id (its buckets' ids among them, and its rows').
   */
  async clicksOfBatch(ids: string[], txn: string): Promise<CountedClick[]> {
    const [buckets, rows] = await Promise.all([
      this.models.ClickBucket.find({ _id: { $in: ids }, stats_txn: txn }).lean<ClickBucketDoc[]>(),
      this.models.Click.find({ _id: { $in: ids }, stats_txn: txn }, COUNTED_CLICK).lean<CountedClick[]>(),
    ]);
    const clicks = new Map<string, CountedClick>();
    for (const c of [...buckets.flatMap((b) => unpackBucket(b)), ...rows]) clicks.set(c._id, c);
    return [...clicks.values()];
  }

  /**
   * The clicks of a batch stored as buckets by insertClickRows (its transaction marked so), found by
   * `ids`, its buckets' ids: how many, and the human ones counted per target and `slotMs` from the
   * buckets' columns (each click is in one of them, once: nothing to dedupe, no click rebuilt).
   */
  async clickCountsOfBatch(ids: string[], txn: string, slotMs: number): Promise<{ clicks: number; counts: ClickCount[] }> {
    const buckets = await this.models.ClickBucket.find({ _id: { $in: ids }, stats_txn: txn }, BUCKET_COUNTING).lean<ClickBucketDoc[]>();
    return { clicks: buckets.reduce((n, b) => n + b.n, 0), counts: buckets.flatMap((b) => humanClickCounts(b, slotMs)) };
  }

  /**
   * The account's human clicks in [from, to), whole UTC days (a wide bucket is within one), streamed
   * (no time budget: a rebuild reads months). Each click once, also while a merge is unsettled
   * (its sources' clicks are read from them); a merge does not run meanwhile (the rebuild and the
   * compaction hold the account's stats lease).
   */
  async *humanClicks(publisherId: string, from: Date, to: Date): AsyncIterable<CountedClick> {
    const f = from.getTime();
    const t = to.getTime();
    if (f % DAY_MS || t % DAY_MS) throw new Error('humanClicks: from and to must be UTC days');
    const buckets = this.models.ClickBucket.find({ publisher_id: publisherId, t1: { $gte: from, $lt: new Date(windowEnd(t)) }, t0: { $lt: to }, h: { $gt: 0 } })
      .maxTimeMS(0)
      .lean<ClickBucketDoc[]>()
      .cursor({ batchSize: 200 }) as AsyncIterable<ClickBucketDoc>;
    for await (const b of buckets)
      for (const c of unpackBucket(b, undefined, b.w === 2 ? skippedClicks(b, await this.existing(publisherId, b.src!)) : undefined)) {
        const at = c.created_at.getTime();
        if (!c.is_bot && at >= f && at < t) yield c;
      }
    yield* this.models.Click.find({ publisher_id: publisherId, created_at: { $gte: from, $lt: to }, is_bot: { $ne: true } }, COUNTED_CLICK)
      .maxTimeMS(0)
      .lean<CountedClick[]>()
      .cursor({ batchSize: 5000 }) as AsyncIterable<CountedClick>;
  }

  /** Which of these bucket ids of the account exist. */
  private async existing(publisherId: string, ids: string[]): Promise<Set<string>> {
    const found = await this.models.ClickBucket.find({ publisher_id: publisherId, _id: { $in: ids } }, { _id: 1 }).lean();
    return new Set(found.map((b) => b._id));
  }

  /** The times of the account's first and last click (since `since`, when given), to the window. */
  async clickSpan(publisherId: string, since?: Date): Promise<Date[]> {
    const at = since ? { $gte: since } : { $exists: true };
    const [first, last, rowFirst, rowLast] = await Promise.all([
      this.models.ClickBucket.findOne({ publisher_id: publisherId, t1: at }, { t0: 1 }).sort({ t1: 1, _id: -1 }).lean(),
      this.models.ClickBucket.findOne({ publisher_id: publisherId, t1: at }, { t1: 1 }).sort({ t1: -1, _id: 1 }).lean(),
      this.models.Click.findOne({ publisher_id: publisherId, created_at: at }, { created_at: 1 }).sort({ created_at: 1 }).lean(),
      this.models.Click.findOne({ publisher_id: publisherId, created_at: at }, { created_at: 1 }).sort({ created_at: -1 }).lean(),
    ]);
    const firstAt = first && since && first.t0 < since ? since : first?.t0;
    const times = [firstAt, last?.t1, rowFirst?.created_at, rowLast?.created_at].filter((d): d is Date => d instanceof Date);
    return times.length ? [new Date(Math.min(...times.map(Number))), new Date(Math.max(...times.map(Number)))] : [];
  }

  /** Every account with links (every click is on one): a scan of the links, far fewer than the clicks. */
  async linkPublishers(): Promise<string[]> {
    return (await this.models.Link.distinct('publisher_id')) as string[];
  }

  /**
   * Merges the account's small buckets (docs/scaling.md): those ending before `before` whose clicks
   * are counted (their stats transaction is not among `openTxns()`, read after them: a transaction
   * is stored before its buckets) are merged in time order into wide buckets (`w: 2`, naming their
   * sources; `settleMerges` deletes those later), from where the last run stopped, `chunk` buckets
   * read at a time. Counts nothing: the clicks were counted. The caller holds the account's stats
   * lease (no rebuild reads meanwhile, no other merge); `renew` is asked between chunks.
   */
  async mergeSmallBuckets(
    publisherId: string,
    opts: {
      before: Date;
      openTxns: () => Promise<Set<string>>;
      now?: Date;
      chunk?: number;
      renew?: () => Promise<boolean>;
      /** After each chunk's merges (the operator's command settles them there when asked to wait for no reader). */
      afterChunk?: () => Promise<void>;
    },
  ): Promise<{ merged: number; buckets: number; clicks: number }> {
    const { ClickBucket, ClickCompaction } = this.models;
    const chunk = opts.chunk ?? 20_000;
    const cutoff = opts.before.getTime();
    const out = { merged: 0, buckets: 0, clicks: 0 };
    const [mark, newest] = await Promise.all([
      ClickCompaction.findById(publisherId).lean(),
      ClickBucket.findOne({ publisher_id: publisherId, w: WIDE }, { t1: 1 }).sort({ t1: -1 }).lean(),
    ]);
    // After what an earlier run decided, and after its last merge (a run that died before saving how far it got).
    let from = Math.max(mark ? new Date(mark.to).getTime() : 0, newest ? windowEnd(new Date(newest.t1).getTime()) : 0);
    while (from < cutoff) {
      const spans = await ClickBucket.find({ publisher_id: publisherId, t1: { $gte: new Date(from), $lt: opts.before } }, { t1: 1, n: 1, w: 1, stats_txn: 1 })
        .sort({ t1: 1, _id: -1 })
        .limit(chunk)
        .maxTimeMS(0)
        .lean<Array<BucketSpan & Pick<ClickBucketDoc, 'w' | 'stats_txn'>>>();
      const more = spans.length === chunk;
      let end = cutoff;
      let seen = spans;
      if (more) {
        // The chunk's last window may go on in the next chunk: it is read again from there.
        const last = Math.floor(new Date(spans.at(-1)!.t1).getTime() / BUCKET_WINDOW_MS) * BUCKET_WINDOW_MS;
        seen = spans.filter((b) => new Date(b.t1).getTime() < last);
        end = seen.length ? last : windowEnd(last);
        if (!seen.length) seen = spans;
      }
      const open = await opts.openTxns();
      const mergeable = seen.filter((b) => !b.w && b.n <= MERGE_SOURCE_MAX && (!b.stats_txn || !open.has(b.stats_txn)));
      const planned = planMerges(mergeable, end, more);
      const { groups } = planned;
      // Decided up to the last bucket seen, not to the cutoff: a bucket stored late (a tracker that
      // held its clicks, `clicks:migrate`) with an earlier time is still merged by a later run.
      const last = seen.at(-1);
      const to = more ? planned.to : Math.min(planned.to, last ? windowEnd(new Date(last.t1).getTime()) : from);
      for (const ids of groups) {
        const found = new Map(
          (
            await ClickBucket.find({ publisher_id: publisherId, _id: { $in: ids } })
              .maxTimeMS(0)
              .lean<ClickBucketDoc[]>()
          ).map((b) => [b._id, b]),
        );
        const sources = ids.map((id) => found.get(id)).filter((b): b is ClickBucketDoc => !!b);
        if (sources.length < 2) continue;
        const merged = mergedBucket(sources, opts.now ?? new Date());
        await insertManyTolerant(ClickBucket.collection, [merged as never]);
        out.merged++;
        out.buckets += sources.length;
        out.clicks += merged.n;
      }
      await ClickCompaction.updateOne({ _id: publisherId }, { $set: { to: new Date(to) } }, { upsert: true });
      await opts.afterChunk?.();
      from = to;
      if (!more) break;
      if (opts.renew && !(await opts.renew())) throw new Error(`the compaction of ${publisherId}'s clicks lost its lease`);
    }
    return out;
  }

  /**
   * Settles the account's merges made before `before`: deletes the sources each names, then marks
   * it settled (`w: 1`). Readers see each click once meanwhile: a list merges clicks by id, and a
   * rebuild reads a merge's clicks only from sources that are gone. `before` leaves a list page
   * that started before a merge the time to read its sources. Answers how many it settled.
   */
  async settleMerges(publisherId: string, before: Date): Promise<number> {
    const { ClickBucket } = this.models;
    const merges = await ClickBucket.find({ publisher_id: publisherId, w: 2, merged_at: { $lte: before } }, { src: 1 })
      .maxTimeMS(0)
      .lean<Array<Pick<ClickBucketDoc, '_id' | 'src'>>>();
    for (const m of merges) {
      await ClickBucket.deleteMany({ publisher_id: publisherId, _id: { $in: m.src ?? [] }, w: { $exists: false } });
      await ClickBucket.updateOne({ _id: m._id, publisher_id: publisherId }, { $set: { w: 1 }, $unset: { src: 1, srcn: 1, merged_at: 1 } });
    }
    return merges.length;
  }

  /** Every account with clicks, in id order, listed page by page (`sortedDistinct`: no reply holds them all); `after`: those after it. */
  clickPublishers(opts: SortedDistinctOptions = {}): AsyncGenerator<string> {
    return mergeSorted([
      sortedDistinct(this.models.ClickBucket.collection, 'publisher_id', {}, opts),
      sortedDistinct(this.models.Click.collection, 'publisher_id', {}, opts),
    ]);
  }

  /** Every stored click of a publisher or of a link, unordered, address hash included (operators, tests, benches). */
  async storedClicks(f: { publisherId?: string; linkId?: string }): Promise<ClickRow[]> {
    const q: Record<string, unknown> = {};
    if (f.publisherId !== undefined) q.publisher_id = f.publisherId;
    if (f.linkId !== undefined) q.ls = f.linkId;
    const rq: Record<string, unknown> = { ...q };
    delete rq.ls;
    if (f.linkId !== undefined) rq.link_id = f.linkId;
    const [buckets, rows] = await Promise.all([
      this.models.ClickBucket.find(q).maxTimeMS(0).lean<ClickBucketDoc[]>(),
      this.models.Click.find(rq).maxTimeMS(0).lean<ClickRow[]>(),
    ]);
    const clicks = new Map<string, ClickRow>();
    for (const c of [...buckets.flatMap((b) => unpackBucket(b)), ...rows]) if (f.linkId === undefined || c.link_id === f.linkId) clicks.set(c._id, c);
    return [...clicks.values()];
  }

  /**
   * Moves click rows of the older layout (one document per click) into buckets, `batch` rows at a
   * time in index order, while the tracker writes new buckets. Each step inserts the buckets of a
   * batch and then deletes their rows; a bucket an interrupted run already stored (same first
   * click, same id) is kept as stored and its own clicks' rows are deleted, so a crash anywhere
   * loses and doubles nothing and the next run resumes where it stopped. Reads merge what is left
   * meanwhile (a click present in both is shown once). Counts nothing: the rows were counted.
   */
  async migrateClickRows(opts: { batch?: number; onProgress?: (moved: number, left: number) => void; beforeDelete?: () => Promise<void> } = {}) {
    const batch = opts.batch ?? 5000;
    let moved = 0;
    let buckets = 0;
    for (;;) {
      const rows = await this.models.Click.find({}).sort({ publisher_id: 1, created_at: -1, _id: 1 }).limit(batch).maxTimeMS(0).lean<ClickRow[]>();
      if (!rows.length) break;
      const made = bucketsOf(
        rows.map((r) => ({ ...r, subid: r.subid ?? '', user_agent: r.user_agent ?? '', ip_hash: r.ip_hash ?? '', referrer: r.referrer ?? '' })),
      );
      const { inserted } = await insertManyTolerant(this.models.ClickBucket.collection, made.map((b) => b.doc) as never[]);
      const ids = made.flatMap((b, i) => (inserted.has(i) ? b.rows.map((r) => rows[r]!._id) : []));
      const earlier = made.filter((_, i) => !inserted.has(i)).map((b) => b.doc._id);
      if (earlier.length)
        for (const b of await this.models.ClickBucket.find({ _id: { $in: earlier } }).lean<ClickBucketDoc[]>()) ids.push(...unpackBucket(b).map((c) => c._id));
      buckets += inserted.size;
      await opts.beforeDelete?.();
      const { deletedCount } = await this.models.Click.deleteMany({ _id: { $in: ids } });
      moved += deletedCount;
      opts.onProgress?.(moved, await this.models.Click.estimatedDocumentCount());
    }
    this.legacyEmpty.clear();
    return { moved, buckets };
  }
}

/** The order buckets are read in: newest last click first. */
const BUCKET_ORDER = { t1: -1, _id: 1 } as const;

/** The links lib's own models (not exported from the lib). */
export const linksModels = (data: LinksData): LinksModels => open(data);

export const linksDomain = defineDomain(
  'links',
  {
    Link: [linkSchema, 'links'],
    ClickBucket: [clickBucketSchema, 'click_buckets'],
    Click: [clickSchema, 'clicks'],
    ClickCompaction: [clickCompactionSchema, 'click_compactions'],
  },
  (m: LinksModels) => new LinksData(m),
);
