import { conversionsModels, type ConversionsData, type ConversionsModels } from '@cw/conversions';
import type { ProgramsData } from '@cw/programs';
import type { UseCaseDeps } from '@cw/usecase';
import { eventsFeedModels, type EventsFeedData, type EventsFeedModels } from './data/events-feed.data';

/** The events feed's use cases: its own data, the conversions it logs, the merchants' names. */
export type EventsFeedDeps = UseCaseDeps<{ conversions: ConversionsData; eventsFeed: EventsFeedData; programs: ProgramsData }>;

/** This lib's own models and the conversions it reads and flags. */
export const own = (deps: { data: { conversions: ConversionsData; eventsFeed: EventsFeedData } }): ConversionsModels & EventsFeedModels => ({
  ...conversionsModels(deps.data.conversions),
  ...eventsFeedModels(deps.data.eventsFeed),
});
