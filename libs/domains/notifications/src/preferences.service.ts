/**
 * A person's notification settings (`GET/PUT /portal/api/me/notifications`): every kind with its
 * label, whether it is on for them (their choice, else the default), and whether they receive it in
 * any of their accounts (money and security notices go to owners only: ../kinds.ts); and their own
 * time zone (the weekly summary's week and send hour; none: each account's zone, then UTC). A
 * person's choices are theirs, whatever account they look from.
 */
import { ApiError } from '@cw/errors';
import { accountsOf } from '@cw/people';
import { AUDIENCE, defaultChoice, KIND_LABELS, NOTIFICATION_KINDS, type NotificationKind } from './kinds';
import type { Choices } from './data/notifications.data';
import type { NotifyDeps } from './deps';

export const NOTIFICATION_CHOICES_INPUT = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    timezone: {
      type: ['string', 'null'],
      maxLength: 64,
      description:
        'Your own IANA time zone (e.g. America/New_York): the weekly summary covers your Monday to Sunday and is sent from Monday 08:00 there. null: none (each account’s time zone, else UTC).',
    },
    kinds: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      description: 'The kinds to turn on (true) or off (false); kinds left out keep their setting.',
      properties: {
        payout_paid: { type: 'boolean' },
        payout_failed: { type: 'boolean' },
        payout_method_changed: { type: 'boolean' },
        tax_profile_changed: { type: 'boolean' },
        sale_reversed_after_payout: { type: 'boolean' },
        inquiry_decided: { type: 'boolean' },
        postback_failing: { type: 'boolean' },
        links_unhealthy: { type: 'boolean' },
        weekly_summary: { type: 'boolean' },
      },
    },
  },
} as const;

export const NOTIFICATION_SETTINGS_SCHEMA = {
  type: 'object',
  properties: {
    timezone: {
      type: ['string', 'null'],
      description: 'The person’s own IANA time zone for the weekly summary, or null (each account’s time zone decides, else UTC).',
    },
    kinds: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          kind: { type: 'string', enum: [...NOTIFICATION_KINDS] },
          label: { type: 'string' },
          description: { type: 'string' },
          enabled: { type: 'boolean', description: 'On for this person (their choice, else the default).' },
          receives: { type: 'boolean', description: 'Whether this person receives this kind in any of their accounts (by their role there).' },
          roles: { type: 'array', items: { type: 'string', enum: ['owner', 'developer', 'analyst'] }, description: 'Who of an account receives it.' },
        },
      },
    },
  },
};

export interface NotificationSetting {
  kind: NotificationKind;
  label: string;
  description: string;
  enabled: boolean;
  receives: boolean;
  roles: string[];
}

/** Whether `kind` is on for a person: their choice, else the default. */
export const enabledFor = (kind: NotificationKind, choices: Choices | undefined, ownsAnAccount: boolean): boolean =>
  choices?.[kind] ?? defaultChoice(kind, ownsAnAccount);

/** True for a time zone this runtime knows by its IANA name (`UTC` or `Area/Location`). */
export function isTimeZone(zone: string): boolean {
  if (zone !== 'UTC' && !zone.includes('/')) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The zone a person's weekly summary follows: their own (when this runtime knows it), else the account's, else UTC. */
export function summaryZone(personZone: string | null | undefined, accountZone: string | null | undefined): string {
  if (personZone && isTimeZone(personZone)) return personZone;
  if (accountZone && isTimeZone(accountZone)) return accountZone;
  return 'UTC';
}

export interface NotificationSettings {
  timezone: string | null;
  kinds: NotificationSetting[];
}

export async function notificationSettings(deps: NotifyDeps, userId: string): Promise<NotificationSettings> {
  const [choices, zones, accounts] = await Promise.all([
    deps.data.notifications.choicesOf([userId]),
    deps.data.notifications.zonesOf([userId]),
    accountsOf(deps, userId),
  ]);
  const roles = new Set(accounts.map((a) => a.role));
  const mine = choices.get(userId);
  return {
    timezone: zones.get(userId) ?? null,
    kinds: NOTIFICATION_KINDS.map((kind) => ({
      kind,
      ...KIND_LABELS[kind],
      enabled: enabledFor(kind, mine, roles.has('owner')),
      receives: AUDIENCE[kind].some((r) => roles.has(r)),
      roles: [...AUDIENCE[kind]],
    })),
  };
}

export async function updateNotificationSettings(
  deps: NotifyDeps,
  userId: string,
  input: { kinds?: Partial<Record<NotificationKind, boolean>>; timezone?: string | null },
): Promise<NotificationSettings> {
  if (typeof input.timezone === 'string' && !isTimeZone(input.timezone))
    throw new ApiError({
      code: 'invalid_parameter',
      detail: `Invalid parameter 'timezone': "${input.timezone}" is not an IANA time zone.`,
      errors: [{ param: 'timezone', detail: 'is not an IANA time zone (e.g. Europe/Berlin), nor null' }],
    });
  await deps.data.notifications.choose(userId, input.kinds ?? {}, new Date(), { timezone: input.timezone });
  return notificationSettings(deps, userId);
}
