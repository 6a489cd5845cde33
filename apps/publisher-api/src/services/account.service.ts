import { addDecimals, compareDecimals, formatDecimal, multiplyDecimals, parseDecimal, type Dec } from '@cw/money';
import { RATE_LIMIT_BUDGETS, type PlatformConfig } from '@cw/config';
import type { Principal } from '@cw/auth';
import type { Models } from '@cw/db';

/** Indicative rates for the USD totals of multi-currency balances (documented in the README). */
export const USD_RATES: Record<string, string> = { USD: '1', EUR: '1.08', GBP: '1.27' };
const PENDING_WINDOW_DAYS = 180;

export function accountRecord(principal: Principal, config: PlatformConfig) {
  const p = principal.publisher;
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
}

interface Bucket {
  currency: string;
  amount: Dec;
}

async function sumByCurrency(models: Models, match: Record<string, unknown>): Promise<Bucket[]> {
  const rows = await models.Conversion.aggregate<{ _id: string; total: { toString(): string } }>([
    { $match: match },
    { $group: { _id: '$currency', total: { $sum: '$commission' } } },
    { $sort: { _id: 1 } },
  ]);
  return rows.map((r) => ({ currency: r._id, amount: parseDecimal(r.total.toString()) }));
}

function toUsd(buckets: Bucket[]): Dec {
  return addDecimals(buckets.map((b) => multiplyDecimals(b.amount, USD_RATES[b.currency] ?? '0')));
}

function convert(amount: Dec, from: string, to: string): Dec {
  const usd = multiplyDecimals(amount, USD_RATES[from] ?? '0');
  // Exact division is not needed for an estimate: go through USD with 6 decimals.
  const rate = Number(USD_RATES[to] ?? '1');
  return parseDecimal((Number(formatDecimal(usd, 6)) / rate).toFixed(6));
}

const show = (buckets: Bucket[]) => buckets.map((b) => ({ currency: b.currency, amount: formatDecimal(b.amount) }));

/** Balances, next payment estimate and payment method; never account numbers or addresses. */
export async function paymentStatus(models: Models, principal: Principal, now = new Date()) {
  const pub = principal.publisher;
  const since = new Date(now.getTime() - PENDING_WINDOW_DAYS * 86_400_000);
  const approved = await sumByCurrency(models, { publisher_id: pub._id, status: 'approved', paid: { $ne: true } });
  const pending = await sumByCurrency(models, { publisher_id: pub._id, status: 'pending', occurred_at: { $gte: since } });
  const payoutCurrency = pub.payout?.currency ?? 'EUR';
  const threshold = pub.payout?.threshold ? parseDecimal(pub.payout.threshold.toString()) : parseDecimal('50.00');
  const payable = addDecimals(approved.map((b) => convert(b.amount, b.currency, payoutCurrency)));
  const reached = compareDecimals(payable, threshold) >= 0;
  const nextDate = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 15));
  const method = pub.payout?.method_type ?? 'none';
  return {
    account_id: pub._id,
    currency_note: 'USD totals use indicative exchange rates.',
    approved_unpaid: { by_currency: show(approved), total_usd: formatDecimal(toUsd(approved)) },
    pending_review: { window_days: PENDING_WINDOW_DAYS, by_currency: show(pending), total_usd: formatDecimal(toUsd(pending)) },
    next_payment: {
      estimated_date: reached && method !== 'none' ? nextDate.toISOString().slice(0, 10) : null,
      estimated_amount: reached && method !== 'none' ? formatDecimal(payable) : '0.00',
      currency: payoutCurrency,
      threshold: formatDecimal(threshold),
      threshold_reached: reached,
    },
    payment_method: method === 'bank_account' ? { type: 'bank_account', last4: pub.payout?.last4 ?? null } : { type: method },
  };
}
