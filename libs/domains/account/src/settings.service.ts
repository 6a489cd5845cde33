/** The account's settings as its people read and change them in the portal (changes: owners). */
import { ApiError } from '@cw/errors';
import { OWNERS, type Policy, type Principal } from '@cw/auth';
import { actorOf } from '@cw/audit';
import { useCase, type InputOf } from '@cw/usecase';
import type { AccountDeps } from './deps';
import { ACCOUNT_PATCH_INPUT } from './settings.schemas';

const READ_SETTINGS: Policy = { budget: 'portal' };
const CHANGE_SETTINGS: Policy = { budget: 'portal', roles: OWNERS };

type SettingsDeps = Pick<AccountDeps, 'config' | 'data'>;

/** True for a time zone this runtime knows by its IANA name. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone.includes('/') || zone === 'UTC';
  } catch {
    return false;
  }
}

async function view(deps: SettingsDeps, principal: Principal) {
  const p = (await deps.data.auth.publisherById(principal.publisher._id)) ?? principal.publisher;
  return {
    account_id: p._id,
    name: p.name,
    website: p.website ?? null,
    channels: p.channels ?? [],
    markets: p.markets ?? [],
    timezone: p.timezone ?? 'UTC',
    payout_method_type: p.payout?.method_type ?? 'none',
    link_fallback: p.link_fallback !== false,
    status: p.status,
    role: principal.person?.role ?? null,
  };
}

export const accountSettings = useCase(READ_SETTINGS, async function accountSettings(deps: SettingsDeps, principal: Principal) {
  return view(deps, principal);
});

export const updateAccountSettings = useCase(
  CHANGE_SETTINGS,
  async function updateAccountSettings(deps: SettingsDeps, principal: Principal, input: InputOf<typeof ACCOUNT_PATCH_INPUT>) {
    if (input.timezone !== undefined && !isTimeZone(input.timezone))
      throw new ApiError({
        code: 'invalid_parameter',
        detail: `Invalid parameter 'timezone': "${input.timezone}" is not an IANA time zone.`,
        errors: [{ param: 'timezone', detail: 'is not an IANA time zone (e.g. Europe/Berlin)' }],
      });
    const current = await deps.data.auth.publisherById(principal.publisher._id);
    if (!current) throw new ApiError({ code: 'not_found', detail: 'No such account.' });
    const { payout_method_type, ...fields } = input;
    await deps.data.auth.updatePublisher(current._id, {
      ...fields,
      ...(payout_method_type ? { payout: { ...current.payout, currency: current.payout?.currency ?? 'EUR', method_type: payout_method_type } } : {}),
    });
    await deps.data.audit.record({ account_id: current._id, type: 'account_changed', ...actorOf(principal), detail: { fields: Object.keys(input) } });
    return view(deps, principal);
  },
  ACCOUNT_PATCH_INPUT,
);
