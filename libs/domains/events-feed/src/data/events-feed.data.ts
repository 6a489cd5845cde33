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

  /**
   * When the oldest logged event a consumer has not read was made, over the accounts it is behind on
   * (at most `accounts` of them; null: none waiting): the operator's measure of its lag (postbacks:
   * `outbox_oldest_pending_seconds`). Events not logged yet are not in it (the dispatch round appends them first).
   */
  async oldestUnread(consumer: string, maxTimeMs: number, accounts = 200): Promise<Date | null> {
    const heads = await open(this)
      .EventLogHead.find({ [`behind.${consumer}`]: true }, { consumed: 1 })
      .limit(accounts)
      .maxTimeMS(maxTimeMs)
      .lean<Array<{ _id: string; consumed?: Record<string, number> }>>();
    if (!heads.length) return null;
    const first = await open(this)
      .SaleEvent.findOne({ $or: heads.map((h) => ({ publisher_id: h._id, seq: (h.consumed?.[consumer] ?? 0) + 1 })) }, { created_at: 1 })
      .sort({ created_at: 1 })
      .maxTimeMS(maxTimeMs)
      .lean<{ created_at: Date }>();
    return first ? new Date(first.created_at) : null;
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
