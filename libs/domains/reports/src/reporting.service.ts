/**
 * Conversions and reports as a publisher reads them. Money is summed in MongoDB (Decimal128,
 * exact) and shown per currency as decimal strings; nothing reads every conversion into Node.
 */
import { ApiError } from '@cw/errors';
import type { Policy, Principal } from '@cw/auth';
import { addDecimals, moneyIn, parseDecimal } from '@cw/money';
import { useCase, pageWindow, type InputOf, type ListSort } from '@cw/usecase';
import { conversionView, LIST_CONVERSIONS_INPUT, REPORT_INPUT, type ConversionRecord } from '@cw/conversions';
import { addDays, bucketOf, countedAsOf, daysBetween, nextDay, readFacts, zoneCalendar } from '@cw/stats';
import { own, type ReportsDeps } from './deps';
import { channelGroups } from './channels.service';

const CONVERSIONS_POLICY: Policy = { budget: 'reporting', scope: 'reports:read' };
const REPORTS_POLICY: Policy = { budget: 'reporting', scope: 'reports:read' };

const DAY = 86_400_000;
const MAX_REPORT_DAYS = 366;
const DEFAULT_REPORT_DAYS = 30;

const dayStart = (d: string) => new Date(`${d}T00:00:00.000Z`);

function range(from: string | undefined, to: string | undefined): { from?: Date; toExclusive?: Date } {
  if (from && to && from > to)
    throw new ApiError({
      code: 'invalid_parameter',
      detail: "Invalid parameter 'date_from': must not be after date_to.",
      errors: [{ param: 'date_from', detail: 'must not be after date_to' }],
    });
  return { from: from ? dayStart(from) : undefined, toExclusive: to ? new Date(dayStart(to).getTime() + DAY) : undefined };
}

type Sums = Record<string, string>;

/** Per-currency sums as the wire shows them: currencies in order, each at its minor unit. */
function sumsBy(rows: Array<{ currency: string; value: string }>): Sums {
  const acc = new Map<string, string[]>();
  for (const r of rows) acc.set(r.currency, [...(acc.get(r.currency) ?? []), r.value]);
  return Object.fromEntries(
    [...acc].sort(([a], [b]) => a.localeCompare(b)).map(([cur, vs]) => [cur, moneyIn(addDecimals(vs.map((v) => parseDecimal(v))), cur)]),
  );
}

/** Newest first (the index `{publisher_id, occurred_at: -1, _id: 1}`). */
const LIST_ORDER: ListSort = [
  ['occurred_at', -1],
  ['_id', 1],
];

/** The filter of GET /conversions/ (also the portal's CSV export of the same list): 400 when date_from is after date_to. */
export function conversionsFilter(
  principal: Principal,
  input: Pick<InputOf<typeof LIST_CONVERSIONS_INPUT>, 'date_from' | 'date_to' | 'subid' | 'status' | 'source' | 'updated_since' | 'channel'>,
): Record<string, unknown> {
  const { from, toExclusive } = range(input.date_from, input.date_to);
  const filter: Record<string, unknown> = { publisher_id: principal.publisher._id };
  if (from || toExclusive) filter.occurred_at = { ...(from ? { $gte: from } : {}), ...(toExclusive ? { $lt: toExclusive } : {}) };
  if (input.subid !== undefined) filter.subid = input.subid;
  if (input.status !== undefined) filter.status = input.status;
  if (input.source !== undefined && input.source !== 'all') filter.source = input.source;
  // Rows from before channels existed (and ledger entries) carry none: they are links.
  if (input.channel !== undefined) filter.channel = input.channel === 'link' ? { $in: ['link', null] } : input.channel;
  if (input.updated_since !== undefined) filter.updated_at = { $gte: new Date(input.updated_since) };
  return filter;
}

/** Newest first, as GET /conversions/ lists them (the index `{publisher_id, occurred_at: -1, _id: 1}`). */
export const CONVERSIONS_ORDER = LIST_ORDER;

/**
 * The caller's conversions, newest first, with a sub-ID rollup over the whole filtered set (from
 * the stats read model; with `updated_since` or `channel`, which the model does not key, from the matched rows).
 */
export const listConversions = useCase(
  CONVERSIONS_POLICY,
  async function listConversions(deps: ReportsDeps, principal: Principal, input: InputOf<typeof LIST_CONVERSIONS_INPUT>) {
    const { from, toExclusive } = range(input.date_from, input.date_to);
    const filter = conversionsFilter(principal, input);
    const w = pageWindow({ list: 'conversions', account: principal.publisher._id, secret: deps.config.secretKey }, LIST_ORDER, input);
    const rows = await own(deps)
      .Conversion.find(w.filter(filter), { events: 0, order_ref: 0 })
      .sort(w.sort)
      .skip(w.skip)
      .limit(input.page_size + 1)
      .lean<ConversionRecord[]>();
    const names = await deps.data.programs.merchantNames(rows.flatMap((r) => (r.campaign_id !== undefined && r.campaign_id !== null ? [r.campaign_id] : [])));
    const bySubid = new Map<string, { n: number; sums: Array<{ currency: string; value: string }> }>();
    const add = (subid: string | null | undefined, currency: string, n: number, commission: string) => {
      const e = bySubid.get(subid ?? '') ?? { n: 0, sums: [] };
      e.n += n;
      e.sums.push({ currency, value: commission });
      bySubid.set(subid ?? '', e);
    };
    // The read model keys neither the change time nor the channel: those rollups come from the matched rows.
    if (input.updated_since !== undefined || input.channel !== undefined) {
      const rollup = await own(deps).Conversion.aggregate<{ _id: { subid: string; currency: string }; n: number; commission: { toString(): string } }>([
        { $match: filter },
        { $group: { _id: { subid: '$subid', currency: '$currency' }, n: { $sum: 1 }, commission: { $sum: '$commission' } } },
      ]);
      for (const r of rollup) add(r._id.subid, r._id.currency, r.n, r.commission.toString());
    } else {
      const facts = await readFacts(deps, {
        publisherId: principal.publisher._id,
        from: from?.getTime(),
        to: toExclusive?.getTime(),
        bySubid: true,
        subid: input.subid,
      });
      for (const f of facts) {
        const c = f.conversion;
        if (!c || (input.status !== undefined && c.status !== input.status) || (input.source !== 'all' && c.source !== input.source)) continue;
        add(f.subid, c.currency, c.n, c.commission);
      }
    }
    return {
      ...(await w.envelope(rows, (page) => page.map((r) => conversionView(r, r.campaign_id !== undefined ? names.get(r.campaign_id) : undefined)))),
      subid_rollup: [...bySubid]
        .filter(([, e]) => e.n !== 0)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([subid, e]) => ({ subid: subid || null, conversions: e.n, commission: sumsBy(e.sums) })),
    };
  },
  LIST_CONVERSIONS_INPUT,
);

/**
 * The report by channel. The read model does not key channels (decision record 0057): this one
 * groups the conversions themselves (`channelGroups`, ./channels.service.ts), on the
 * `{publisher_id, occurred_at}` index over the range (at most 366 days of one account), exact as
 * the read model is.
 */
async function channelReport(
  deps: ReportsDeps,
  principal: Principal,
  input: InputOf<typeof REPORT_INPUT>,
  r: { dateFrom: string; dateTo: string; timezone: string; from: number; to: number },
) {
  const rows = await channelGroups(deps, principal.publisher._id, { from: r.from, to: r.to }, { subid: input.subid, status: input.status });
  const cells = new Map<string, Cell>();
  const total = emptyCell();
  for (const row of rows) {
    const cell = cells.get(row.channel) ?? emptyCell();
    cells.set(row.channel, cell);
    for (const x of [cell, total]) {
      x.conversions += row.n;
      x[row.status] += row.n;
      x.sale.push({ currency: row.currency, value: row.sale });
      x.commission.push({ currency: row.currency, value: row.commission });
    }
  }
  const show = (c: Cell) => ({
    conversions: c.conversions,
    approved: c.approved,
    pending: c.pending,
    declined: c.declined,
    sale_amount: sumsBy(c.sale),
    commission: sumsBy(c.commission),
  });
  return {
    group_by: 'channel' as const,
    date_from: r.dateFrom,
    date_to: r.dateTo,
    timezone: r.timezone,
    as_of: new Date().toISOString(),
    rows: [...cells.keys()].sort().map((k) => ({ key: k, ...show(cells.get(k)!) })),
    totals: show(total),
  };
}

interface Cell {
  conversions: number;
  approved: number;
  pending: number;
  declined: number;
  sale: Array<{ currency: string; value: string }>;
  commission: Array<{ currency: string; value: string }>;
}

const emptyCell = (): Cell => ({ conversions: 0, approved: 0, pending: 0, declined: 0, sale: [], commission: [] });

/**
 * Conversions and commission grouped by time (dense, in the report's time zone), sub-ID, campaign
 * or status, per currency, from the stats read model.
 */
export const conversionReport = useCase(
  REPORTS_POLICY,
  async function conversionReport(deps: ReportsDeps, principal: Principal, input: InputOf<typeof REPORT_INPUT>, now: Date = new Date()) {
    const calendar = zoneCalendar(input.timezone ?? 'UTC');
    const dateTo = input.date_to ?? calendar.dayOf(now.getTime());
    const dateFrom = input.date_from ?? addDays(dateTo, -(DEFAULT_REPORT_DAYS - 1));
    range(dateFrom, dateTo);
    const days = daysBetween(dateFrom, dateTo) + 1;
    if (days > MAX_REPORT_DAYS)
      throw new ApiError({
        code: 'invalid_parameter',
        detail: `Invalid parameter 'date_from': a report covers at most ${MAX_REPORT_DAYS} days.`,
        errors: [{ param: 'date_from', detail: `the range exceeds ${MAX_REPORT_DAYS} days` }],
      });
    const timeGroup = input.group_by === 'day' || input.group_by === 'week' || input.group_by === 'month';
    const dayKeys: string[] = [];
    const starts: number[] = [];
    for (let d = dateFrom, i = 0; i <= days; d = nextDay(d), i++) {
      dayKeys.push(d);
      starts.push(calendar.dayStart(d));
    }
    const from = starts[0]!;
    const to = starts[days]!;
    // Read only (docs/decisions/0046-stats-read-contract.md): how fresh the cells are, then the cells.
    const asOf = await countedAsOf(deps, principal.publisher._id);
    const facts = await readFacts(deps, {
      publisherId: principal.publisher._id,
      from,
      to,
      ...(timeGroup ? { calendar, bucket: input.group_by as 'day' | 'week' | 'month' } : {}),
      bySubid: input.group_by === 'subid',
      byProgram: input.group_by === 'campaign',
      subid: input.subid,
    });
    if (input.group_by === 'channel') return channelReport(deps, principal, input, { dateFrom, dateTo, timezone: calendar.name, from, to });
    /** The local day of an instant in [from, to): the last day starting at or before it. */
    const dayAt = (t: number) => {
      let lo = 0;
      let hi = days - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= t) lo = mid;
        else hi = mid - 1;
      }
      return dayKeys[lo]!;
    };
    const timeKey = (day: string) => bucketOf(day, input.group_by as 'day' | 'week' | 'month');
    const cells = new Map<string, Cell>();
    if (timeGroup) for (const d of dayKeys.slice(0, days)) if (!cells.has(timeKey(d))) cells.set(timeKey(d), emptyCell());
    const total = emptyCell();
    for (const f of facts) {
      const c = f.conversion;
      if (!c || (input.status !== undefined && c.status !== input.status)) continue;
      const k = timeGroup
        ? timeKey(dayAt(f.at))
        : input.group_by === 'subid'
          ? (f.subid ?? '')
          : input.group_by === 'campaign'
            ? f.campaign_id === null
              ? ''
              : String(f.campaign_id)
            : c.status;
      const cell = cells.get(k) ?? emptyCell();
      cells.set(k, cell);
      for (const x of [cell, total]) {
        x.conversions += c.n;
        x[c.status] += c.n;
        x.sale.push({ currency: c.currency, value: c.sale });
        x.commission.push({ currency: c.currency, value: c.commission });
      }
    }
    const show = (c: Cell) => ({
      conversions: c.conversions,
      approved: c.approved,
      pending: c.pending,
      declined: c.declined,
      sale_amount: sumsBy(c.sale),
      commission: sumsBy(c.commission),
    });
    const keys = [...cells.keys()]
      .filter((k) => timeGroup || cells.get(k)!.conversions !== 0)
      .sort((a, b) => (input.group_by === 'campaign' ? Number(a) - Number(b) : a.localeCompare(b)));
    return {
      group_by: input.group_by,
      date_from: dateFrom,
      date_to: dateTo,
      timezone: calendar.name,
      as_of: asOf.toISOString(),
      // Conversions without a sub-ID, and ledger entries without a campaign, are keyed null.
      rows: keys.map((k) => ({ key: k === '' ? null : k, ...show(cells.get(k)!) })),
      totals: show(total),
    };
  },
  REPORT_INPUT,
);
