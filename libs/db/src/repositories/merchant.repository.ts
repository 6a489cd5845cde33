import type { Models } from '../models';
import type { MerchantDoc } from '../schemas/merchant.schema';

export type MerchantInput = Pick<MerchantDoc, 'name'> & Partial<MerchantDoc> & { _id: number };

const NAME_TTL_MS = 60_000;

/**
 * Merchant display names, the one place they are read: cached per process for a minute (a
 * renamed merchant shows within 60 s), so product and program pages do not read them each time.
 */
export class MerchantRepository {
  private readonly names = new Map<number, { name: string; expires: number }>();

  constructor(private readonly models: Models) {}

  /** Creates merchants through the schema, in one write. */
  async create(merchants: MerchantInput[]): Promise<void> {
    await this.models.Merchant.insertMany(merchants);
  }

  async exists(id: number): Promise<boolean> {
    return !!(await this.models.Merchant.exists({ _id: id }));
  }

  async namesOf(ids: number[], now = Date.now()): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    const missing: number[] = [];
    for (const id of new Set(ids)) {
      const hit = this.names.get(id);
      if (hit && hit.expires > now) out.set(id, hit.name);
      else missing.push(id);
    }
    if (missing.length) {
      for (const m of await this.models.Merchant.find({ _id: { $in: missing } }, { name: 1 }).lean()) {
        out.set(Number(m._id), m.name);
        this.names.set(Number(m._id), { name: m.name, expires: now + NAME_TTL_MS });
      }
    }
    return out;
  }
}
