/**
 * Merchant display names for product responses, cached per process for NAME_TTL_MS: names are
 * display-only (no access decision depends on them), so a rename shows within a minute.
 */
import type { Models } from '@cw/db';

const NAME_TTL_MS = 60_000;

export class MerchantNames {
  private names = new Map<number, { name: string; expires: number }>();

  constructor(private readonly models: Models) {}

  async get(ids: number[], now = Date.now()): Promise<Map<number, string>> {
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
