import type { AuthData } from '@cw/auth';
import type { CatalogData } from '@cw/catalog';
import type { LinksData } from '@cw/links';
import type { ProgramsData } from '@cw/programs';
import type { UseCaseDeps } from '@cw/usecase';
import type { FeedsData } from './data/feeds.data';

/** The data a feed is cut from: the prepared files, the catalog and the programs. */
export interface FeedSourceData {
  feeds: FeedsData;
  catalog: CatalogData;
  programs: ProgramsData;
}

/** The feed export's use cases: the feed's sources, the accounts and keys that sign feed URLs, and tracked links. */
export type FeedsDeps = UseCaseDeps<FeedSourceData & { auth: AuthData; links: LinksData }>;
