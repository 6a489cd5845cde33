/**
 * Sales as third-party reporting tools read them (the reporting-token API): the account's sales
 * (merchant-reported conversions, never ledger entries), one row shape for the JSON pages and the
 * CSV export, the per-sale sub-ID list, and a summary with clicks, conversion rate and EPC.
 * Money is exact (Decimal128 summed in the database, decimal strings out).
 */
import type { Cursor } from 'mongoose';
import type { Policy, Principal } from '@cw/auth';
import { ApiError } from '@cw/errors';
import { addDecimals, divideDecimals, formatDecimal, moneyIn, parseDecimal } from '@cw/money';
import { useCase, CURSOR_PAGING, pageWindow, type InputOf, type ListSort } from '@cw/usecase';
import { TIMEZONE, type ConversionRecord } from '@cw/conversions';
import { addDays, countedAsOf, daysBetween, nextDay, readFacts, zoneCalendar, type Calendar } from '@cw/stats';
import { channelGroups, CHANNELS } from './channels.service';
import { own, type ReportsDeps } from './deps';
import { EXPORT_BATCH, namedRecords, type CsvRecord } from './export-records';

/** The reporting token only, with its own per-account budget. */
export const SALES_POLICY: Policy = { budget: 'reportingToken', credentials: ['reporting_token'] };

const DAY_MS = 86_400_000;
const DAY = { type: 'string', format: 'date', description: 'UTC day, YYYY-MM-DD (inclusive).' } as const;

const FILTERS = {
  date_from: DAY,
  date_to: DAY,
  status: { type: 'string', enum: ['pending', 'approved', 'declined'] },
  sub_id: { type: 'string', pattern: '^[A-Za-z0-9._~-]{1,100}$' },
  merchant: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'Merchant (campaign) id.' },
} as const;

export const SALES_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: { ...FILTERS, ...CURSOR_PAGING, page_size: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
} as const;

export const SALES_EXPORT_INPUT = { type: 'object', additionalProperties: false, properties: FILTERS } as const;

export const SUMMARY_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...FILTERS,
    group_by: {
      type: 'string',
      enum: ['subid', 'day', 'merchant', 'channel'],
      default: 'subid',
      description:
        'channel: link, code, agent, inquiry (how each sale was attributed; clicks are the link channel’s). It covers at most 366 days: without date_from, the 366 days to date_to.',
    },
    timezone: TIMEZONE,
  },
} as const;

type Filters = InputOf<typeof SALES_EXPORT_INPUT>;

function salesFilter(principal: Principal, input: Filters): Record<string, unknown> {
  if (input.date_from && input.date_to && input.date_from > input.date_to) {
    throw new ApiError({
      code: 'invalid_parameter',
      detail: "Invalid parameter 'date_from': must not be after date_to.",
      errors: [{ param: 'date_from', detail: 'must not be after date_to' }],
    });
  }
  const filter: Record<string, unknown> = { publisher_id: principal.publisher._id, source: 'v1' };
  if (input.date_from || input.date_to) {
    filter.occurred_at = {
      ...(input.date_from ? { $gte: new Date(`${input.date_from}T00:00:00.000Z`) } : {}),
      ...(input.date_to ? { $lt: new Date(new Date(`${input.date_to}T00:00:00.000Z`).getTime() + DAY_MS) } : {}),
    };
  }
  if (input.status) filter.status = input.status;
  if (input.sub_id !== undefined) filter.subid = input.sub_id;
  if (input.merchant !== undefined) filter.campaign_id = input.merchant;
  return filter;
}

export const SALE_COLUMNS = [
  'id',
  'sub_id',
  'status',
  'sale_amount',
  'commission',
  'currency',
  'merchant_id',
  'merchant_name',
  'program_id',
  'click_id',
  'occurred_at',
  'updated_at',
] as const;

export function saleRow(c: ConversionRecord, merchantName: string | undefined) {
  return {
    id: c._id,
    sub_id: c.subid || null,
    status: c.status,
    sale_amount: moneyIn(c.sale_amount, c.currency),
    commission: moneyIn(c.commission, c.currency),
    currency: c.currency,
    merchant: c.campaign_id !== undefined && c.campaign_id !== null ? { id: c.campaign_id, name: merchantName ?? '' } : null,
    program_id: c.program_id ?? null,
    click_id: c.click_id ?? null,
    occurred_at: c.occurred_at,
    updated_at: c.updated_at,
  };
}

const PROJECTION = { events: 0, order_ref: 0 };
/** Newest first (the index `{publisher_id, occurred_at: -1, _id: 1}`). */
const ORDER: ListSort = [
  ['occurred_at', -1],
  ['_id', 1],
];

async function withNames(deps: ReportsDeps, rows: ConversionRecord[]) {
  const names = await deps.data.programs.merchantNames(rows.flatMap((r) => (r.campaign_id !== undefined && r.campaign_id !== null ? [r.campaign_id] : [])));
  return rows.map((r) => saleRow(r, r.campaign_id !== undefined && r.campaign_id !== null ? names.get(r.campaign_id) : undefined));
}

/** One page of sales, newest first. */
export const listSales = useCase(
  SALES_POLICY,
  async function listSales(deps: ReportsDeps, principal: Principal, input: InputOf<typeof SALES_INPUT>) {
    const w = pageWindow({ list: 'sales', account: principal.publisher._id, secret: deps.config.secretKey }, ORDER, input);
    const rows = await own(deps)
      .Conversion.find(w.filter(salesFilter(principal, input)), PROJECTION)
      .sort(w.sort)
      .skip(w.skip)
      .limit(input.page_size + 1)
      .lean<ConversionRecord[]>();
    return w.envelope(rows, (page) => withNames(deps, page));
  },
  SALES_INPUT,
);

/** One row per sale for sub-ID tools: the sale, its sub-ID, status and commission. */
export const subidSales = useCase(
  SALES_POLICY,
  async function subidSales(deps: ReportsDeps, principal: Principal, input: InputOf<typeof SALES_INPUT>) {
    const w = pageWindow({ list: 'subid-sales', account: principal.publisher._id, secret: deps.config.secretKey }, ORDER, input);
    const rows = await own(deps)
      .Conversion.find(w.filter(salesFilter(principal, input)), {
        _id: 1,
        subid: 1,
        status: 1,
        commission: 1,
        currency: 1,
        occurred_at: 1,
      })
      .sort(w.sort)
      .skip(w.skip)
      .limit(input.page_size + 1)
      .lean<ConversionRecord[]>();
    return w.envelope(rows, (page) =>
      page.map((c) => ({
        sale_id: c._id,
        sub_id: c.subid || null,
        status: c.status,
        commission: moneyIn(c.commission, c.currency),
        currency: c.currency,
        occurred_at: c.occurred_at,
      })),
    );
  },
  SALES_INPUT,
);

/**
 * Every sale of the filter, newest first, as flat CSV records (merchant id and name in their own
 * columns), read from a cursor in batches: memory does not grow with the number of sales. The
 * caller closes the returned cursor when the client goes away.
 */
export function exportSales(deps: ReportsDeps, principal: Principal, input: Filters): { cursor: Cursor<ConversionRecord>; rows: AsyncGenerator<CsvRecord> } {
  // Streamed as fast as the client reads, so bounded by the client, not by the request budget.
  const cursor = own(deps)
    .Conversion.find(salesFilter(principal, input), PROJECTION)
    .sort(Object.fromEntries(ORDER))
    .maxTimeMS(0)
    .lean<ConversionRecord[]>()
    .cursor({ batchSize: EXPORT_BATCH }) as unknown as Cursor<ConversionRecord>;
  const record = (doc: ConversionRecord, merchantName: string | undefined): CsvRecord => {
    const r = saleRow(doc, merchantName);
    return [
      r.id,
      r.sub_id,
      r.status,
      r.sale_amount,
      r.commission,
      r.currency,
      r.merchant ? String(r.merchant.id) : null,
      r.merchant?.name ?? null,
      r.program_id === null ? null : String(r.program_id),
      r.click_id,
      r.occurred_at.toISOString(),
      r.updated_at.toISOString(),
    ];
  };
  return { cursor, rows: namedRecords(deps, cursor, record) };
}

type Sums = Record<string, string>;

/** One summary row: its group's key (one of sub_id, day, merchant, channel), then the numbers. */
interface SummaryRow {
  sub_id?: string | number | null;
  day?: string | number | null;
  merchant?: { id: string | number; name: string } | null;
  channel?: (typeof CHANNELS)[number];
  clicks: number;
  sales: number;
  conversion_rate: string;
  earnings: Sums;
  epc: Sums;
}

/**
 * Per group: clicks (bots excluded), sales, conversion rate, earnings and EPC per currency, from
 * the stats read model. Days are the calendar days of `timezone` (default UTC).
 */
export const salesSummary = useCase(
  SALES_POLICY,
  async function salesSummary(deps: ReportsDeps, principal: Principal, input: InputOf<typeof SUMMARY_INPUT>) {
    salesFilter(principal, input); // date_from after date_to answers 400 before any read
    const calendar = zoneCalendar(input.timezone ?? 'UTC');
    if (input.group_by === 'channel') return channelSummary(deps, principal, input, calendar);
    const from = input.date_from ? calendar.dayStart(input.date_from) : undefined;
    const to = input.date_to ? calendar.dayStart(nextDay(input.date_to)) : undefined;
    // Read only (docs/decisions/0046-stats-read-contract.md): how fresh the cells are, then the cells.
    const asOf = await countedAsOf(deps, principal.publisher._id);
    const facts = await readFacts(deps, {
      publisherId: principal.publisher._id,
      from,
      to,
      calendar: input.group_by === 'day' ? calendar : undefined,
      bySubid: input.group_by === 'subid',
      byProgram: input.group_by === 'merchant',
      subid: input.sub_id,
      merchantId: input.merchant,
    });
    const rows = new Map<string, { key: string | number | null; clicks: number; sales: number; earnings: Map<string, string[]> }>();
    const rowOf = (k: string | number | null) => {
      const id = JSON.stringify(k);
      let r = rows.get(id);
      if (!r) rows.set(id, (r = { key: k, clicks: 0, sales: 0, earnings: new Map() }));
      return r;
    };
    for (const f of facts) {
      const c = f.conversion;
      // Clicks have no status: a status filter narrows the sales only.
      if (c && (c.source !== 'v1' || (input.status !== undefined && c.status !== input.status))) continue;
      const key = input.group_by === 'subid' ? f.subid || null : input.group_by === 'merchant' ? f.campaign_id : calendar.dayOf(f.at);
      const r = rowOf(key);
      r.clicks += f.clicks;
      if (c) {
        r.sales += c.n;
        r.earnings.set(c.currency, [...(r.earnings.get(c.currency) ?? []), c.commission]);
      }
    }
    const names =
      input.group_by === 'merchant'
        ? await deps.data.programs.merchantNames([...rows.values()].flatMap((r) => (typeof r.key === 'number' ? [r.key] : [])))
        : new Map<number, string>();
    const out = [...rows.values()]
      .filter((r) => r.clicks > 0 || r.sales > 0)
      .sort((a, b) =>
        input.group_by === 'day'
          ? String(a.key).localeCompare(String(b.key))
          : b.sales - a.sales || b.clicks - a.clicks || String(a.key).localeCompare(String(b.key)),
      )
      .map((r): SummaryRow => {
        const earnings: Sums = {};
        const epc: Sums = {};
        for (const [cur, vs] of [...r.earnings].sort(([a], [b]) => a.localeCompare(b))) {
          const total = addDecimals(vs.map((v) => parseDecimal(v)));
          earnings[cur] = moneyIn(total, cur);
          epc[cur] = r.clicks ? formatDecimal(divideDecimals(total, String(r.clicks), 4), 4) : '0.0000';
        }
        const key =
          input.group_by === 'subid'
            ? { sub_id: r.key }
            : input.group_by === 'day'
              ? { day: r.key }
              : { merchant: r.key === null ? null : { id: r.key, name: names.get(r.key as number) ?? '' } };
        return {
          ...key,
          clicks: r.clicks,
          sales: r.sales,
          conversion_rate: r.clicks ? formatDecimal(divideDecimals(String(r.sales), String(r.clicks), 4), 4) : '0.0000',
          earnings,
          epc,
        };
      });
    return {
      group_by: input.group_by,
      date_from: input.date_from ?? null,
      date_to: input.date_to ?? null,
      timezone: calendar.name,
      as_of: asOf.toISOString(),
      data: out,
    };
  },
  SUMMARY_INPUT,
);

/**
 * The summary by channel (decision record 0066): sales and earnings from the conversions
 * themselves (the read model does not key channels), clicks from the read model, all on the
 * `link` row (a click is a link's; a code, an agent's token or an inquiry has none). Every channel
 * with a click or a sale, in the order link, code, agent, inquiry. At most 366 days.
 */
async function channelSummary(deps: ReportsDeps, principal: Principal, input: InputOf<typeof SUMMARY_INPUT>, calendar: Calendar) {
  const dateTo = input.date_to ?? calendar.dayOf(Date.now());
  const dateFrom = input.date_from ?? addDays(dateTo, -365);
  if (dateFrom > dateTo)
    throw new ApiError({
      code: 'invalid_parameter',
      detail: "Invalid parameter 'date_from': must not be after date_to (default today).",
      errors: [{ param: 'date_from', detail: 'must not be after date_to' }],
    });
  if (daysBetween(dateFrom, dateTo) + 1 > 366)
    throw new ApiError({
      code: 'invalid_parameter',
      detail: "Invalid parameter 'date_from': group_by=channel covers at most 366 days.",
      errors: [{ param: 'date_from', detail: 'the range exceeds 366 days' }],
    });
  const from = calendar.dayStart(dateFrom);
  const to = calendar.dayStart(nextDay(dateTo));
  const asOf = await countedAsOf(deps, principal.publisher._id);
  const [facts, groups] = await Promise.all([
    readFacts(deps, { publisherId: principal.publisher._id, from, to, subid: input.sub_id, merchantId: input.merchant }),
    channelGroups(deps, principal.publisher._id, { from, to }, { subid: input.sub_id, status: input.status, source: 'v1', campaignId: input.merchant }),
  ]);
  const clicks = facts.reduce((n, f) => n + f.clicks, 0);
  const data = CHANNELS.map((channel): SummaryRow => {
    const mine = groups.filter((g) => g.channel === channel);
    const rowClicks = channel === 'link' ? clicks : 0;
    const sales = mine.reduce((n, g) => n + g.n, 0);
    const earnings: Sums = {};
    const epc: Sums = {};
    for (const cur of [...new Set(mine.map((g) => g.currency))].sort()) {
      const total = addDecimals(mine.filter((g) => g.currency === cur).map((g) => parseDecimal(g.commission)));
      earnings[cur] = moneyIn(total, cur);
      epc[cur] = rowClicks ? formatDecimal(divideDecimals(total, String(rowClicks), 4), 4) : '0.0000';
    }
    return {
      channel,
      clicks: rowClicks,
      sales,
      conversion_rate: rowClicks ? formatDecimal(divideDecimals(String(sales), String(rowClicks), 4), 4) : '0.0000',
      earnings,
      epc,
    };
  }).filter((r) => r.clicks > 0 || r.sales > 0);
  return { group_by: 'channel' as const, date_from: dateFrom, date_to: dateTo, timezone: calendar.name, as_of: asOf.toISOString(), data };
}
