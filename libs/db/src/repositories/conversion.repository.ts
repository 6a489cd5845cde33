import type { Models } from '../models';
import type { ConversionDoc } from '../schemas/conversion.schema';
import { insertManyTolerant } from './bulk';

export type ConversionRow = ConversionDoc & { _id: string };

/** Conversions stored in bulk (the seed's history). */
export class ConversionRepository {
  constructor(private readonly models: Models) {}

  async insertRows(rows: ConversionRow[]): Promise<number> {
    return (await insertManyTolerant(this.models.Conversion.collection, rows as never[])).inserted.size;
  }
}
