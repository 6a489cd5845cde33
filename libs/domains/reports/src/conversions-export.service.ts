/**
 * Every conversion of a GET /conversions/ filter as flat CSV records, newest first: the same
 * filter and order as the list (`conversionsFilter`, `CONVERSIONS_ORDER`), read from one database
 * cursor (`namedRecords`: one document at a time, batches of 250), so memory does not grow with
 * the number of rows. The caller streams the records (`sendDelimited`) and closes the cursor when
 * the client goes away.
 */
import type { Cursor } from 'mongoose';
import { authorize, type Principal } from '@cw/auth';
import type { InputOf } from '@cw/usecase';
import { conversionView, LIST_CONVERSIONS_INPUT, type ConversionRecord } from '@cw/conversions';
import { conversionsFilter, CONVERSIONS_ORDER, listConversions } from './reporting.service';
import { own, type ReportsDeps } from './deps';
import { EXPORT_BATCH, namedRecords, type CsvRecord } from './export-records';

const { date_from, date_to, subid, status, source, updated_since, channel } = LIST_CONVERSIONS_INPUT.properties;

/** The filters of GET /conversions/ without its paging: the export is every row of the filter. */
export const CONVERSIONS_EXPORT_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: { date_from, date_to, subid, status, source, updated_since, channel },
} as const;

/** The CSV's columns: the list's fields, the merchant's id and name in columns of their own. */
export const CONVERSION_COLUMNS = [
  'id',
  'status',
  'subid',
  'sale_amount',
  'commission',
  'currency',
  'merchant_id',
  'merchant_name',
  'program_id',
  'click_id',
  'deeplink_id',
  'source',
  'reason',
  'reversed',
  'occurred_at',
  'updated_at',
] as const;

export function exportConversions(
  deps: ReportsDeps,
  principal: Principal,
  input: InputOf<typeof CONVERSIONS_EXPORT_INPUT>,
): { cursor: Cursor<ConversionRecord>; rows: AsyncGenerator<CsvRecord> } {
  // The list's policy, checked here as its use case does (this is not a use case: it streams).
  authorize(principal, listConversions.policy);
  // Streamed as fast as the client reads, so bounded by the client, not by the request budget.
  const cursor = own(deps)
    .Conversion.find(conversionsFilter(principal, input), { events: 0, order_ref: 0 })
    .sort(Object.fromEntries(CONVERSIONS_ORDER))
    .maxTimeMS(0)
    .lean<ConversionRecord[]>()
    .cursor({ batchSize: EXPORT_BATCH }) as unknown as Cursor<ConversionRecord>;
  const record = (c: ConversionRecord, merchantName: string | undefined): CsvRecord => {
    const v = conversionView(c, merchantName);
    return [
      v.id,
      v.status,
      v.subid,
      v.sale_amount,
      v.commission,
      v.currency,
      v.merchant ? String(v.merchant.id) : null,
      v.merchant?.name ?? null,
      v.program_id === null ? null : String(v.program_id),
      v.click_id,
      v.deeplink_id,
      v.source,
      'reason' in v ? (v.reason ?? null) : null,
      v.reversed ? 'true' : 'false',
      new Date(v.occurred_at).toISOString(),
      new Date(v.updated_at).toISOString(),
    ];
  };
  return { cursor, rows: namedRecords(deps, cursor, record) };
}
