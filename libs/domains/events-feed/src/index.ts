export {
  appendAccountEvents,
  appendPendingEvents,
  eventCursor,
  EVENT_TAILS_CACHE,
  EventTails,
  EVENTS_INPUT,
  EVENTS_POLICY,
  latestEventCursor,
  listEvents,
  pruneEvents,
  readEventLog,
} from './event-log';
export type { EventsPage, EventsView, LoggedPage } from './event-log';
export { hiddenEventTypes } from './event-visibility';
export { saleEventBody } from './sale-events';
export type { SaleEventBody } from './sale-events';
export { openEventStream } from './event-stream';
export type { EventStreamDeps } from './event-stream';
export { EVENTS_PAGE_SCHEMA, eventRoutes, FEED_EVENT_SCHEMA, SALE_EVENT_SCHEMA } from './event.routes';
export type { EventSource, PendingRow, SourceEvent } from './event-sources';
export {
  DEFAULT_POSTBACK_EVENT_TYPES,
  EVENT_TYPES,
  eventEnvelope,
  isSaleEventType,
  INQUIRY_EVENT_SCHEMA,
  INQUIRY_EVENT_TYPES,
  PAYOUT_EVENT_SCHEMA,
  PAYOUT_VIEW_SCHEMA,
  PAYOUT_EVENT_TYPES,
  SALE_EVENT_TYPES,
} from './event-types';
export type { AccountEventBody, EventType, FeedEventBody, PayoutEventBody } from './event-types';
export type { EventRoutesOptions } from './event.routes';
export { withAccountLease } from './account-lease';
export {
  accountsBehind,
  consumeAccountEvents,
  consumerCheckpoint,
  EVENT_CONSUMERS,
  eventsAfterCheckpoint,
  moveCheckpoint,
  oldestUnreadSaleEvent,
} from './consumers';
export type { ConsumedEvent, EventConsumer } from './consumers';
export type { AccountLease } from './account-lease';
export { EventsFeedData, eventsFeedDomain, eventsFeedModels } from './data/events-feed.data';
export type { EventsFeedModels } from './data/events-feed.data';
export type { EventLogHeadDoc, SaleEventDoc } from './data/sale-event.schema';
export type { EventsFeedDeps } from './deps';
