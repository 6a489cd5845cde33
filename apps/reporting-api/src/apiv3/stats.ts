/**
 * HasOffers' Affiliate_Report.getStats and getConversions over the conversions domain's reads
 * (`searchSales`, `accountFacts`): rows are built per sale (getConversions) or per group
 * (getStats), then filtered, sorted, paged and projected to the asked fields, as HasOffers does. Money stays exact (decimal strings);
 * rows never mix currencies (Stat.currency is always part of a getStats group).
 */
import type { Principal } from '@cw/auth';
import type { ConversionRecord } from '@cw/conversions';
import { accountFacts, searchSales, type ReportsDeps } from '@cw/reports';
import { offsetCalendar, type Fact } from '@cw/stats';
import { addDecimals, divideDecimals, formatDecimal, moneyIn, parseDecimal, type Dec } from '@cw/money';
import { Apiv3Error, type Params } from './params';
import { compare, filterSpecs, filtersOf, pagingOf, sortOf, type Value } from './filters';
import { conversionConditions, conversionSort, STATUS_NAMES } from './conversions-query';

type Row = Record<string, Value>;

/** Fields a tool may ask for; those the platform does not track answer 0 or ''. */
const STAT_FIELDS = [
  'Stat.clicks',
  'Stat.unique_clicks',
  'Stat.conversions',
  'Stat.payout',
  'Stat.sale_amount',
  'Stat.impressions',
  'Stat.ctr',
  'Stat.ltr',
  'Stat.cpc',
  'Stat.cpm',
  'Stat.epc',
  'Stat.date',
  'Stat.month',
  'Stat.year',
  'Stat.hour',
  'Stat.offer_id',
  'Stat.affiliate_info1',
  'Stat.affiliate_info2',
  'Stat.affiliate_info3',
  'Stat.affiliate_info4',
  'Stat.affiliate_info5',
  'Stat.currency',
  'Stat.approved_payout',
  'Stat.pending_payout',
  'Stat.rejected_payout',
  'Offer.name',
  'Stat.source',
  'Stat.goal_id',
] as const;
const STAT_GROUPS = new Set(['Stat.date', 'Stat.month', 'Stat.year', 'Stat.offer_id', 'Stat.affiliate_info1', 'Offer.name', 'Stat.currency']);
const CONVERSION_FIELDS = [
  'Stat.id',
  'Stat.datetime',
  'Stat.date',
  'Stat.offer_id',
  'Stat.affiliate_info1',
  'Stat.affiliate_info2',
  'Stat.affiliate_info3',
  'Stat.affiliate_info4',
  'Stat.affiliate_info5',
  'Stat.conversion_status',
  'Stat.payout',
  'Stat.sale_amount',
  'Stat.currency',
  'Stat.ad_id',
  'Stat.ip',
  'Stat.source',
  'Stat.goal_id',
  'Offer.name',
  'Stat.approved_payout',
] as const;
const DEFAULT_STAT_FIELDS = ['Stat.clicks', 'Stat.conversions', 'Stat.payout', 'Stat.offer_id', 'Offer.name', 'Stat.currency'];
const DEFAULT_CONVERSION_FIELDS = [
  'Stat.id',
  'Stat.datetime',
  'Stat.offer_id',
  'Stat.affiliate_info1',
  'Stat.conversion_status',
  'Stat.payout',
  'Stat.sale_amount',
  'Stat.currency',
  'Offer.name',
];
const MAX_RANGE_DAYS = 366;
const DAY = 86_400_000;

/** `hour_offset`: the caller's time zone in hours (-12 to +14, quarters allowed); days and dates are read in it. */
function hourOffsetMs(p: Params): number {
  const raw = p.hour_offset;
  if (raw === undefined || raw === '') return 0;
  const n = typeof raw === 'string' && /^[+-]?\d{1,2}(\.\d{1,2})?$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= -12 && n <= 14) || !Number.isInteger(n * 4)) throw new Apiv3Error(400, 'hour_offset must be a number of hours from -12 to 14 (in quarters)');
  return n * 3_600_000;
}

function dateRange(p: Params): { from: Date; to: Date; offsetMs: number } {
  const offsetMs = hourOffsetMs(p);
  const day = (name: string, v: unknown) => {
    if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`)))
      throw new Apiv3Error(400, `${name} must be a date YYYY-MM-DD`);
    return new Date(`${v}T00:00:00.000Z`);
  };
  // Days in the caller's zone: local midnight is UTC midnight minus the offset.
  const to =
    p.data_end !== undefined ? new Date(day('data_end', p.data_end).getTime() + DAY - offsetMs) : new Date(Math.ceil(Date.now() / DAY) * DAY - offsetMs);
  const from = p.data_start !== undefined ? new Date(day('data_start', p.data_start).getTime() - offsetMs) : new Date(to.getTime() - 30 * DAY);
  if (from >= to) throw new Apiv3Error(400, 'data_start must not be after data_end');
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY) throw new Apiv3Error(400, `the date range is at most ${MAX_RANGE_DAYS} days`);
  return { from, to, offsetMs };
}

function listOf(p: Params, name: string, known: readonly string[], fallback: string[]): string[] {
  const raw = p[name];
  if (raw === undefined) return fallback;
  const list = (Array.isArray(raw) ? raw : typeof raw === 'object' && raw !== null ? Object.values(raw) : [raw]).map((v) =>
    typeof v === 'string' ? v : JSON.stringify(v),
  );
  const unknown = list.filter((f) => !known.includes(f));
  if (unknown.length) throw new Apiv3Error(400, `Unknown ${name.replace(/s$/, '')}: ${unknown.slice(0, 10).join(', ')}`);
  return [...new Set(list)];
}

/** A row as HasOffers nests it: `{Stat: {payout: …}, Offer: {name: …}}`, only `fields`. */
function project(r: Row, fields: string[]): Record<string, Record<string, Value>> {
  const out: Record<string, Record<string, Value>> = {};
  for (const f of fields) {
    const [model = '', name = ''] = f.split('.');
    (out[model] ??= {})[name] = r[f] ?? null;
  }
  return out;
}

/** Filters, sorts, pages and projects rows; the HasOffers report envelope. */
function report(rows: Row[], p: Params, fields: string[], known: readonly string[], totals: (rows: Row[]) => Row) {
  const filters = filtersOf(p, known);
  const sort = sortOf(p, known);
  const { limit, page } = pagingOf(p);
  const kept = rows.filter((r) => filters.every((f) => f.test(r[f.field] ?? null)));
  if (sort.length) kept.sort((a, b) => sort.reduce((acc, [f, d]) => acc || d * compare(a[f] ?? null, String(b[f] ?? '')), 0));
  const shape = (r: Row) => project(r, fields);
  const slice = kept.slice((page - 1) * limit, page * limit);
  const body: Record<string, unknown> = { page, current: slice.length, count: kept.length, pageCount: Math.ceil(kept.length / limit), data: slice.map(shape) };
  if (p.totals === '1' || p.totals === 'true') body.totals = shape(totals(kept));
  return body;
}

/** Program names: of `ids`, or of every program (the network's programs, a bounded set). */
async function offerNames(deps: ReportsDeps, ids?: number[]): Promise<Map<number, string>> {
  return deps.data.programs.namesOf(ids);
}

/**
 * One page of sales in HasOffers' shape: the database filters, sorts and pages
 * (./conversions-query.ts); `count` is counted, `totals` summed per currency, both in the database.
 */
export async function getConversions(deps: ReportsDeps, principal: Principal, p: Params) {
  const fields = listOf(p, 'fields', CONVERSION_FIELDS, DEFAULT_CONVERSION_FIELDS);
  const { from, to, offsetMs } = dateRange(p);
  const specs = filterSpecs(p, CONVERSION_FIELDS);
  const order = sortOf(p, CONVERSION_FIELDS);
  const { limit, page } = pagingOf(p);
  const named = specs.some((s) => s.field === 'Offer.name') || order.some(([f]) => f === 'Offer.name');
  const programs = named ? await offerNames(deps) : new Map<number, string>();
  const totals = p.totals === '1' || p.totals === 'true';
  const found = await searchSales(deps, principal, {
    from,
    to,
    where: conversionConditions(specs, offsetMs, programs),
    sort: conversionSort(order, programs),
    skip: (page - 1) * limit,
    limit,
    totals,
  });
  const { sales, count } = found;
  const names = named
    ? programs
    : await offerNames(
        deps,
        sales.flatMap((s) => (s.program_id ? [s.program_id] : [])),
      );
  const rowOf = (c: ConversionRecord): Row => {
    const payout = moneyIn(c.commission, c.currency);
    return {
      'Stat.id': c._id,
      'Stat.datetime': new Date(c.occurred_at.getTime() + offsetMs).toISOString().replace('T', ' ').slice(0, 19),
      'Stat.date': new Date(c.occurred_at.getTime() + offsetMs).toISOString().slice(0, 10),
      'Stat.offer_id': c.program_id ?? null,
      'Stat.affiliate_info1': c.subid || '',
      'Stat.affiliate_info2': '',
      'Stat.affiliate_info3': '',
      'Stat.affiliate_info4': '',
      'Stat.affiliate_info5': '',
      'Stat.conversion_status': STATUS_NAMES[c.status] ?? c.status,
      'Stat.payout': payout,
      'Stat.approved_payout': c.status === 'approved' ? payout : moneyIn('0', c.currency),
      'Stat.sale_amount': moneyIn(c.sale_amount, c.currency),
      'Stat.currency': c.currency,
      'Stat.ad_id': c.click_id ?? '',
      'Stat.ip': '',
      'Stat.source': '',
      'Stat.goal_id': 0,
      'Offer.name': c.program_id ? (names.get(c.program_id) ?? '') : '',
    };
  };
  const body: Record<string, unknown> = {
    page,
    current: sales.length,
    count,
    pageCount: Math.ceil(count / limit),
    data: sales.map((c) => project(rowOf(c), fields)),
  };
  if (totals) {
    const sums = found.totals ?? [];
    // Across currencies HasOffers has no total: null.
    const one = sums.length === 1 ? sums[0] : undefined;
    body.totals = project(
      {
        'Stat.payout': one ? moneyIn(one.commission, one.currency) : sums.length ? null : '0.00',
        'Stat.sale_amount': one ? moneyIn(one.sale_amount, one.currency) : sums.length ? null : '0.00',
      },
      fields,
    );
  }
  return body;
}

/** A total across rows of one currency; across currencies HasOffers has no answer, so null. */
function sumMoney(rows: Row[], field: string): Value {
  const currencies = new Set(rows.map((r) => r['Stat.currency']));
  if (currencies.size > 1) return null;
  return amountIn(addDecimals(rows.map((r) => parseDecimal(String(r[field] ?? '0')))), [...currencies][0]);
}

/** An amount of a row in its currency's minor unit (a row without sales has no currency: 2 decimals). */
const amountIn = (d: Dec, currency: Value | undefined) => (typeof currency === 'string' && currency ? moneyIn(d, currency) : formatDecimal(d, 2));

export async function getStats(deps: ReportsDeps, principal: Principal, p: Params) {
  const fields = listOf(p, 'fields', STAT_FIELDS, DEFAULT_STAT_FIELDS);
  const groups = listOf(
    p,
    'groups',
    [...STAT_GROUPS],
    fields.filter((f) => STAT_GROUPS.has(f)),
  );
  const { from, to, offsetMs } = dateRange(p);
  const keyFields = [...new Set([...groups, 'Stat.currency'])];
  const byDay = groups.some((g) => ['Stat.date', 'Stat.month', 'Stat.year'].includes(g));
  const byOffer = groups.includes('Stat.offer_id') || groups.includes('Offer.name');
  const bySubid = groups.includes('Stat.affiliate_info1');
  report([], p, [], STAT_FIELDS, () => ({})); // bad filters, sort or paging answer before any read
  // Merchant-reported sales (not ledger entries) and clicks, from the stats read model.
  const calendar = offsetCalendar(offsetMs);
  const facts = await accountFacts(deps, principal, {
    from: from.getTime(),
    to: to.getTime(),
    // Months (and years) are whole local months: their buckets need no cut at every midnight.
    ...(byDay ? { calendar, bucket: groups.includes('Stat.date') ? ('day' as const) : ('month' as const) } : {}),
    bySubid,
    byProgram: byOffer,
  });
  type Key = { day?: string; offer?: number; subid?: string };
  const keyOf = (f: Fact): Key => ({
    ...(byDay ? { day: calendar.dayOf(f.at) } : {}),
    ...(byOffer && f.program_id !== null ? { offer: f.program_id } : {}),
    ...(bySubid ? { subid: f.subid ?? '' } : {}),
  });
  const sales: Array<{ _id: Key & { currency: string; status: string }; n: number; payout: string; sale: string }> = [];
  const clicks: Array<{ _id: Key; n: number }> = [];
  for (const f of facts) {
    if (f.clicks) clicks.push({ _id: keyOf(f), n: f.clicks });
    const c = f.conversion;
    if (c && c.source === 'v1' && c.n !== 0)
      sales.push({ _id: { ...keyOf(f), currency: c.currency, status: c.status }, n: c.n, payout: c.commission, sale: c.sale });
  }
  const names = await offerNames(
    deps,
    [...sales.map((s) => s._id.offer), ...clicks.map((c) => c._id.offer)].filter((x): x is number => typeof x === 'number'),
  );
  const baseKey = (k: { day?: string; offer?: number; subid?: string }) => JSON.stringify([k.day ?? null, k.offer ?? null, k.subid ?? null]);
  interface Acc {
    key: { day?: string; offer?: number; subid?: string };
    currency: string;
    clicks: number;
    conversions: number;
    payout: string[];
    sale: string[];
    approved: string[];
    pending: string[];
    rejected: string[];
  }
  const acc = new Map<string, Acc>();
  const accOf = (k: Acc['key'], currency: string) => {
    const id = `${baseKey(k)}|${currency}`;
    let a = acc.get(id);
    if (!a) acc.set(id, (a = { key: k, currency, clicks: 0, conversions: 0, payout: [], sale: [], approved: [], pending: [], rejected: [] }));
    return a;
  };
  const currenciesOf = new Map<string, Set<string>>();
  for (const s of sales) {
    const a = accOf(s._id, s._id.currency);
    a.conversions += s.n;
    a.payout.push(s.payout.toString());
    a.sale.push(s.sale.toString());
    (s._id.status === 'approved' ? a.approved : s._id.status === 'pending' ? a.pending : a.rejected).push(s.payout.toString());
    currenciesOf.set(baseKey(s._id), (currenciesOf.get(baseKey(s._id)) ?? new Set()).add(s._id.currency));
  }
  // Clicks have no currency: they go with the group's currency (the program's, for clicks without sales).
  for (const c of clicks) {
    const curs = currenciesOf.get(baseKey(c._id));
    const currency = [...(curs ?? [])].sort()[0] ?? '';
    accOf(c._id, currency).clicks += c.n;
  }
  const money = (vs: string[], currency: string) => amountIn(addDecimals(vs.map((v) => parseDecimal(v))), currency);
  const rows: Row[] = [...acc.values()].map((a) => {
    const payout = money(a.payout, a.currency);
    return {
      'Stat.date': a.key.day ?? null,
      'Stat.month': a.key.day ? a.key.day.slice(0, 7) : null,
      'Stat.year': a.key.day ? a.key.day.slice(0, 4) : null,
      'Stat.hour': 0,
      'Stat.offer_id': a.key.offer ?? null,
      'Offer.name': a.key.offer !== undefined ? (names.get(a.key.offer) ?? '') : null,
      'Stat.affiliate_info1': a.key.subid ?? (bySubid ? '' : null),
      'Stat.affiliate_info2': '',
      'Stat.affiliate_info3': '',
      'Stat.affiliate_info4': '',
      'Stat.affiliate_info5': '',
      'Stat.currency': a.currency || null,
      'Stat.clicks': a.clicks,
      'Stat.unique_clicks': a.clicks,
      'Stat.conversions': a.conversions,
      'Stat.payout': payout,
      'Stat.approved_payout': money(a.approved, a.currency),
      'Stat.pending_payout': money(a.pending, a.currency),
      'Stat.rejected_payout': money(a.rejected, a.currency),
      'Stat.sale_amount': money(a.sale, a.currency),
      'Stat.impressions': 0,
      'Stat.ctr': 0,
      'Stat.cpm': 0,
      'Stat.ltr': a.clicks ? formatDecimal(divideDecimals(String(a.conversions * 100), String(a.clicks), 2), 2) : '0.00',
      'Stat.cpc': a.clicks ? formatDecimal(divideDecimals(payout, String(a.clicks), 4), 4) : '0.0000',
      'Stat.epc': a.clicks ? formatDecimal(divideDecimals(payout, String(a.clicks), 4), 4) : '0.0000',
      'Stat.source': '',
      'Stat.goal_id': 0,
    };
  });
  // Month and year groups fold the days.
  const folded = foldRows(rows, keyFields);
  const shownFields = [...new Set([...groups, ...fields])];
  return report(folded, p, shownFields, STAT_FIELDS, (kept) => ({
    'Stat.clicks': kept.reduce((n, r) => n + Number(r['Stat.clicks']), 0),
    'Stat.conversions': kept.reduce((n, r) => n + Number(r['Stat.conversions']), 0),
    'Stat.payout': sumMoney(kept, 'Stat.payout'),
    'Stat.sale_amount': sumMoney(kept, 'Stat.sale_amount'),
  }));
}

/** Rows with the same values of the group fields merged (days into months or years, currencies apart). */
function foldRows(rows: Row[], keyFields: string[]): Row[] {
  const keep = keyFields.filter((f) => f !== 'Stat.date' || keyFields.includes('Stat.date'));
  const out = new Map<string, Row>();
  for (const r of rows) {
    const id = JSON.stringify(keep.map((f) => r[f]));
    const prev = out.get(id);
    if (!prev) {
      out.set(id, { ...r, ...(keyFields.includes('Stat.date') ? {} : { 'Stat.date': null }) });
      continue;
    }
    for (const f of ['Stat.clicks', 'Stat.unique_clicks', 'Stat.conversions']) prev[f] = Number(prev[f]) + Number(r[f]);
    for (const f of ['Stat.payout', 'Stat.approved_payout', 'Stat.pending_payout', 'Stat.rejected_payout', 'Stat.sale_amount'])
      prev[f] = amountIn(addDecimals([parseDecimal(String(prev[f])), parseDecimal(String(r[f]))]), prev['Stat.currency']);
    const clicks = Number(prev['Stat.clicks']);
    prev['Stat.ltr'] = clicks ? formatDecimal(divideDecimals(String(Number(prev['Stat.conversions']) * 100), String(clicks), 2), 2) : '0.00';
    prev['Stat.cpc'] = prev['Stat.epc'] = clicks ? formatDecimal(divideDecimals(String(prev['Stat.payout']), String(clicks), 4), 4) : '0.0000';
  }
  return [...out.values()];
}
