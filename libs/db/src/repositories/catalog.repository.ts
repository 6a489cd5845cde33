import type { Models } from '../models';
import type { ProductDoc } from '../schemas/product.schema';
import { insertManyTolerant } from './bulk';

export type ProductRow = ProductDoc & { _id: string };

/** Catalog rows written in bulk (the seed); merchant feed imports upsert through @cw/catalog. */
export class CatalogRepository {
  constructor(private readonly models: Models) {}

  /** Inserts rows unordered; a row whose id is already stored is left as it is. Returns how many were stored. */
  async insertRows(rows: ProductRow[]): Promise<number> {
    return (await insertManyTolerant(this.models.Product.collection, rows as never[])).inserted.size;
  }
}
