/**
 * The links domain's data: tracked links (one per publisher, program, landing URL and sub-ID) and
 * the clicks on them. Other libs reach it through `LinksData`'s methods; the models stay here.
 */
import type { Model } from 'mongoose';
import { defineDomain, modelVault, insertManyTolerant, type ListPage } from '@cw/db';
import { clickSchema, type ClickDoc } from './click.schema';
import { linkSchema, type LinkDoc } from './link.schema';

export type LinkRow = LinkDoc & { _id: string };
export type ClickRow = ClickDoc & { _id: string };

/** The links list's order (the index `{publisher_id, listed, created_at: -1, _id: 1}`). */
export const LINK_LIST_ORDER = [
  ['created_at', -1],
  ['_id', 1],
] as const;

/** The clicks list's order (the index `{publisher_id, created_at: -1, _id: 1}`). */
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
}

/** What the stats read model counts of a click. */
export type CountedClick = Pick<ClickRow, '_id' | 'publisher_id' | 'link_id' | 'program_id' | 'campaign_id' | 'subid' | 'created_at' | 'is_bot' | 'stats_txn'>;
const COUNTED_CLICK = { publisher_id: 1, link_id: 1, program_id: 1, campaign_id: 1, subid: 1, created_at: 1, is_bot: 1, stats_txn: 1 } as const;

export interface LinksModels {
  Link: Model<LinkDoc>;
  Click: Model<ClickDoc>;
}

/** A bounded set of link codes known to be stored (links are never deleted). */
const KNOWN_MAX = 200_000;

const { DomainHandle, open } = modelVault<LinksModels>('links');

/** Tracked links by code and the clicks on them: the reads and writes of link creation, listing, redirects and counting. */
export class LinksData extends DomainHandle {
  /** Link codes this process has seen stored (docs/decisions.md "Caches"). */
  private known = new Set<string>();

  private get models(): LinksModels {
    return open(this);
  }

  /** True when this process has seen every code stored (no read needed). */
  allKnown(codes: string[]): boolean {
    return codes.every((c) => this.known.has(c));
  }

  /** The codes among these this process has seen stored. */
  knownOf(codes: string[]): Set<string> {
    return new Set(codes.filter((c) => this.known.has(c)));
  }

  remember(codes: Iterable<string>): void {
    for (const c of codes) {
      if (this.known.size >= KNOWN_MAX) this.known.clear();
      this.known.add(c);
    }
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

  async byCodes(codes: string[]): Promise<Map<string, LinkRow>> {
    const rows = await this.models.Link.find({ _id: { $in: codes } }).lean<LinkRow[]>();
    return new Map(rows.map((r) => [r._id, r]));
  }

  byCode(code: string): Promise<LinkRow | null> {
    return this.models.Link.findById(code).lean<LinkRow>();
  }

  /** Links created through the links API, newest first (LINK_LIST_ORDER), in `page`'s window. */
  listed(filter: { publisherId: string; subid?: string; merchantId?: number }, page: ListPage, limit: number): Promise<LinkRow[]> {
    const q: Record<string, unknown> = { publisher_id: filter.publisherId, listed: true };
    if (filter.subid !== undefined) q.subid = filter.subid;
    if (filter.merchantId !== undefined) q.campaign_id = filter.merchantId;
    return this.models.Link.find(page.filter(q)).sort(page.sort).skip(page.skip).limit(limit).lean<LinkRow[]>();
  }

  /** Stores a batch; clicks already stored (a retried, partly written batch) are skipped. Returns how many this call stored. */
  async insertClickBatch(clicks: ClickRow[]): Promise<number> {
    return (await this.insertClickRows(clicks)).size;
  }

  /** As insertBatch; answers the indexes (in `clicks`) of the clicks this call stored. */
  async insertClickRows(clicks: ClickRow[]): Promise<Set<number>> {
    return (await insertManyTolerant(this.models.Click.collection, clicks as never[])).inserted;
  }

  /** Newest first (CLICK_LIST_ORDER), in `page`'s window; never the address hash. */
  listClicks(f: ClickFilter, page: ListPage, limit: number): Promise<ClickRow[]> {
    const q: Record<string, unknown> = { publisher_id: f.publisherId };
    if (f.subid !== undefined) q.subid = f.subid;
    if (f.merchantId !== undefined) q.campaign_id = f.merchantId;
    if (f.linkId !== undefined) q.link_id = f.linkId;
    if (!f.includeBots) q.is_bot = false;
    return this.models.Click.find(page.filter(q), { ip_hash: 0 }).sort(page.sort).skip(page.skip).limit(limit).lean<ClickRow[]>();
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

  /** A stored click (older click ids carry no claims: a sale is attributed from the row). */
  clickById(id: string): Promise<ClickRow | null> {
    return this.models.Click.findById(id).lean<ClickRow>();
  }

  /** The clicks of a batch still marked with its stats transaction (what a dead writer stored). */
  clicksOfBatch(ids: string[], txn: string): Promise<CountedClick[]> {
    return this.models.Click.find({ _id: { $in: ids }, stats_txn: txn }, COUNTED_CLICK).lean<CountedClick[]>();
  }

  /** The account's human clicks in [from, to), streamed (no time budget: a rebuild reads months). */
  humanClicks(publisherId: string, from: Date, to: Date): AsyncIterable<CountedClick> {
    return this.models.Click.find({ publisher_id: publisherId, created_at: { $gte: from, $lt: to }, is_bot: { $ne: true } }, COUNTED_CLICK)
      .maxTimeMS(0)
      .lean<CountedClick[]>()
      .cursor({ batchSize: 5000 }) as AsyncIterable<CountedClick>;
  }

  /** The times of the account's first and last click (since `since`, when given). */
  async clickSpan(publisherId: string, since?: Date): Promise<Date[]> {
    const at = since ? { $gte: since } : { $exists: true };
    const [first, last] = await Promise.all([
      this.models.Click.findOne({ publisher_id: publisherId, created_at: at }, { created_at: 1 }).sort({ created_at: 1 }).lean(),
      this.models.Click.findOne({ publisher_id: publisherId, created_at: at }, { created_at: 1 }).sort({ created_at: -1 }).lean(),
    ]);
    return [first?.created_at, last?.created_at].filter((d): d is Date => d instanceof Date);
  }

  /** Every account with clicks. */
  async clickPublishers(): Promise<string[]> {
    return (await this.models.Click.distinct('publisher_id')) as string[];
  }
}

/** The links lib's own models (not exported from the lib). */
export const linksModels = (data: LinksData): LinksModels => open(data);

export const linksDomain = defineDomain('links', { Link: [linkSchema, 'links'], Click: [clickSchema, 'clicks'] }, (m: LinksModels) => new LinksData(m));
