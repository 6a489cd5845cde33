import type { ProgramRepository } from '@cw/db';

/** What a publisher may see in the catalog right now: its feed markets and approved programs. */
export interface CatalogScope {
  markets: string[];
  /** Active programs with an approved assignment. */
  programIds: number[];
}

/** Read on every call: approvals and account settings apply to the very next request. */
export async function catalogScope(programs: ProgramRepository, publisher: { _id: string; markets?: string[] | null }): Promise<CatalogScope> {
  return { markets: [...(publisher.markets ?? [])], programIds: await programs.activeApprovedIds(publisher._id) };
}
