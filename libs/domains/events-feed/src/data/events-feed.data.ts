/**
 * The events feed's data: the ordered sale-event log (`sale_events`) and each account's head
 * (`event_log_heads`: the log's lease and the stats lease, ./account-lease.ts). The models stay in
 * this lib; the handle holds the registered event sources (other domains' events, ../event-sources.ts).
 */
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import type { EventSource } from '../event-sources';
import { eventLogHeadSchema, saleEventLogSchema, type EventLogHeadDoc, type SaleEventDoc } from './sale-event.schema';

export interface EventsFeedModels {
  SaleEvent: Model<SaleEventDoc>;
  EventLogHead: Model<EventLogHeadDoc>;
}

const { DomainHandle, open } = modelVault<EventsFeedModels>('eventsFeed');

export class EventsFeedData extends DomainHandle {
  private readonly sources: EventSource[] = [];

  /** Registers a producer of events other than the sale events (the composition root; ../event-sources.ts). */
  addEventSource(source: EventSource): void {
    if (this.sources.some((s) => s.name === source.name)) throw new Error(`event source ${source.name} is registered already`);
    this.sources.push(source);
  }

  /** The registered sources, in registration order. */
  eventSources(): readonly EventSource[] {
    return this.sources;
  }
}

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
