import { conversionsModels, type ConversionsData, type ConversionsModels } from '@cw/conversions';
import type { EventsFeedData } from '@cw/events-feed';
import type { LinksData } from '@cw/links';
import type { ProgramsData } from '@cw/programs';
import type { UseCaseDeps } from '@cw/usecase';
import { statsModels, type StatsData, type StatsModels } from './data/stats.data';

/**
 * The read model's use cases: its own data, the conversions it counts, the events log it reads them
 * from and the account leases (kept on the feed's heads), the merchants' names the log's appends
 * write into events, the clicks.
 */
export type StatsDeps = UseCaseDeps<{ conversions: ConversionsData; stats: StatsData; eventsFeed: EventsFeedData; programs: ProgramsData; links: LinksData }>;

/** This lib's own models and the conversions it counts (and marks counted). */
export const own = (deps: { data: { conversions: ConversionsData; stats: StatsData } }): ConversionsModels & StatsModels => ({
  ...conversionsModels(deps.data.conversions),
  ...statsModels(deps.data.stats),
});
