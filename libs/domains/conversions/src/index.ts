export { INTAKE_INPUT, LIST_CONVERSIONS_INPUT, REPORT_INPUT, STATUS_INPUT } from './conversion.schemas';
export { bookLedgerEntry, changeStatus, commissionFor, conversionId, recordSale, saleEvent } from './lifecycle';
export type { RecordedSale } from './lifecycle';
export { conversionReport, conversionView, listConversions } from './reporting.service';
export { accountOverview, accountTop, bucketFor, LINK_TOTALS_INPUT, linkTotals, OVERVIEW_INPUT, TOP_INPUT } from './overview.service';
export { exportSales, listSales, SALE_COLUMNS, SALES_EXPORT_INPUT, SALES_INPUT, SALES_POLICY, salesSummary, subidSales, SUMMARY_INPUT } from './sales.service';
export { CONVERSION_PAGE_SCHEMA, REPORT_SCHEMA } from './conversion.views';
export { CONVERSION_DETAIL_SCHEMA, CONVERSION_EVENT_SCHEMA, getConversion } from './conversion-detail.service';
export { CONVERSION_COLUMNS, CONVERSIONS_EXPORT_INPUT, exportConversions } from './conversions-export.service';
export {
  appendAccountEvents,
  appendPendingEvents,
  eventCursor,
  EventTails,
  EVENTS_INPUT,
  EVENTS_POLICY,
  latestEventCursor,
  listEvents,
  pruneEvents,
  readEventLog,
} from './event-log';
export type { EventsPage, LoggedPage } from './event-log';
export { saleEventBody } from './sale-events';
export type { SaleEventBody } from './sale-events';
export { openEventStream } from './event-stream';
export type { EventStreamDeps } from './event-stream';
export { EVENTS_PAGE_SCHEMA, eventRoutes, SALE_EVENT_SCHEMA } from './event.routes';
export type { EventRoutesOptions } from './event.routes';
export { countAccountChanges, countPendingChanges, recoverClickBatches, STATS_STEPS, storeCountedClicks } from './stats/counting';
export { readFacts, viewFor } from './stats/reader';
export type { Fact, StatsQuery } from './stats/reader';
export { offsetCalendar, UTC_CALENDAR, zoneCalendar } from './stats/calendar';
export type { Calendar } from './stats/calendar';
export { TIMEZONE } from './conversion.schemas';
export { accountFacts, searchSales } from './sale-search.service';
export type { SaleAmountField, SaleCondition, SaleField, SaleSearch, SaleSearchResult, SaleSort, SaleTextField, SaleValue } from './sale-search.service';
export { rebuildStats, upgradeStatsCells } from './stats/rebuild';
export type { RebuildProgress, RebuildResult } from './stats/rebuild';
export { ConversionsData, conversionsDomain } from './data/conversions.data';
export {
  operatorBackfillEvents,
  operatorBackfillOutbox,
  operatorBookLedgerEntry,
  operatorChangeConversionStatus,
  operatorListConversions,
  operatorPruneEvents,
} from './operator.service';
export type { OperatorConversionsDeps } from './operator.service';
export type { ConversionRow } from './data/conversions.data';
export { CONVERSION_STATUSES, SALE_EVENT_TYPES } from './data/conversion.schema';
export type { ConversionDoc, ConversionRecord, ConversionStatus, SaleEventType } from './data/conversion.schema';
export type { EventLogHeadDoc, SaleEventDoc } from './data/sale-event.schema';
export type { StatDoc, StatTxnDoc } from './data/stat.schema';
export type { ConversionsDeps } from './deps';
