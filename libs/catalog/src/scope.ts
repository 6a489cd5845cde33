import { memoized, type Principal } from '@cw/auth';
import type { ProgramsData } from '@cw/programs';

/** What a publisher may see in the catalog right now: its feed markets and approved programs. */
export interface CatalogScope {
  markets: string[];
  /** Active programs with an approved assignment. */
  programIds: number[];
}

/**
 * Read once per cached principal: its access stamp covers the account's markets, memberships and
 * programs' status, so approvals and account settings still apply to the very next request.
 */
export function catalogScope(programs: ProgramsData, principal: Principal): Promise<CatalogScope> {
  const publisher = principal.publisher;
  return memoized(principal, 'catalog-scope', async () => ({
    markets: [...(publisher.markets ?? [])],
    programIds: await programs.activeApprovedIds(publisher._id),
  }));
}
