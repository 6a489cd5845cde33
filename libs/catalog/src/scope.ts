import type { Models } from '@cw/db';

/** What a publisher may see in the catalog right now: its feed markets and approved programs. */
export interface CatalogScope {
  markets: string[];
  /** Active programs with an approved assignment. */
  programIds: number[];
}

/** Read on every call: approvals and account settings apply to the very next request. */
export async function catalogScope(models: Models, publisher: { _id: string; markets?: string[] | null }): Promise<CatalogScope> {
  const approved = await models.Membership.find({ publisher_id: publisher._id, status: 'approved' }, { program_id: 1, _id: 0 }).lean();
  const ids = approved.map((m) => m.program_id);
  const active = ids.length ? await models.Program.find({ _id: { $in: ids }, status: 'active' }, { _id: 1 }).lean() : [];
  return { markets: [...(publisher.markets ?? [])], programIds: active.map((p) => Number(p._id)).sort((a, b) => a - b) };
}
