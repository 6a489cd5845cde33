/**
 * The events feed's data: the ordered sale-event log (`sale_events`) and each account's head
 * (`event_log_heads`: the log's lease and the stats lease, ./account-lease.ts). The models stay in
 * this lib; the handle has no methods yet (no other domain reads the feed's rows).
 */
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import { eventLogHeadSchema, saleEventLogSchema, type EventLogHeadDoc, type SaleEventDoc } from './sale-event.schema';

export interface EventsFeedModels {
  SaleEvent: Model<SaleEventDoc>;
  EventLogHead: Model<EventLogHeadDoc>;
}

const { DomainHandle, open } = modelVault<EventsFeedModels>('eventsFeed');

export class EventsFeedData extends DomainHandle {}

/** The feed's models, for this lib and the reports (a conversion's detail shows when each event was logged); no other lib. */
export const eventsFeedModels = (data: EventsFeedData): EventsFeedModels => open(data);

export const eventsFeedDomain = defineDomain(
  'eventsFeed',
  {
    SaleEvent: [saleEventLogSchema, 'sale_events'],
    EventLogHead: [eventLogHeadSchema, 'event_log_heads'],
  },
  (m: EventsFeedModels) => new EventsFeedData(m),
);
