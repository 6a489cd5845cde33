/**
 * Sales split by channel (`link`, `code`, `agent`, `inquiry`: how a sale was attributed). The
 * stats read model does not key channels (decision record 0057), so every split here groups the
 * conversions themselves on the `{publisher_id, occurred_at}` index over a bounded range (at most
 * 366 days of one account): exact, as the read model is, and live (no `as_of` lag).
 *
 * - `channelGroups`: the one aggregation (channel, status, currency) the split reads, shared by
 *   GET /reports/?group_by=channel, the dashboard and the reporting API's summary.
 * - `accountChannels`: the dashboard's split for a range of days in the account's zone: every
 *   channel (zeros included), conversions per status and commission per status and currency.
 */
import type { Policy, Principal } from '@cw/auth';
import { ApiError } from '@cw/errors';
import { addDecimals, moneyIn, parseDecimal } from '@cw/money';
import { useCase, type InputOf } from '@cw/usecase';
import { addDays, daysBetween, nextDay, zoneCalendar } from '@cw/stats';
import { own, type ReportsDeps } from './deps';

/** Every channel a sale is attributed by, in the order they are shown. */
export const CHANNELS = ['link', 'code', 'agent', 'inquiry'] as const;
export type Channel = (typeof CHANNELS)[number];
type Status = 'pending' | 'approved' | 'declined';

export interface ChannelGroup {
  /** Rows from before channels existed carry none: they are links. */
  channel: Channel;
  status: Status;
  currency: string;
  n: number;
  sale: string;
  commission: string;
}

/** Conversions of an account in [from, to) grouped by channel, status and currency (Decimal128 summed in the database). */
export async function channelGroups(
  deps: Pick<ReportsDeps, 'data'>,
  publisherId: string,
  range: { from?: number; to?: number },
  filter: { subid?: string; status?: Status; source?: 'v1'; campaignId?: number } = {},
): Promise<ChannelGroup[]> {
  const match: Record<string, unknown> = { publisher_id: publisherId };
  if (range.from !== undefined || range.to !== undefined)
    match.occurred_at = {
      ...(range.from !== undefined ? { $gte: new Date(range.from) } : {}),
      ...(range.to !== undefined ? { $lt: new Date(range.to) } : {}),
    };
  if (filter.subid !== undefined) match.subid = filter.subid;
  if (filter.status !== undefined) match.status = filter.status;
  if (filter.source !== undefined) match.source = filter.source;
  if (filter.campaignId !== undefined) match.campaign_id = filter.campaignId;
  const rows = await own(deps).Conversion.aggregate<{
    _id: { channel: string | null; status: Status; currency: string };
    n: number;
    sale: { toString(): string };
    commission: { toString(): string };
  }>([
    { $match: match },
    {
      $group: {
        _id: { channel: '$channel', status: '$status', currency: '$currency' },
        n: { $sum: 1 },
        sale: { $sum: '$sale_amount' },
        commission: { $sum: '$commission' },
      },
    },
  ]);
  return rows.map((r) => ({
    channel: (CHANNELS as readonly string[]).includes(r._id.channel ?? '') ? (r._id.channel as Channel) : 'link',
    status: r._id.status,
    currency: r._id.currency,
    n: r.n,
    sale: r.sale.toString(),
    commission: r.commission.toString(),
  }));
}

/** Decimal strings per currency (currencies in order, each at its minor unit). */
export function sumByCurrency(rows: Array<{ currency: string; value: string }>): Record<string, string> {
  const acc = new Map<string, string[]>();
  for (const r of rows) acc.set(r.currency, [...(acc.get(r.currency) ?? []), r.value]);
  return Object.fromEntries(
    [...acc].sort(([a], [b]) => a.localeCompare(b)).map(([cur, vs]) => [cur, moneyIn(addDecimals(vs.map((v) => parseDecimal(v))), cur)]),
  );
}

const POLICY: Policy = { budget: 'reporting', scope: 'reports:read' };
const MAX_DAYS = 366;
const DEFAULT_DAYS = 30;
const DAY = { type: 'string', format: 'date', description: "Day of the time zone's calendar, YYYY-MM-DD (inclusive)." } as const;

export const CHANNELS_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    date_from: DAY,
    date_to: { ...DAY, description: "Day of the time zone's calendar, YYYY-MM-DD (inclusive), not before date_from. Default: today." },
    timezone: { type: 'string', minLength: 1, maxLength: 64, description: "IANA time zone whose calendar the days are. Default: the account's." },
  },
} as const;

const SUMS = { type: 'object', additionalProperties: { type: 'string' }, description: 'Decimal strings per ISO 4217 currency.' };

export const CHANNELS_SCHEMA = {
  type: 'object',
  required: ['timezone', 'date_from', 'date_to', 'channels'],
  properties: {
    timezone: { type: 'string' },
    date_from: { type: 'string', format: 'date' },
    date_to: { type: 'string', format: 'date' },
    channels: {
      type: 'array',
      description: 'Every channel, in the order link, code, agent, inquiry (zeros included).',
      items: {
        type: 'object',
        required: ['channel', 'conversions', 'commission'],
        properties: {
          channel: { type: 'string', enum: CHANNELS },
          conversions: {
            type: 'object',
            properties: { total: { type: 'integer' }, pending: { type: 'integer' }, approved: { type: 'integer' }, declined: { type: 'integer' } },
          },
          commission: {
            type: 'object',
            description: 'Per status; earned = pending + approved.',
            properties: { earned: SUMS, pending: SUMS, approved: SUMS, declined: SUMS },
          },
        },
      },
    },
  },
};

const invalid = (param: string, detail: string) =>
  new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}': ${detail}.`, errors: [{ param, detail }] });

/** The dashboard's split by channel for a range of days in a time zone (default: the last 30 days, the account's zone). */
export const accountChannels = useCase(
  POLICY,
  async function accountChannels(deps: ReportsDeps, principal: Principal, input: InputOf<typeof CHANNELS_INPUT>, now: Date = new Date()) {
    const calendar = zoneCalendar(input.timezone ?? (principal.publisher as { timezone?: string }).timezone ?? 'UTC');
    const dateTo = input.date_to ?? calendar.dayOf(now.getTime());
    const dateFrom = input.date_from ?? addDays(dateTo, -(DEFAULT_DAYS - 1));
    if (dateFrom > dateTo) throw invalid('date_from', 'must not be after date_to');
    if (daysBetween(dateFrom, dateTo) + 1 > MAX_DAYS) throw invalid('date_from', `the range exceeds ${MAX_DAYS} days`);
    const groups = await channelGroups(deps, principal.publisher._id, { from: calendar.dayStart(dateFrom), to: calendar.dayStart(nextDay(dateTo)) });
    const of = (channel: Channel, ...statuses: Status[]) =>
      sumByCurrency(groups.filter((g) => g.channel === channel && statuses.includes(g.status)).map((g) => ({ currency: g.currency, value: g.commission })));
    const count = (channel: Channel, status: Status) => groups.filter((g) => g.channel === channel && g.status === status).reduce((n, g) => n + g.n, 0);
    return {
      timezone: calendar.name,
      date_from: dateFrom,
      date_to: dateTo,
      channels: CHANNELS.map((channel) => {
        const [pending, approved, declined] = [count(channel, 'pending'), count(channel, 'approved'), count(channel, 'declined')];
        return {
          channel,
          conversions: { total: pending + approved + declined, pending, approved, declined },
          commission: {
            earned: of(channel, 'pending', 'approved'),
            pending: of(channel, 'pending'),
            approved: of(channel, 'approved'),
            declined: of(channel, 'declined'),
          },
        };
      }),
    };
  },
  CHANNELS_INPUT,
);
