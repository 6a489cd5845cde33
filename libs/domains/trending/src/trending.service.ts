/**
 * Trending opportunities for a subscribed publisher: items of released plans in its subscribed
 * channels, best score first. An item is `available` (with the caller's tracked link) only when
 * the program is active, the caller's assignment approved and its eligibility fresh; otherwise it
 * is `unavailable` with the reason and no url.
 */
import { randomBytes } from 'node:crypto';
import type { Policy, Principal } from '@cw/auth';
import { TRENDING_CHANNELS, type TrendingPlanDoc } from './data/trending-plan.schema';
import { ApiError } from '@cw/errors';
import { ensureLinks, trackedUrl } from '@cw/links';
import { useCase, type InputOf } from '@cw/usecase';
import { own, type TrendingDeps } from './deps';

/** API keys (demo keys refused), with the trending budget (60/min per account). */
const TRENDING_POLICY: Policy = { budget: 'trending' };

/** An approved assignment whose eligibility was confirmed longer ago than this is stale. */
export const ELIGIBILITY_FRESH_DAYS = 30;

export const TRENDING_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    format: { type: 'string', enum: ['json', 'csv'], default: 'json' },
    country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO alpha-2 audience country; UK is accepted as GB.' },
    channel: { type: 'string', enum: TRENDING_CHANNELS, description: 'One of your subscribed channels; default: all of them.' },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 20 },
  },
} as const;

export const TRENDING_COLUMNS = [
  'id',
  'plan_id',
  'title',
  'country',
  'channel',
  'program_id',
  'merchant_id',
  'merchant_name',
  'score',
  'status',
  'reason',
  'url',
] as const;

export type UnavailableReason = 'not_approved' | 'eligibility_stale' | 'program_paused';
type PlanRow = TrendingPlanDoc & { _id: string };

export interface TrendingItem {
  id: string;
  plan_id: string;
  title: string;
  country: string;
  channel: string;
  program_id: number;
  merchant: { id: number; name: string };
  score: number;
  status: 'available' | 'unavailable';
  reason?: UnavailableReason;
  url?: string;
}

const notFound = () => new ApiError({ code: 'not_found', detail: 'Trending opportunities are not enabled for this account.' });

export const trendingOpportunities = useCase(
  TRENDING_POLICY,
  async function trendingOpportunities(deps: TrendingDeps, principal: Principal, input: InputOf<typeof TRENDING_INPUT>, now: Date = new Date()) {
    const me = principal.publisher;
    if (!deps.config.trendingEnabled || !me.trending_subscribed) throw notFound();
    const subscribed = me.trending_channels ?? [];
    if (input.channel && !subscribed.includes(input.channel)) {
      throw new ApiError({
        code: 'invalid_parameter',
        detail: `Invalid parameter 'channel': ${input.channel} is not one of your subscribed channels (${subscribed.join(', ') || 'none'}).`,
        errors: [{ param: 'channel', detail: 'is not a subscribed channel' }],
      });
    }
    const country = input.country === 'UK' ? 'GB' : input.country;
    const filter: Record<string, unknown> = {
      released_at: { $ne: null, $lte: now },
      channel: { $in: input.channel ? [input.channel] : subscribed },
      ...(country ? { country } : {}),
    };
    const plans = await own(deps).TrendingPlan.find(filter).lean<PlanRow[]>();
    const ranked = plans
      .flatMap((plan) => plan.items.map((item) => ({ plan, item })))
      .sort((a, b) => b.item.score - a.item.score || (a.item._id < b.item._id ? -1 : 1))
      .slice(0, input.limit);

    const programIds = [...new Set(ranked.map((r) => r.item.program_id))];
    const programs = await deps.data.programs.byIds(programIds);
    const memberships = await deps.data.programs.membershipsOf(me._id, programIds);
    const names = await deps.data.programs.merchantNames([...programs.values()].map((p) => p.merchant_id));
    const freshSince = now.getTime() - ELIGIBILITY_FRESH_DAYS * 86_400_000;
    const reasonOf = (programId: number): UnavailableReason | undefined => {
      const program = programs.get(programId);
      if (!program || program.status !== 'active') return 'program_paused';
      const m = memberships.get(programId);
      if (m?.status !== 'approved') return 'not_approved';
      if (!m.eligibility_checked_at || m.eligibility_checked_at.getTime() < freshSince) return 'eligibility_stale';
      return undefined;
    };
    const reasons = ranked.map((r) => reasonOf(r.item.program_id));
    const linkable = ranked.filter((_, i) => !reasons[i]);
    const links = await ensureLinks(
      deps.data.links,
      deps.config.secretKey,
      linkable.map((r) => {
        const program = programs.get(r.item.program_id)!;
        return {
          publisherId: me._id,
          programId: program._id,
          merchantId: program.merchant_id,
          landingUrl: r.item.landing_url || program.default_landing_url,
          subid: '',
        };
      }),
      { source: 'api' },
    );
    let k = 0;
    const data: TrendingItem[] = ranked.map((r, i) => {
      const program = programs.get(r.item.program_id);
      const merchantId = program?.merchant_id ?? 0;
      const base = {
        id: r.item._id,
        plan_id: r.plan._id,
        title: r.item.title,
        country: r.plan.country,
        channel: r.plan.channel,
        program_id: r.item.program_id,
        merchant: { id: merchantId, name: names.get(merchantId) ?? '' },
        score: r.item.score,
      };
      return reasons[i]
        ? { ...base, status: 'unavailable', reason: reasons[i] }
        : { ...base, status: 'available', url: trackedUrl(deps.config.trackingUrl, links[k++]!.code) }; // one link per available item, in order
    });
    return { data, count: data.length, country: country ?? null, channel: input.channel ?? null, channels: subscribed, generated_at: now };
  },
  TRENDING_INPUT,
);

/** The CSV rows of the same items (TRENDING_COLUMNS). */
export function trendingRows(items: TrendingItem[]): Array<Record<string, unknown>> {
  return items.map((t) => ({ ...t, merchant_id: t.merchant.id, merchant_name: t.merchant.name, reason: t.reason ?? '', url: t.url ?? '' }));
}

export interface NewPlanItem {
  program_id: number;
  title: string;
  score: number;
  landing_url?: string;
}

/** Operators: a plan (unreleased until `releasePlan`). Programs must exist; scores 0 to 1. */
export async function createPlan(deps: Pick<TrendingDeps, 'data'>, p: { title: string; country: string; channel: string; items: NewPlanItem[] }) {
  const invalid = (param: string, detail: string) =>
    new ApiError({ code: 'invalid_parameter', detail: `Invalid ${param}: ${detail}.`, errors: [{ param, detail }] });
  if (!/^[A-Z]{2}$/.test(p.country)) throw invalid('country', 'must be ISO alpha-2');
  if (!(TRENDING_CHANNELS as readonly string[]).includes(p.channel)) throw invalid('channel', `must be one of ${TRENDING_CHANNELS.join(', ')}`);
  if (!p.items.length) throw invalid('items', 'a plan needs at least one item');
  const known = new Set(
    (
      await deps.data.programs.byIds(
        p.items.map((i) => i.program_id),
        { _id: 1 },
      )
    ).keys(),
  );
  p.items.forEach((item, i) => {
    if (!known.has(item.program_id)) throw invalid(`items[${i}].program_id`, `program ${item.program_id} does not exist`);
    if (!item.title) throw invalid(`items[${i}].title`, 'is required');
    if (!(item.score >= 0 && item.score <= 1)) throw invalid(`items[${i}].score`, 'must be from 0 to 1');
  });
  const doc = await own(deps).TrendingPlan.create({
    _id: `tpl_${randomBytes(9).toString('base64url')}`,
    title: p.title,
    country: p.country,
    channel: p.channel as (typeof TRENDING_CHANNELS)[number],
    items: p.items.map((item) => ({ _id: `trd_${randomBytes(9).toString('base64url')}`, ...item })),
  });
  return doc.toObject();
}

/** Operators: releases a plan now; false when there is no such unreleased plan. */
export async function releasePlan(deps: Pick<TrendingDeps, 'data'>, id: string, now = new Date()): Promise<boolean> {
  return (await own(deps).TrendingPlan.updateOne({ _id: id, released_at: null }, { $set: { released_at: now } })).modifiedCount === 1;
}

/** Operators: subscribes an account to trending opportunities in some channels (none: unsubscribes). */
export async function subscribeTrending(deps: Pick<TrendingDeps, 'data'>, publisherId: string, channels: string[]) {
  for (const c of channels) {
    if (!(TRENDING_CHANNELS as readonly string[]).includes(c))
      throw new ApiError({ code: 'invalid_parameter', detail: `"${c}" is not one of ${TRENDING_CHANNELS.join(', ')}` });
  }
  const updated = await deps.data.auth.updatePublisher(publisherId, { trending_subscribed: channels.length > 0, trending_channels: [...new Set(channels)] });
  if (!updated) throw new ApiError({ code: 'not_found', detail: `publisher ${publisherId} does not exist` });
  return { account_id: publisherId, trending_subscribed: channels.length > 0, trending_channels: [...new Set(channels)] };
}
