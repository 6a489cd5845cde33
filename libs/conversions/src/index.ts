export { INTAKE_INPUT, LIST_CONVERSIONS_INPUT, REPORT_INPUT, STATUS_INPUT } from './conversion.schemas';
export { bookLedgerEntry, changeStatus, commissionFor, conversionId, recordSale, saleEvent } from './lifecycle';
export type { ConversionRecord, ConversionStatus, RecordedSale } from './lifecycle';
export { isCurrency, minorUnits, moneyIn } from './money';
export { conversionReport, conversionView, CONVERSIONS_POLICY, listConversions, REPORTS_POLICY } from './reporting.service';
export { exportSales, listSales, SALE_COLUMNS, SALES_EXPORT_INPUT, SALES_INPUT, SALES_POLICY, salesSummary, subidSales, SUMMARY_INPUT } from './sales.service';
export { CONVERSION_PAGE_SCHEMA, REPORT_SCHEMA } from './conversion.views';
