import type { AuthData } from '@cw/auth';
import type { AuditData } from '@cw/audit';
import type { PeopleData } from '@cw/people';
import type { ConversionsData } from '@cw/conversions';
import type { EventsFeedData } from '@cw/events-feed';
import type { StatsData } from '@cw/stats';
import type { LinksData } from '@cw/links';
import type { ProgramsData } from '@cw/programs';
import type { UseCaseDeps } from '@cw/usecase';
import { monetizeModels, type MonetizeData, type MonetizeModels } from './data/monetize.data';

/**
 * The monetize lib's use cases: its own applications, the provisional accounts and keys (auth), the
 * programs open to instant links, the links it creates and the stats that show their earnings; the
 * people who claim applications in the portal, and the account's security log.
 */
export type MonetizeDeps = UseCaseDeps<{
  monetize: MonetizeData;
  auth: AuthData;
  programs: ProgramsData;
  links: LinksData;
  conversions: ConversionsData;
  stats: StatsData;
  eventsFeed: EventsFeedData;
  people: PeopleData;
  audit: AuditData;
}>;

/** This lib's own models. */
export const own = (deps: { data: { monetize: MonetizeData } }): MonetizeModels => monetizeModels(deps.data.monetize);
