/**
 * The catalog domain's data: products (one per GTIN, program and country) and, per market, when
 * its catalog last changed and when its prepared feed files were written (`feed_states`). Other
 * libs reach it through `CatalogData`'s methods; the models stay here.
 */
import type { Model } from 'mongoose';
import { announceAccessChanges, defineDomain, modelVault, insertManyTolerant } from '@cw/db';
import { marketStateSchema, type MarketStateDoc } from './market-state.schema';
import { productSchema, type ProductDoc } from './product.schema';

export type ProductRow = ProductDoc & { _id: string };
export type MarketStateRow = MarketStateDoc & { _id: string };

export interface CatalogModels {
  Product: Model<ProductDoc>;
  MarketState: Model<MarketStateDoc>;
}

announceAccessChanges(productSchema, 'catalog');

const { DomainHandle, open } = modelVault<CatalogModels>('catalog');

export class CatalogData extends DomainHandle {
  /** Inserts rows unordered (the seed); a row whose id is already stored is left as it is. Returns how many were stored. */
  async insertRows(rows: ProductRow[]): Promise<number> {
    return (await insertManyTolerant(open(this).Product.collection, rows as never[])).inserted.size;
  }

  /**
   * A program's fresh products in a market, in id order, at most `limit`, streamed (the feed
   * files' source): only `fields`.
   */
  freshProducts<T>(q: { country: string; programId: number; freshSince: Date; now: Date; limit: number }, fields: Record<string, 1>) {
    return open(this)
      .Product.find({ country: q.country, program_id: q.programId, removed: false, last_seen_at: { $gte: q.freshSince }, fresh_until: { $gt: q.now } }, fields)
      .sort({ _id: 1 })
      .limit(q.limit)
      .lean<T[]>()
      .cursor({ batchSize: 100 });
  }

  /**
   * Whether each of these products is offered now (the link health pass): in the catalog, not
   * removed, fresh (seen within `freshSince`, before its freshness deadline) and not out of stock.
   * Ids not stored are absent from the answer.
   */
  async productStates(ids: string[], now: Date, freshSince: Date): Promise<Map<string, { offered: boolean; country: string }>> {
    if (!ids.length) return new Map();
    const rows = await open(this)
      .Product.find({ _id: { $in: [...new Set(ids)] } }, { availability: 1, removed: 1, last_seen_at: 1, fresh_until: 1, country: 1 })
      .lean<Array<Pick<ProductRow, '_id' | 'availability' | 'removed' | 'last_seen_at' | 'fresh_until' | 'country'>>>();
    return new Map(
      rows.map((r) => [
        r._id,
        {
          offered: !r.removed && r.availability !== 'out_of_stock' && r.last_seen_at >= freshSince && r.fresh_until > now,
          country: r.country,
        },
      ]),
    );
  }

  /**
   * A product's stock and whether it is still served (not removed, seen within `freshSince`, its
   * source's deadline ahead): the GTIN fallback's check of a product link (decision 0063).
   */
  async productState(id: string, q: { freshSince: Date; now: Date }): Promise<{ availability: string; served: boolean } | null> {
    const row = await open(this).Product.findById(id, { availability: 1, removed: 1, last_seen_at: 1, fresh_until: 1 }).lean<ProductRow>();
    if (!row) return null;
    const served = !row.removed && new Date(row.last_seen_at) >= q.freshSince && new Date(row.fresh_until) > q.now;
    return { availability: row.availability, served };
  }

  /**
   * The GTIN's fresh offers in stock in one market at these programs (through the `gtin14` index):
   * what the GTIN fallback chooses from (decision 0063).
   */
  inStockOffers(q: {
    gtin14: string;
    country: string;
    programIds: number[];
    freshSince: Date;
    now: Date;
  }): Promise<Array<Pick<ProductRow, '_id' | 'gtin' | 'program_id' | 'merchant_id' | 'source_url' | 'price' | 'currency'>>> {
    return open(this)
      .Product.find(
        {
          gtin14: q.gtin14,
          country: q.country,
          program_id: { $in: q.programIds },
          availability: 'in_stock',
          removed: false,
          last_seen_at: { $gte: q.freshSince },
          fresh_until: { $gt: q.now },
        },
        { gtin: 1, program_id: 1, merchant_id: 1, source_url: 1, price: 1, currency: 1 },
      )
      .limit(100)
      .lean<Array<Pick<ProductRow, '_id' | 'gtin' | 'program_id' | 'merchant_id' | 'source_url' | 'price' | 'currency'>>>();
  }

  /** Every market's state: when its catalog last changed, when its feed files were written. */
  async marketStates(): Promise<Map<string, MarketStateRow>> {
    return new Map((await open(this).MarketState.find({}).lean<MarketStateRow[]>()).map((s) => [String(s._id), s]));
  }

  /** The market's prepared feed files were written at `at`. */
  async feedFilesWritten(country: string, at: Date): Promise<void> {
    await open(this).MarketState.updateOne({ _id: country }, { $set: { generated_at: at } }, { upsert: true });
  }
}

/** The catalog lib's own models (not exported from the lib). */
export const catalogModels = (data: CatalogData): CatalogModels => open(data);

export const catalogDomain = defineDomain(
  'catalog',
  { Product: [productSchema, 'products'], MarketState: [marketStateSchema, 'feed_states'] },
  (m: CatalogModels) => new CatalogData(m),
);
