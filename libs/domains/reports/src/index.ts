export { conversionReport, listConversions } from './reporting.service';
export { accountOverview, accountTop, bucketFor, LINK_TOTALS_INPUT, linkTotals, OVERVIEW_INPUT, TOP_INPUT } from './overview.service';
export { exportSales, listSales, SALE_COLUMNS, SALES_EXPORT_INPUT, SALES_INPUT, SALES_POLICY, salesSummary, subidSales, SUMMARY_INPUT } from './sales.service';
export { CONVERSION_PAGE_SCHEMA, REPORT_SCHEMA } from './conversion.views';
export { CONVERSION_DETAIL_SCHEMA, CONVERSION_EVENT_SCHEMA, getConversion } from './conversion-detail.service';
export { CONVERSION_COLUMNS, CONVERSIONS_EXPORT_INPUT, exportConversions } from './conversions-export.service';
export { accountFacts, searchSales } from './sale-search.service';
export type { SaleAmountField, SaleCondition, SaleField, SaleSearch, SaleSearchResult, SaleSort, SaleTextField, SaleValue } from './sale-search.service';
export type { ReportsDeps } from './deps';
