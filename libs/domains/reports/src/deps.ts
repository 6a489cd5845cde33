import { conversionsModels, type ConversionsData, type ConversionsModels } from '@cw/conversions';
import { eventsFeedModels, type EventsFeedData, type EventsFeedModels } from '@cw/events-feed';
import type { ProgramsData } from '@cw/programs';
import type { StatsDeps } from '@cw/stats';
import type { UseCaseDeps } from '@cw/usecase';

/** The reports' use cases: the read model's deps (the conversions, its cells, the leases, the clicks) and the merchants' names. */
export type ReportsDeps = StatsDeps & UseCaseDeps<{ programs: ProgramsData }>;

/** The conversion rows the lists, the detail and the export read; the feed's rows a conversion's detail reads. */
export const own = (deps: { data: { conversions: ConversionsData; eventsFeed: EventsFeedData } }): ConversionsModels & EventsFeedModels => ({
  ...conversionsModels(deps.data.conversions),
  ...eventsFeedModels(deps.data.eventsFeed),
});
