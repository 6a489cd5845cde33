/**
 * Payouts as their publisher sees them (`GET /payouts/`, `GET /payouts/{id}`, the portal's
 * payments page, MCP) and the owner's request (`POST /payouts/`, "Request payment"): the whole
 * available balance in the payout currency, made a run of its own that an admin approves.
 */
import { randomBytes } from 'node:crypto';
import { actorOf } from '@cw/audit';
import { OWNERS, type Policy, type Principal } from '@cw/auth';
import { ApiError } from '@cw/errors';
import { PAYOUT_VIEW_SCHEMA } from '@cw/events-feed';
import { compareDecimals } from '@cw/money';
import { CURSOR_PAGING, pageSizeInput, pageWindow, useCase, type InputOf, type ListSort } from '@cw/usecase';
import { latestRates } from './fx.service';
import { addPayout, dueNow, type PayoutRow } from './runs.service';
import { profileOf } from './settings.service';
import { own, type PayoutsDeps } from './deps';

export const PAYOUTS_READ_POLICY: Policy = {
  budget: 'account',
  refuseKinds: ['test', 'sandbox', 'read_only'],
  refuseDetail: 'Test, sandbox and read-only keys cannot read payouts.',
  scope: 'affiliate:read',
};
export const PAYOUT_REQUEST_POLICY: Policy = {
  budget: 'account',
  refuseKinds: ['test', 'sandbox', 'read_only'],
  refuseDetail: 'Test, sandbox and read-only keys cannot request payouts.',
  refuseDemoAccounts: true,
  roles: OWNERS,
  scope: 'payouts:write',
};

/** What the publisher sees (statuses: a held payout is `pending`, with why in `hold`). */
const VISIBLE_STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'canceled'] as const;

/** A payout as every surface answers it (the events feed's payout events carry the same). */
export const PAYOUT_SCHEMA = PAYOUT_VIEW_SCHEMA;

export function payoutView(p: PayoutRow) {
  return {
    id: p._id,
    status: p.status === 'held' ? ('pending' as const) : p.status,
    amount: p.amount.toString(),
    currency: p.currency,
    method: { type: p.method.type, last4: p.method.last4 },
    fx: p.fx.map((f) => {
      const i = p.sources.findIndex((s) => s.currency === f.from);
      return { from: f.from, to: f.to, rate: f.rate, date: f.date, amount: p.sources[i]?.amount ?? '0', converted: p.converted[i]?.amount ?? '0' };
    }),
    hold: p.status === 'held' ? { reasons: p.holds } : null,
    created_at: p.created_at,
    paid_at: p.paid_at ?? null,
    failure: p.failure ?? null,
    statement: p.statement ?? null,
  };
}

export const LIST_PAYOUTS_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: VISIBLE_STATUSES },
    page_size: pageSizeInput(100),
    ...CURSOR_PAGING,
  },
} as const;

const NEWEST_FIRST: ListSort = [
  ['created_at', -1],
  ['_id', -1],
];

export const listPayouts = useCase(
  PAYOUTS_READ_POLICY,
  async function listPayouts(deps: PayoutsDeps, principal: Principal, input: InputOf<typeof LIST_PAYOUTS_INPUT>) {
    const w = pageWindow({ list: 'payouts', account: principal.publisher._id, secret: deps.config.secretKey }, NEWEST_FIRST, input);
    const status = input.status === 'pending' ? { status: { $in: ['pending', 'held'] } } : input.status ? { status: input.status } : {};
    const rows = await own(deps)
      .Payout.find(w.filter({ publisher_id: principal.publisher._id, ...status }))
      .sort(w.sort)
      .skip(w.skip)
      .limit(input.page_size + 1)
      .lean<PayoutRow[]>();
    return w.envelope(rows, (page) => page.map(payoutView));
  },
  LIST_PAYOUTS_INPUT,
);

export const PAYOUT_ID_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

const notFound = (id: string) => new ApiError({ code: 'not_found', detail: `No payout ${id}.` });

/** One payout of the caller's account (another account's is not found). */
export async function payoutOf(deps: Pick<PayoutsDeps, 'data'>, publisherId: string, id: string): Promise<PayoutRow> {
  const p = /^po_[a-f0-9]{24}$/.test(id) ? await own(deps).Payout.findOne({ _id: id, publisher_id: publisherId }).lean<PayoutRow>() : null;
  if (!p) throw notFound(id);
  return p;
}

export const getPayout = useCase(
  PAYOUTS_READ_POLICY,
  async function getPayout(deps: PayoutsDeps, principal: Principal, input: InputOf<typeof PAYOUT_ID_INPUT>) {
    return payoutView(await payoutOf(deps, principal.publisher._id, input.id));
  },
  PAYOUT_ID_INPUT,
);

/**
 * The owner asks to be paid now: the whole available balance, a run of its own that an admin
 * approves. A payee the network's rules need a tax profile of, without one: 409 `tax_profile_incomplete`.
 */
export const requestPayout = useCase(PAYOUT_REQUEST_POLICY, async function requestPayout(deps: PayoutsDeps, principal: Principal, now: Date = new Date()) {
  const id = principal.publisher._id;
  const profile = await profileOf(deps, id);
  if (!profile.row?.method) throw new ApiError({ code: 'no_payout_method', detail: 'Set a payout method first (Settings, Payouts).' });
  if (await own(deps).Payout.exists({ publisher_id: id, status: { $in: ['pending', 'held'] } }))
    throw new ApiError({ code: 'payout_in_progress', detail: 'A payout of this account is already waiting for the network; it is paid with the next run.' });
  const rates = await latestRates(deps);
  const due = await dueNow(deps, id, profile, rates, now);
  if (due.holds.includes('tax_profile_incomplete'))
    throw new ApiError({ code: 'tax_profile_incomplete', detail: 'Payouts to this payee need a tax profile first (Settings, Tax: the W-9 or W-8 details).' });
  if (due.holds.length)
    throw new ApiError({ code: 'payout_hold', detail: `Payouts of this account are on hold (${due.holds.join(', ')}); the network reviews it.` });
  if (compareDecimals(due.amount, profile.threshold) < 0)
    throw new ApiError({
      code: 'below_threshold',
      detail: `The available balance (${due.amount} ${due.currency}) is below your payout threshold (${profile.threshold} ${profile.currency}).`,
    });
  const runId = `prun_${now.getTime().toString(16)}${randomBytes(4).toString('hex')}`;
  await own(deps).PayoutRun.create({ _id: runId, kind: 'request', status: 'draft', created_by: `publisher:${id}`, created_at: now });
  const payout = await addPayout(deps, runId, id, rates, { request: true, now });
  if (!payout) throw new ApiError({ code: 'below_threshold', detail: 'Nothing is available to pay.' });
  await own(deps).PayoutRun.updateOne(
    { _id: runId },
    { $set: { totals: [{ currency: payout.currency, rail: payout.rail, count: 1, amount: payout.amount.toString() }] } },
  );
  await deps.data.audit.record({
    account_id: id,
    type: 'payout_requested',
    ...actorOf(principal),
    detail: { payout_id: payout._id, amount: payout.amount.toString(), currency: payout.currency },
  });
  return payoutView(payout);
});
