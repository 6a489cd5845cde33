import type { Principal, PrincipalMemo } from '@cw/auth';
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
export function catalogScope(
  deps: { data: { programs: ProgramsData }; caches: { catalogScopes: PrincipalMemo<CatalogScope> } },
  principal: Principal,
): Promise<CatalogScope> {
  const publisher = principal.publisher;
  const programs = deps.data.programs;
  return deps.caches.catalogScopes.get(principal, async () => ({
    markets: [...(publisher.markets ?? [])],
    programIds: await programs.activeApprovedIds(publisher._id),
  }));
}
