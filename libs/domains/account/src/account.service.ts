/**
 * The account as its owner sees it: the account record (access and limits) and payment status
 * (the ledger's balances per currency and in USD, commission pending review from the stats read
 * model, next payment estimate, payment method type). Money is exact
 * throughout: sums in Decimal128, conversions in decimal with half-even rounding.
 */
import { RATE_LIMIT_BUDGETS, type PlatformConfig } from '@cw/config';
import type { Policy, Principal } from '@cw/auth';
import { addDecimals, compareDecimals, divideDecimals, moneyIn, multiplyDecimals, parseDecimal, type Dec } from '@cw/money';
import { useCase } from '@cw/usecase';
import { countedAsOf, type Fact, readFacts } from '@cw/stats';
import { accountBalances } from '@cw/ledger';
import { profileOf, SCHEDULED_RUN_DAY } from '@cw/payouts';
import type { AccountDeps } from './deps';

const ACCOUNT_POLICY: Policy = { budget: 'account', scope: 'affiliate:read' };
const PAYMENT_STATUS_POLICY: Policy = {
  budget: 'account',
  refuseKinds: ['test', 'sandbox', 'read_only'],
  refuseDetail: 'Test, sandbox and read-only keys cannot read payment status.',
  scope: 'affiliate:read',
};

const PENDING_WINDOW_DAYS = 180;

/** The account as stored now (read afresh: the page a publisher checks its settings on). */
export const accountRecord = useCase(ACCOUNT_POLICY, async function accountRecord(deps: Pick<AccountDeps, 'config' | 'data'>, principal: Principal) {
  const config = deps.config;
  const p = (await deps.data.auth.publisherById(principal.publisher._id)) ?? principal.publisher;
  const limits: Record<string, number> = {};
  for (const [name, b] of Object.entries(RATE_LIMIT_BUDGETS)) limits[name] = config.rateLimits[name as keyof typeof RATE_LIMIT_BUDGETS] ?? b.default;
  const test = principal.keyKind !== undefined && principal.keyKind !== 'live' && principal.keyKind !== 'read_only';
  return {
    account_id: p._id,
    name: p.name,
    website: p.website ?? null,
    status: p.status,
    credential: { type: principal.type, kind: principal.keyKind ?? null, prefix: principal.prefix },
    access: {
      feed_access: p.feed_access,
      markets: p.markets ?? [],
      channels: p.channels ?? [],
      trending_subscribed: p.trending_subscribed ?? false,
      is_demo: p.is_demo || principal.keyKind === 'demo',
      test_mode: test,
      payable: !p.is_demo && principal.keyKind !== 'demo',
    },
    limits: {
      window_seconds: 60,
      per_address_per_minute: limits.ip,
      products_per_minute: limits.products,
      trending_per_minute: limits.trending,
      account_per_minute: limits.account,
      programs_per_minute: limits.programs,
      links_per_minute: limits.links,
      reporting_per_minute: limits.reporting,
      postbacks_per_minute: limits.postbacks,
      products_page_size_max: 100,
      lookup_identifiers_max: 100,
      batch_links_max: 50,
    },
  };
});

interface Bucket {
  currency: string;
  amount: Dec;
}

/** Commission per currency of the conversions in the given states, from the stats read model. */
async function sumByCurrency(deps: AccountDeps, publisherId: string, keep: (c: NonNullable<Fact['conversion']>) => boolean, from?: number): Promise<Bucket[]> {
  const facts = await readFacts(deps, { publisherId, from });
  const sums = new Map<string, Dec[]>();
  for (const f of facts)
    if (f.conversion && keep(f.conversion))
      sums.set(f.conversion.currency, [...(sums.get(f.conversion.currency) ?? []), parseDecimal(f.conversion.commission)]);
  return [...sums]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, vs]) => ({ currency, amount: addDecimals(vs) }))
    .filter((b) => facts.some((f) => f.conversion?.currency === b.currency && f.conversion.n !== 0 && keep(f.conversion)));
}

/** An amount in USD at the configured indicative rate (0 for a currency without one). */
function inUsd(config: PlatformConfig, b: Bucket): Dec {
  const rate = config.usdRates[b.currency];
  return rate ? multiplyDecimals(b.amount, rate) : parseDecimal('0');
}

/** An amount converted through USD, exact to 6 decimals, half-even. */
function convert(config: PlatformConfig, b: Bucket, to: string): Dec {
  const rate = config.usdRates[to];
  return rate ? divideDecimals(inUsd(config, b), rate, 6) : parseDecimal('0');
}

const show = (buckets: Bucket[]) => buckets.map((b) => ({ currency: b.currency, amount: moneyIn(b.amount, b.currency) }));

/** Balances, next payment estimate and payment method; never account numbers or addresses. */
export const paymentStatus = useCase(PAYMENT_STATUS_POLICY, async function paymentStatus(deps: AccountDeps, principal: Principal, now: Date = new Date()) {
  const config = deps.config;
  const pub = principal.publisher;
  // The pending window starts at a quarter hour (the stats read model's slot).
  const since = Math.floor((now.getTime() - PENDING_WINDOW_DAYS * 86_400_000) / 900_000) * 900_000;
  // Read only (docs/decisions/0046-stats-read-contract.md): how fresh the cells are, then the cells.
  const asOf = await countedAsOf(deps, pub._id);
  // Approved and not yet paid is the ledger's balance (each change is booked as it is written; the worker's pass catches up after a failure).
  const approved: Bucket[] = (await accountBalances(deps, pub._id))
    .filter((b) => compareDecimals(b.amount, '0') !== 0)
    .map((b) => ({ currency: b.currency, amount: parseDecimal(b.amount) }));
  const pending = await sumByCurrency(deps, pub._id, (c) => c.status === 'pending', since);
  // The payout settings (Settings, Payouts); an account without them keeps its settings from before them.
  const profile = await profileOf(deps, pub._id);
  const settings = profile.row;
  const payoutCurrency = settings ? profile.currency : (pub.payout?.currency ?? 'EUR');
  const threshold = parseDecimal(settings ? profile.threshold : pub.payout?.threshold ? pub.payout.threshold.toString() : '50.00');
  const payable = addDecimals(approved.map((b) => convert(config, b, payoutCurrency)));
  const reached = compareDecimals(payable, threshold) >= 0;
  // The next scheduled payout run (opened on SCHEDULED_RUN_DAY each month, UTC): this month's until that day, else next month's.
  const nextDate = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + (now.getUTCDate() < SCHEDULED_RUN_DAY ? 0 : 1), SCHEDULED_RUN_DAY));
  const stored = settings?.method;
  const paymentMethod = stored
    ? stored.type === 'paypal'
      ? { type: 'paypal' as const }
      : { type: 'bank_account' as const, last4: stored.last4 }
    : pub.payout?.method_type === 'bank_account'
      ? { type: 'bank_account' as const, last4: pub.payout?.last4 ?? null }
      : { type: pub.payout?.method_type ?? 'none' };
  const method = paymentMethod.type;
  // Monthly: the next scheduled run; on request: when the owner asks.
  const scheduled = !settings || profile.schedule === 'monthly';
  const totalUsd = (buckets: Bucket[]) => moneyIn(addDecimals(buckets.map((b) => inUsd(config, b))), 'USD');
  return {
    account_id: pub._id,
    currency_note: 'USD totals use indicative exchange rates.',
    as_of: asOf.toISOString(),
    approved_unpaid: { by_currency: show(approved), total_usd: totalUsd(approved) },
    pending_review: { window_days: PENDING_WINDOW_DAYS, by_currency: show(pending), total_usd: totalUsd(pending) },
    next_payment: {
      estimated_date: reached && method !== 'none' && scheduled ? nextDate.toISOString().slice(0, 10) : null,
      estimated_amount: moneyIn(reached && method !== 'none' ? payable : parseDecimal('0'), payoutCurrency),
      currency: payoutCurrency,
      threshold: moneyIn(threshold, payoutCurrency),
      threshold_reached: reached,
    },
    payment_method: paymentMethod,
  };
});
