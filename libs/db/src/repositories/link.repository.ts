import type { Models } from '../models';
import type { LinkDoc } from '../schemas/link.schema';
import { insertManyTolerant } from './bulk';
import type { ListPage } from './list-page';

export type LinkRow = LinkDoc & { _id: string };

/** The links list's order (the index `{publisher_id, listed, created_at: -1, _id: 1}`). */
export const LINK_LIST_ORDER = [
  ['created_at', -1],
  ['_id', 1],
] as const;

/** A bounded set of link codes known to be stored (links are never deleted). */
const KNOWN_MAX = 200_000;

/** Tracked links by code: the reads and writes of link creation, listing and redirects. */
export class LinkRepository {
  private known = new Set<string>();

  constructor(private readonly models: Models) {}

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
  listed(filter: { publisherId: string; subid?: string; campaignId?: number }, page: ListPage, limit: number): Promise<LinkRow[]> {
    const q: Record<string, unknown> = { publisher_id: filter.publisherId, listed: true };
    if (filter.subid !== undefined) q.subid = filter.subid;
    if (filter.campaignId !== undefined) q.campaign_id = filter.campaignId;
    return this.models.Link.find(page.filter(q)).sort(page.sort).skip(page.skip).limit(limit).lean<LinkRow[]>();
  }
}
