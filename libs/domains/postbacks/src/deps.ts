import type { AuditData } from '@cw/audit';
import type { ConversionsData } from '@cw/conversions';
import type { EventsFeedData } from '@cw/events-feed';
import type { ProgramsData } from '@cw/programs';
import type { UseCaseDeps } from '@cw/usecase';
import { postbacksModels, type PostbacksData, type PostbacksModels } from './data/postbacks.data';

/**
 * The postbacks lib's use cases: its own data, the conversions whose events it delivers, the events
 * log (its other events, read from the `postbacks` checkpoint), merchant names, the security log of
 * configuration changes.
 */
export type PostbacksDeps = UseCaseDeps<{
  postbacks: PostbacksData;
  conversions: ConversionsData;
  eventsFeed: EventsFeedData;
  programs: ProgramsData;
  audit: AuditData;
}>;

/** This lib's own models. */
export const own = (deps: { data: { postbacks: PostbacksData } }): PostbacksModels => postbacksModels(deps.data.postbacks);
