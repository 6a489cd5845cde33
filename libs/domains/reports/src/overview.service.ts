/**
 * The numbers a publisher looks at first (the portal's dashboard) and the totals of given links,
 * all from the stats read model: a handful of cell reads per range, never the account's rows.
 *
 * - `accountOverview`: for a range of days in a time zone, clicks, conversions per status,
 *   commission per status and currency (earned = pending + approved), the earned commission in the
 *   payout currency (indicative rates), conversion rate and EPC; the same totals for the previous
 *   period of the same length; a dense time series (days up to 62 days, ISO weeks up to 26 weeks,
 *   months beyond). A few cells of the account view per month: fast at any size.
 * - `accountTop`: the top sub-IDs, programs and links of the range, from the read model's roll-ups
 *   (a document per UTC day or month holding every key's totals; the partial days at a zone's
 *   edges from the day cells), merged exactly before ranking: a bounded number of documents for
 *   any range. The page still loads it apart, so the totals never wait for it.
 * - `linkTotals`: clicks, conversions and commission of up to 100 links over a range.
 *
 * Its totals are the reports': conversions and commission per status equal GET /reports
 * (group_by=status) for the same range and zone, clicks equal the reporting API's /summary.
 */
import { ApiError } from '@cw/errors';
import type { Policy, Principal } from '@cw/auth';
import { addDecimals, compareDecimals, divideDecimals, formatDecimal, moneyIn, multiplyDecimals, parseDecimal, type Dec } from '@cw/money';
import { useCase, type InputOf } from '@cw/usecase';
import { addDays, bucketOf, countedAsOf, daysBetween, nextDay, readFacts, zoneCalendar, type Bucket, type Calendar, type Fact } from '@cw/stats';
import type { ReportsDeps } from './deps';

const POLICY: Policy = { budget: 'reporting', scope: 'reports:read' };

const MAX_DAYS = 366;
const DEFAULT_DAYS = 30;
const ZONE = { type: 'string', minLength: 1, maxLength: 64, description: "IANA time zone whose calendar the days are. Default: the account's." } as const;
const DAY = { type: 'string', format: 'date', description: "Day of the time zone's calendar, YYYY-MM-DD (inclusive)." } as const;

export const OVERVIEW_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    date_from: DAY,
    date_to: { ...DAY, description: "Day of the time zone's calendar, YYYY-MM-DD (inclusive), not before date_from. Default: today." },
    timezone: ZONE,
  },
} as const;

export const TOP_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...OVERVIEW_INPUT.properties,
    top: { type: 'integer', minimum: 1, maximum: 20, default: 5, description: 'How many sub-IDs, programs and links to rank.' },
  },
} as const;

export const LINK_TOTALS_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['ids'],
  properties: {
    ids: { type: 'string', minLength: 1, maxLength: 5000, description: 'Comma-separated link ids (deeplink ids), at most 100.' },
    date_from: { ...DAY, description: 'Default: every day the account has.' },
    date_to: DAY,
    timezone: ZONE,
  },
} as const;

type Sums = Record<string, string>;
type Status = 'pending' | 'approved' | 'declined';

/** Sums of one group or period, exact. */
class Tally {
  clicks = 0;
  readonly n: Record<Status, number> = { pending: 0, approved: 0, declined: 0 };
  readonly money: Record<Status, Map<string, Dec[]>> = { pending: new Map(), approved: new Map(), declined: new Map() };

  add(f: Fact): void {
    this.clicks += f.clicks;
    const c = f.conversion;
    if (!c) return;
    this.n[c.status] += c.n;
    const m = this.money[c.status];
    m.set(c.currency, [...(m.get(c.currency) ?? []), parseDecimal(c.commission)]);
  }

  get conversions(): number {
    return this.n.pending + this.n.approved + this.n.declined;
  }

  /** Commission per currency of the given statuses (currencies in order, each at its minor unit). */
  commission(...statuses: Status[]): Map<string, Dec> {
    const acc = new Map<string, Dec[]>();
    for (const s of statuses) for (const [cur, vs] of this.money[s]) acc.set(cur, [...(acc.get(cur) ?? []), ...vs]);
    return new Map([...acc].sort(([a], [b]) => a.localeCompare(b)).map(([cur, vs]) => [cur, addDecimals(vs)]));
  }
}

const show = (m: Map<string, Dec>): Sums => Object.fromEntries([...m].map(([cur, d]) => [cur, moneyIn(d, cur)]));

/** An amount converted through the configured indicative USD rates, exact to 6 decimals (null: no rate). */
function convert(rates: Record<string, string>, amount: Dec, from: string, to: string): Dec | null {
  if (from === to) return amount;
  const a = rates[from];
  const b = rates[to];
  return a && b ? divideDecimals(multiplyDecimals(amount, a), b, 6) : null;
}

function totalsOf(t: Tally, payout: string, rates: Record<string, string>) {
  const earned = t.commission('pending', 'approved');
  const converted = [...earned].map(([cur, d]) => convert(rates, d, cur, payout));
  const unconvertible = [...earned.keys()].filter((_, i) => converted[i] === null);
  const earnedHuman = t.n.pending + t.n.approved;
  return {
    clicks: t.clicks,
    conversions: { total: t.conversions, pending: t.n.pending, approved: t.n.approved, declined: t.n.declined },
    commission: {
      earned: show(earned),
      pending: show(t.commission('pending')),
      approved: show(t.commission('approved')),
      declined: show(t.commission('declined')),
    },
    earned_in_payout_currency: {
      currency: payout,
      amount: moneyIn(addDecimals(converted.filter((d): d is Dec => d !== null)), payout),
      approximate: [...earned.keys()].some((c) => c !== payout),
      ...(unconvertible.length ? { not_converted: unconvertible } : {}),
    },
    conversion_rate: t.clicks ? formatDecimal(divideDecimals(String(earnedHuman), String(t.clicks), 4), 4) : null,
    epc: t.clicks ? Object.fromEntries([...earned].map(([cur, d]) => [cur, formatDecimal(divideDecimals(d, String(t.clicks), 4), 4)])) : {},
  };
}

/**
 * Ranks by earned commission in the payout currency, then conversions, then clicks, then key (so
 * a top list is the same whichever order the read model answers its groups in).
 */
function rank<K extends string>(groups: Map<K, Tally>, payout: string, rates: Record<string, string>, top: number): Array<[K, Tally]> {
  const value = (t: Tally) => addDecimals([...t.commission('pending', 'approved')].map(([cur, d]) => convert(rates, d, cur, payout) ?? parseDecimal('0')));
  const scored = [...groups].map(([k, t]) => ({ k, t, v: value(t) }));
  scored.sort((a, b) => compareDecimals(b.v, a.v) || b.t.conversions - a.t.conversions || b.t.clicks - a.t.clicks || (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  return scored
    .filter((s) => s.t.clicks || s.t.conversions)
    .slice(0, top)
    .map((s) => [s.k, s.t]);
}

interface Range {
  dateFrom: string;
  dateTo: string;
  days: number;
  from: number;
  to: number;
}

function invalid(param: string, detail: string): ApiError {
  return new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}': ${detail}.`, errors: [{ param, detail }] });
}

function rangeOf(calendar: Calendar, dateFrom: string, dateTo: string): Range {
  if (dateFrom > dateTo) throw invalid('date_from', 'must not be after date_to');
  const days = daysBetween(dateFrom, dateTo) + 1;
  if (days > MAX_DAYS) throw invalid('date_from', `the range exceeds ${MAX_DAYS} days`);
  return { dateFrom, dateTo, days, from: calendar.dayStart(dateFrom), to: calendar.dayStart(nextDay(dateTo)) };
}

/** The bucket a range is charted in: days up to 62 days, weeks up to 26 weeks, months beyond. */
export const bucketFor = (days: number): Bucket => (days <= 62 ? 'day' : days <= 183 ? 'week' : 'month');

const zoneOf = (principal: Principal, asked: string | undefined) => asked ?? (principal.publisher as { timezone?: string }).timezone ?? 'UTC';

const row = (t: Tally) => ({
  clicks: t.clicks,
  conversions: t.conversions,
  earned: show(t.commission('pending', 'approved')),
  conversion_rate: t.clicks ? formatDecimal(divideDecimals(String(t.n.pending + t.n.approved), String(t.clicks), 4), 4) : null,
});

function group<K>(list: Fact[], key: (f: Fact) => K): Map<K, Tally> {
  const m = new Map<K, Tally>();
  for (const f of list) {
    const k = key(f);
    let t = m.get(k);
    if (!t) m.set(k, (t = new Tally()));
    t.add(f);
  }
  return m;
}

/** The dashboard's numbers for a range of days in a time zone (default: the last 30 days, the account's zone). */
export const accountOverview = useCase(
  POLICY,
  async function accountOverview(deps: ReportsDeps, principal: Principal, input: InputOf<typeof OVERVIEW_INPUT>, now: Date = new Date()) {
    const calendar = zoneCalendar(zoneOf(principal, input.timezone));
    const dateTo = input.date_to ?? calendar.dayOf(now.getTime());
    const range = rangeOf(calendar, input.date_from ?? addDays(dateTo, -(DEFAULT_DAYS - 1)), dateTo);
    const previous = rangeOf(calendar, addDays(range.dateFrom, -range.days), addDays(range.dateFrom, -1));
    const bucket = bucketFor(range.days);
    const publisherId = principal.publisher._id;
    const payout = (principal.publisher as { payout?: { currency?: string } }).payout?.currency ?? 'EUR';
    const rates = deps.config.usdRates;
    // Read only (docs/decisions/0046-stats-read-contract.md): how fresh the cells are, then the cells.
    const asOf = await countedAsOf(deps, publisherId);
    const span = { publisherId, from: range.from, to: range.to };
    const [series, before] = await Promise.all([
      readFacts(deps, { ...span, calendar, bucket }),
      readFacts(deps, { publisherId, from: previous.from, to: previous.to }),
    ]);

    // The series: every period of the range (dense), keyed by its first day.
    const periods = new Map<string, Tally>();
    for (let d = range.dateFrom, i = 0; i < range.days; d = nextDay(d), i++)
      if (!periods.has(bucketOf(d, bucket))) periods.set(bucketOf(d, bucket), new Tally());
    const total = new Tally();
    for (const f of series) {
      total.add(f);
      periods.get(bucketOf(calendar.dayOf(f.at), bucket))?.add(f);
    }
    const prev = new Tally();
    for (const f of before) prev.add(f);

    return {
      timezone: calendar.name,
      date_from: range.dateFrom,
      date_to: range.dateTo,
      bucket,
      payout_currency: payout,
      as_of: asOf.toISOString(),
      totals: totalsOf(total, payout, rates),
      previous: { date_from: previous.dateFrom, date_to: previous.dateTo, totals: totalsOf(prev, payout, rates) },
      series: [...periods].map(([period, t]) => ({ period, ...row(t) })),
    };
  },
  OVERVIEW_INPUT,
);

/** The range's top sub-IDs, programs and links (ranked by earned commission in the payout currency, then conversions, then clicks). */
export const accountTop = useCase(
  POLICY,
  async function accountTop(deps: ReportsDeps, principal: Principal, input: InputOf<typeof TOP_INPUT>, now: Date = new Date()) {
    const calendar = zoneCalendar(zoneOf(principal, input.timezone));
    const dateTo = input.date_to ?? calendar.dayOf(now.getTime());
    const range = rangeOf(calendar, input.date_from ?? addDays(dateTo, -(DEFAULT_DAYS - 1)), dateTo);
    const publisherId = principal.publisher._id;
    const payout = (principal.publisher as { payout?: { currency?: string } }).payout?.currency ?? 'EUR';
    const rates = deps.config.usdRates;
    const asOf = await countedAsOf(deps, publisherId);
    const span = { publisherId, from: range.from, to: range.to };
    const [bySubid, byProgram, byLink] = await Promise.all([
      readFacts(deps, { ...span, bySubid: true }),
      readFacts(deps, { ...span, byProgram: true }),
      readFacts(deps, { ...span, byLink: true }),
    ]);
    const topSubids = rank(
      group(bySubid, (f) => f.subid ?? ''),
      payout,
      rates,
      input.top,
    );
    const topPrograms = rank(
      group(byProgram, (f) => `${f.program_id ?? ''}:${f.campaign_id ?? ''}`),
      payout,
      rates,
      input.top,
    );
    const linkGroups = group(byLink, (f) => f.link_id ?? '');
    linkGroups.delete('');
    const topLinks = rank(linkGroups, payout, rates, input.top);
    const campaignIds = new Set<number>();
    for (const [k] of topPrograms) if (k.split(':')[1]) campaignIds.add(Number(k.split(':')[1]));
    const [names, links] = await Promise.all([deps.data.programs.merchantNames([...campaignIds]), deps.data.links.byCodes(topLinks.map(([id]) => id))]);
    const linkNames = links.size
      ? await deps.data.programs.merchantNames([...new Set([...links.values()].map((l) => l.campaign_id))])
      : new Map<number, string>();

    return {
      timezone: calendar.name,
      date_from: range.dateFrom,
      date_to: range.dateTo,
      payout_currency: payout,
      as_of: asOf.toISOString(),
      subids: topSubids.map(([subid, t]) => ({ subid: subid || null, ...row(t) })),
      programs: topPrograms.map(([k, t]) => {
        const [program, campaign] = k.split(':');
        const campaignId = campaign ? Number(campaign) : null;
        return {
          program_id: program ? Number(program) : null,
          merchant: campaignId === null ? null : { id: campaignId, name: names.get(campaignId) ?? '' },
          ...row(t),
        };
      }),
      links: topLinks.map(([id, t]) => {
        const l = links.get(id);
        return {
          link_id: id,
          landing_url: l?.landing_url ?? null,
          subid: l?.subid || null,
          program_id: l?.program_id ?? null,
          merchant: l ? { id: l.campaign_id, name: linkNames.get(l.campaign_id) ?? '' } : null,
          ...row(t),
        };
      }),
    };
  },
  TOP_INPUT,
);

/** Clicks, conversions and commission of up to 100 of the account's links (others' ids count nothing). */
export const linkTotals = useCase(
  POLICY,
  async function linkTotals(deps: ReportsDeps, principal: Principal, input: InputOf<typeof LINK_TOTALS_INPUT>) {
    const ids = [
      ...new Set(
        input.ids
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ];
    if (!ids.length) throw invalid('ids', 'name at least one link id');
    if (ids.length > 100) throw invalid('ids', 'at most 100 link ids');
    const calendar = zoneCalendar(zoneOf(principal, input.timezone));
    let from: number | undefined;
    let to: number | undefined;
    if (input.date_from || input.date_to) {
      const r = rangeOf(calendar, input.date_from ?? input.date_to!, input.date_to ?? calendar.dayOf(Date.now()));
      from = r.from;
      to = r.to;
    }
    const tallies = new Map(ids.map((id) => [id, new Tally()]));
    for (const f of await readFacts(deps, { publisherId: principal.publisher._id, from, to, linkIds: ids })) if (f.link_id) tallies.get(f.link_id)?.add(f);
    return {
      timezone: calendar.name,
      date_from: input.date_from ?? null,
      date_to: input.date_to ?? null,
      data: ids.map((id) => {
        const t = tallies.get(id)!;
        return {
          link_id: id,
          clicks: t.clicks,
          conversions: t.conversions,
          pending: t.n.pending,
          approved: t.n.approved,
          declined: t.n.declined,
          commission: show(t.commission('pending', 'approved')),
        };
      }),
    };
  },
  LINK_TOTALS_INPUT,
);
