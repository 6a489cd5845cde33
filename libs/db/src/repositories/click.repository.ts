import type { Models } from '../models';
import type { ClickDoc } from '../schemas/click.schema';
import { insertManyTolerant } from './bulk';
import type { ListPage } from './list-page';

export type ClickRow = ClickDoc & { _id: string };

/** The clicks list's order (the index `{publisher_id, created_at: -1, _id: 1}`). */
export const CLICK_LIST_ORDER = [
  ['created_at', -1],
  ['_id', 1],
] as const;

export interface ClickFilter {
  publisherId: string;
  subid?: string;
  campaignId?: number;
  linkId?: string;
  includeBots: boolean;
}

export class ClickRepository {
  constructor(private readonly models: Models) {}

  /** Stores a batch; clicks already stored (a retried, partly written batch) are skipped. Returns how many this call stored. */
  async insertBatch(clicks: ClickRow[]): Promise<number> {
    return (await this.insertRows(clicks)).size;
  }

  /** As insertBatch; answers the indexes (in `clicks`) of the clicks this call stored. */
  async insertRows(clicks: ClickRow[]): Promise<Set<number>> {
    return (await insertManyTolerant(this.models.Click.collection, clicks as never[])).inserted;
  }

  /** Newest first (CLICK_LIST_ORDER), in `page`'s window; never the address hash. */
  list(f: ClickFilter, page: ListPage, limit: number): Promise<ClickRow[]> {
    const q: Record<string, unknown> = { publisher_id: f.publisherId };
    if (f.subid !== undefined) q.subid = f.subid;
    if (f.campaignId !== undefined) q.campaign_id = f.campaignId;
    if (f.linkId !== undefined) q.link_id = f.linkId;
    if (!f.includeBots) q.is_bot = false;
    return this.models.Click.find(page.filter(q), { ip_hash: 0 }).sort(page.sort).skip(page.skip).limit(limit).lean<ClickRow[]>();
  }
}
