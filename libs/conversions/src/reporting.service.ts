/**
 * Conversions and reports as a publisher reads them. Money is summed in MongoDB (Decimal128,
 * exact) and shown per currency as decimal strings; nothing reads every conversion into Node.
 */
import { ApiError } from '@cw/errors';
import type { Policy, Principal } from '@cw/auth';
import { addDecimals, parseDecimal } from '@cw/money';
import { pageOf, skipFor, type InputOf, type UseCaseDeps } from '@cw/usecase';
import type { LIST_CONVERSIONS_INPUT, REPORT_INPUT } from './conversion.schemas';
import type { ConversionRecord } from './lifecycle';
import { moneyIn } from './money';

export const CONVERSIONS_POLICY: Policy = { budget: 'reporting' };
export const REPORTS_POLICY: Policy = { budget: 'reporting' };

const DAY = 86_400_000;
const MAX_REPORT_DAYS = 366;
const DEFAULT_REPORT_DAYS = 30;

const dayStart = (d: string) => new Date(`${d}T00:00:00.000Z`);
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

function range(from: string | undefined, to: string | undefined): { from?: Date; toExclusive?: Date } {
  if (from && to && from > to)
    throw new ApiError({
      code: 'invalid_parameter',
      detail: "Invalid parameter 'date_from': must not be after date_to.",
      errors: [{ param: 'date_from', detail: 'must not be after date_to' }],
    });
  return { from: from ? dayStart(from) : undefined, toExclusive: to ? new Date(dayStart(to).getTime() + DAY) : undefined };
}

/** The publisher view of a conversion: never the merchant's order id or the network's margin. */
export function conversionView(c: ConversionRecord, merchantName: string | undefined) {
  return {
    id: c._id,
    status: c.status,
    subid: c.subid || null,
    campaign_id: c.campaign_id ?? null,
    program_id: c.program_id ?? null,
    merchant: c.campaign_id !== undefined && c.campaign_id !== null ? { id: c.campaign_id, name: merchantName ?? '' } : null,
    sale_amount: moneyIn(c.sale_amount, c.currency),
    commission: moneyIn(c.commission, c.currency),
    currency: c.currency,
    click_id: c.click_id ?? null,
    deeplink_id: c.link_id ?? null,
    source: c.source,
    ...(c.source === 'ledger' ? { reason: c.reason ?? null } : {}),
    reversed: c.reversed,
    occurred_at: c.occurred_at,
    updated_at: c.updated_at,
  };
}

type Sums = Record<string, string>;

function sumsBy(rows: Array<{ currency: string; value: { toString(): string } }>): Sums {
  const acc = new Map<string, string[]>();
  for (const r of rows) acc.set(r.currency, [...(acc.get(r.currency) ?? []), r.value.toString()]);
  return Object.fromEntries(
    [...acc].sort(([a], [b]) => a.localeCompare(b)).map(([cur, vs]) => [cur, moneyIn(addDecimals(vs.map((v) => parseDecimal(v))), cur)]),
  );
}

/** The caller's conversions, newest first, with a sub-ID rollup over the whole filtered set. */
export async function listConversions(deps: UseCaseDeps, principal: Principal, input: InputOf<typeof LIST_CONVERSIONS_INPUT>) {
  const { from, toExclusive } = range(input.date_from, input.date_to);
  const filter: Record<string, unknown> = { publisher_id: principal.publisher._id };
  if (from || toExclusive) filter.occurred_at = { ...(from ? { $gte: from } : {}), ...(toExclusive ? { $lt: toExclusive } : {}) };
  if (input.subid !== undefined) filter.subid = input.subid;
  if (input.status !== undefined) filter.status = input.status;
  if (input.source !== 'all') filter.source = input.source;
  if (input.updated_since !== undefined) filter.updated_at = { $gte: new Date(input.updated_since) };
  const rows = await deps.models.Conversion.find(filter, { events: 0, order_ref: 0 })
    .sort({ occurred_at: -1, _id: 1 })
    .skip(skipFor(input.page, input.page_size))
    .limit(input.page_size + 1)
    .lean<ConversionRecord[]>();
  const names = await deps.repos.merchants.namesOf(rows.flatMap((r) => (r.campaign_id !== undefined && r.campaign_id !== null ? [r.campaign_id] : [])));
  const rollup = await deps.models.Conversion.aggregate<{ _id: { subid: string; currency: string }; n: number; commission: { toString(): string } }>([
    { $match: filter },
    { $group: { _id: { subid: '$subid', currency: '$currency' }, n: { $sum: 1 }, commission: { $sum: '$commission' } } },
  ]);
  const bySubid = new Map<string, { n: number; sums: Array<{ currency: string; value: { toString(): string } }> }>();
  for (const r of rollup) {
    const e = bySubid.get(r._id.subid ?? '') ?? { n: 0, sums: [] };
    e.n += r.n;
    e.sums.push({ currency: r._id.currency, value: r.commission });
    bySubid.set(r._id.subid ?? '', e);
  }
  return {
    ...pageOf(
      rows.map((r) => conversionView(r, r.campaign_id !== undefined ? names.get(r.campaign_id) : undefined)),
      input,
    ),
    subid_rollup: [...bySubid]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([subid, e]) => ({ subid: subid || null, conversions: e.n, commission: sumsBy(e.sums) })),
  };
}

interface Cell {
  conversions: number;
  approved: number;
  pending: number;
  declined: number;
  sale: Array<{ currency: string; value: { toString(): string } }>;
  commission: Array<{ currency: string; value: { toString(): string } }>;
}

const emptyCell = (): Cell => ({ conversions: 0, approved: 0, pending: 0, declined: 0, sale: [], commission: [] });

const mondayOf = (day: string) => {
  const t = dayStart(day).getTime();
  return isoDay(t - ((new Date(t).getUTCDay() + 6) % 7) * DAY);
};

/** Conversions and commission grouped by time (dense), sub-ID, campaign or status, per currency. */
export async function conversionReport(deps: UseCaseDeps, principal: Principal, input: InputOf<typeof REPORT_INPUT>, now = new Date()) {
  const dateTo = input.date_to ?? isoDay(now.getTime());
  const dateFrom = input.date_from ?? isoDay(dayStart(dateTo).getTime() - (DEFAULT_REPORT_DAYS - 1) * DAY);
  const { from, toExclusive } = range(dateFrom, dateTo);
  const days = Math.round((toExclusive!.getTime() - from!.getTime()) / DAY);
  if (days > MAX_REPORT_DAYS)
    throw new ApiError({
      code: 'invalid_parameter',
      detail: `Invalid parameter 'date_from': a report covers at most ${MAX_REPORT_DAYS} days.`,
      errors: [{ param: 'date_from', detail: `the range exceeds ${MAX_REPORT_DAYS} days` }],
    });
  const match: Record<string, unknown> = { publisher_id: principal.publisher._id, occurred_at: { $gte: from, $lt: toExclusive } };
  if (input.subid !== undefined) match.subid = input.subid;
  if (input.status !== undefined) match.status = input.status;
  const timeGroup = input.group_by === 'day' || input.group_by === 'week' || input.group_by === 'month';
  const key = timeGroup
    ? { $dateToString: { format: '%Y-%m-%d', date: '$occurred_at' } }
    : input.group_by === 'subid'
      ? '$subid'
      : input.group_by === 'campaign'
        ? '$campaign_id'
        : '$status';
  // Grouped in MongoDB by (key, currency, status); days fold into weeks and months below (at most 366 rows per currency and status).
  const grouped = await deps.models.Conversion.aggregate<{
    _id: { k: unknown; c: string; s: 'pending' | 'approved' | 'declined' };
    n: number;
    sale: { toString(): string };
    commission: { toString(): string };
  }>([
    { $match: match },
    { $group: { _id: { k: key, c: '$currency', s: '$status' }, n: { $sum: 1 }, sale: { $sum: '$sale_amount' }, commission: { $sum: '$commission' } } },
  ]);
  const keyOf = (k: unknown): string => {
    if (input.group_by === 'week') return mondayOf(String(k));
    if (input.group_by === 'month') return String(k).slice(0, 7);
    return k === null || k === undefined ? '' : String(k);
  };
  const cells = new Map<string, Cell>();
  if (timeGroup) {
    for (let t = from!.getTime(); t < toExclusive!.getTime(); t += DAY) {
      const k = keyOf(isoDay(t));
      if (!cells.has(k)) cells.set(k, emptyCell());
    }
  }
  const total = emptyCell();
  for (const g of grouped) {
    const k = keyOf(g._id.k);
    const cell = cells.get(k) ?? emptyCell();
    cells.set(k, cell);
    for (const c of [cell, total]) {
      c.conversions += g.n;
      c[g._id.s] += g.n;
      c.sale.push({ currency: g._id.c, value: g.sale });
      c.commission.push({ currency: g._id.c, value: g.commission });
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
  const keys = [...cells.keys()].sort((a, b) => (input.group_by === 'campaign' ? Number(a) - Number(b) : a.localeCompare(b)));
  return {
    group_by: input.group_by,
    date_from: dateFrom,
    date_to: dateTo,
    timezone: 'UTC',
    // Conversions without a sub-ID, and ledger entries without a campaign, are keyed null.
    rows: keys.map((k) => ({ key: k === '' ? null : k, ...show(cells.get(k)!) })),
    totals: show(total),
  };
}
