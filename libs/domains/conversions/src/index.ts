// The sales core; the events feed, the stats read model, the reports and the operator's acts are
// the libs @cw/events-feed, @cw/stats, @cw/reports and @cw/conversions-operator (decision record 0047).
export { INTAKE_INPUT, LIST_CONVERSIONS_INPUT, REPORT_INPUT, STATUS_INPUT, TIMEZONE } from './conversion.schemas';
export { bookLedgerEntry, changeStatus, commissionFor, conversionId, recordClickSale, saleEvent } from './lifecycle';
export { recordSale } from './intake';
export type { RecordedSale } from './lifecycle';
export { recordAttributedSale, saleOfOrder } from './attributed-sale';
export type { SaleAttribution } from './attributed-sale';
export { conversionView } from './conversion-view';
export { ConversionsData, conversionsDomain, conversionsModels } from './data/conversions.data';
export type { ConversionRow, ConversionsModels } from './data/conversions.data';
export type { ConversionCounter } from './data/conversions.data';
export { CONVERSION_CHANNELS, CONVERSION_STATUSES, SALE_EVENT_TYPES } from './data/conversion.schema';
export type { AttributionSpendDoc } from './data/attribution-spend.schema';
export type { ConversionChannel, ConversionDoc, ConversionRecord, ConversionStatus, SaleEventType } from './data/conversion.schema';
export type { ConversionsDeps, IntakeDeps } from './deps';
export { judgeToken, tokenOf, VERIFY_ATTRIBUTION_INPUT, verifyAttribution } from './agent-attribution';
export type { TokenProblem } from './agent-attribution';
