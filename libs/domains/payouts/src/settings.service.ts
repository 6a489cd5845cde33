/**
 * A publisher's payout settings (`/settings/payouts`): the method (IBAN + BIC, US ACH, PayPal),
 * sealed with the key ring and shown only as type and last 4; the payout currency; a threshold
 * at or above the network's minimum for that currency; the schedule (monthly, or on request).
 * Anyone of the account reads them; only an owner, in the portal, with the password given in the
 * last 10 minutes, changes them: the change is in the security log, the owner is told, and a new
 * method holds the next payout for PAYOUT_METHOD_HOLD_HOURS (72 by default).
 */
import { actorOf } from '@cw/audit';
import { OWNERS, type Policy, type Principal } from '@cw/auth';
import { ApiError } from '@cw/errors';
import { compareDecimals, formatDecimal, parseDecimal } from '@cw/money';
import { useCase, type InputOf } from '@cw/usecase';
import { PAYOUT_SCHEDULES, type PayoutSchedule } from './data/payouts.schema';
import { PAYOUT_METHOD_INPUT } from './methods/payout-method.schemas';
import { maskedMethod, sealPayoutMethod, type StoredPayoutMethod } from './methods/seal-payout-method';
import { validatePayoutMethod } from './methods/validate-payout-method';
import { own, type PayoutsDeps } from './deps';

const READ_POLICY: Policy = { budget: 'account', refuseKinds: ['test', 'sandbox', 'read_only'], scope: 'affiliate:read' };
const WRITE_POLICY: Policy = { budget: 'portal', roles: OWNERS, reauthenticate: true };

export const PAYOUT_SETTINGS_INPUT = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    method: PAYOUT_METHOD_INPUT,
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'The payout currency (one the network pays in: see `minimum_thresholds`).' },
    threshold: {
      type: 'string',
      pattern: '^[0-9]{1,9}(\\.[0-9]{1,2})?$',
      description: 'Pay once the available balance reaches this (at or above the minimum).',
    },
    schedule: { type: 'string', enum: PAYOUT_SCHEDULES, description: 'monthly: every payout run; on_request: when you ask (Request payment).' },
  },
} as const;

export interface ProfileRow {
  _id: string;
  method: (StoredPayoutMethod & { failed_at?: Date }) | null;
  method_changed_at?: Date;
  currency?: string;
  threshold?: { toString(): string };
  schedule?: PayoutSchedule;
}

/** The settings as stored (defaults: EUR, the network's minimum, monthly). */
export async function profileOf(deps: Pick<PayoutsDeps, 'data' | 'config'>, publisherId: string) {
  const row = await own(deps).PayoutProfile.findById(publisherId).lean<ProfileRow>();
  const currency = row?.currency ?? 'EUR';
  const minimum = deps.config.payouts.minimumThresholds[currency] ?? '0';
  const threshold = row?.threshold ? row.threshold.toString() : minimum;
  return { row, currency, minimum, threshold, schedule: row?.schedule ?? ('monthly' as PayoutSchedule) };
}

/** Until when a new method holds payouts (null: no hold). */
export function methodHoldUntil(deps: Pick<PayoutsDeps, 'config'>, row: ProfileRow | null, now = new Date()): Date | null {
  if (!row?.method_changed_at) return null;
  const until = new Date(row.method_changed_at.getTime() + deps.config.payouts.methodHoldMs);
  return until > now ? until : null;
}

function settingsView(deps: Pick<PayoutsDeps, 'config'>, p: Awaited<ReturnType<typeof profileOf>>) {
  return {
    method: p.row?.method ? { ...maskedMethod(p.row.method), failed: !!p.row.method.failed_at } : null,
    currency: p.currency,
    threshold: p.threshold,
    minimum_threshold: p.minimum,
    minimum_thresholds: deps.config.payouts.minimumThresholds,
    schedule: p.schedule,
    method_hold_until: methodHoldUntil(deps, p.row ?? null),
  };
}

/** Sets a publisher's payout settings as given (the seed and operators' tools; people go through `updatePayoutSettings`). */
export async function setPayoutProfile(
  deps: Pick<PayoutsDeps, 'data' | 'config'>,
  publisherId: string,
  input: { method: unknown; currency?: string; threshold?: string; schedule?: PayoutSchedule; methodChangedAt?: Date },
): Promise<void> {
  const method = sealPayoutMethod(deps.config.keys, validatePayoutMethod(input.method));
  const currency = input.currency ?? 'EUR';
  await own(deps).PayoutProfile.updateOne(
    { _id: publisherId },
    {
      $set: {
        method,
        method_changed_at: input.methodChangedAt ?? new Date(),
        currency,
        threshold: input.threshold ?? deps.config.payouts.minimumThresholds[currency] ?? '0',
        schedule: input.schedule ?? 'monthly',
        updated_at: new Date(),
      },
    },
    { upsert: true },
  );
}

export const getPayoutSettings = useCase(READ_POLICY, async function getPayoutSettings(deps: PayoutsDeps, principal: Principal) {
  return settingsView(deps, await profileOf(deps, principal.publisher._id));
});

const invalid = (param: string, detail: string) =>
  new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}': ${detail}.`, errors: [{ param, detail }] });

export const updatePayoutSettings = useCase(
  WRITE_POLICY,
  async function updatePayoutSettings(deps: PayoutsDeps, principal: Principal, input: InputOf<typeof PAYOUT_SETTINGS_INPUT>, now = new Date()) {
    if (principal.type !== 'portal_session')
      throw new ApiError({ code: 'credential_not_allowed', detail: 'Payout settings are changed in the portal, by an owner of the account.' });
    const id = principal.publisher._id;
    const current = await profileOf(deps, id);
    const currency = input.currency ?? current.currency;
    const minimum = deps.config.payouts.minimumThresholds[currency];
    if (!minimum) throw invalid('currency', `the network pays in ${Object.keys(deps.config.payouts.minimumThresholds).join(', ')}`);
    // A threshold kept from another currency is raised to this currency's minimum when below it.
    const wanted = input.threshold ?? (input.currency ? (compareDecimals(current.threshold, minimum) >= 0 ? current.threshold : minimum) : current.threshold);
    if (compareDecimals(wanted, minimum) < 0) throw invalid('threshold', `must be at least the network's minimum of ${minimum} ${currency}`);
    const set: Record<string, unknown> = {
      currency,
      threshold: formatDecimal(parseDecimal(wanted), 2),
      schedule: input.schedule ?? current.schedule,
      updated_at: now,
    };
    let method: StoredPayoutMethod | undefined;
    if (input.method) {
      method = sealPayoutMethod(deps.config.keys, validatePayoutMethod(input.method));
      set.method = method;
      set.method_changed_at = now;
    }
    await own(deps).PayoutProfile.updateOne({ _id: id }, { $set: set }, { upsert: true });
    const detail: Record<string, unknown> = { currency, threshold: set.threshold, schedule: set.schedule };
    if (method) Object.assign(detail, { method: maskedMethod(method) });
    await deps.data.audit.record({ account_id: id, type: 'payout_settings_changed', ...actorOf(principal), detail });
    if (method) await deps.notify?.({ kind: 'payout_method_changed', publisherId: id }).catch(() => undefined);
    return settingsView(deps, await profileOf(deps, id));
  },
  PAYOUT_SETTINGS_INPUT,
);
