import type { Models } from '../models';
import type { PublisherDoc } from '../schemas/publisher.schema';

export type PublisherRow = PublisherDoc & { _id: string };
export type PublisherInput = Pick<PublisherDoc, 'name'> & Partial<PublisherDoc> & { _id: string };

/** Publisher accounts: created and changed by operators and the seed, read by authentication. */
export class PublisherRepository {
  constructor(private readonly models: Models) {}

  /** Creates accounts through the schema (defaults and validation), in one write. */
  async create(accounts: PublisherInput[]): Promise<void> {
    await this.models.Publisher.insertMany(accounts);
  }

  byId(id: string): Promise<PublisherRow | null> {
    return this.models.Publisher.findById(id).lean<PublisherRow>();
  }

  /** Sets fields of an account; false when it does not exist. */
  async update(id: string, fields: Partial<PublisherDoc>): Promise<boolean> {
    const r = await this.models.Publisher.updateOne({ _id: id }, { $set: { ...fields, updated_at: new Date() } });
    return r.matchedCount === 1;
  }
}
