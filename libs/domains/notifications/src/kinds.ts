/**
 * The kinds of notification mail a person can turn on or off (`/settings/notifications`), who of
 * an account receives each, and the defaults (docs/decisions/0056-notification-mail.md).
 */
import type { MemberRole } from '@cw/auth';

export const NOTIFICATION_KINDS = [
  'payout_paid',
  'payout_failed',
  'payout_method_changed',
  'tax_profile_changed',
  'sale_reversed_after_payout',
  'inquiry_decided',
  'postback_failing',
  'links_unhealthy',
  'weekly_summary',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const isNotificationKind = (k: unknown): k is NotificationKind => typeof k === 'string' && (NOTIFICATION_KINDS as readonly string[]).includes(k);

/**
 * Who of an account receives a kind: money and security notices, and a missing-sale inquiry's decision, its
 * owners (as before the preferences); a failing postback endpoint the people who manage postbacks (owners, developers),
 * and links losing clicks (their target out of stock, its program paused or ended…) those who build links (owners, developers);
 * the weekly summary every member.
 */
export const AUDIENCE: Record<NotificationKind, readonly MemberRole[]> = {
  payout_paid: ['owner'],
  payout_failed: ['owner'],
  payout_method_changed: ['owner'],
  tax_profile_changed: ['owner'],
  sale_reversed_after_payout: ['owner'],
  inquiry_decided: ['owner'],
  postback_failing: ['owner', 'developer'],
  links_unhealthy: ['owner', 'developer'],
  weekly_summary: ['owner', 'developer', 'analyst'],
};

/** What the settings page and the unsubscribe page call each kind. */
export const KIND_LABELS: Record<NotificationKind, { label: string; description: string }> = {
  payout_paid: { label: 'Payout paid', description: 'A payout reached your bank or PayPal account (with its statement).' },
  payout_failed: { label: 'Payout failed or returned', description: 'The bank or PayPal did not pay a payout; its amount is back in the balance.' },
  payout_method_changed: { label: 'Payout method changed', description: 'Someone changed the payout method of an account you own.' },
  tax_profile_changed: { label: 'Tax profile changed', description: 'Someone changed the tax profile of an account you own.' },
  sale_reversed_after_payout: {
    label: 'Sale reversed after payment',
    description: 'A merchant reversed a sale whose commission was already paid out; it is netted from the next payout.',
  },
  inquiry_decided: {
    label: 'Missing-sale inquiry decided',
    description: 'A merchant (or the network) accepted a missing-sale inquiry you filed, crediting the sale, or rejected it and why.',
  },
  postback_failing: {
    label: 'Postback endpoint failing',
    description: 'Your postback endpoint keeps failing and deliveries are paused (at most one mail a day).',
  },
  links_unhealthy: {
    label: 'Links losing clicks',
    description:
      'Links whose product is out of stock, whose program paused or ended, or that no longer answer, with the clicks they lost (at most one mail a day).',
  },
  weekly_summary: {
    label: 'Weekly summary',
    description: 'Clicks, sales, commission and top links of the last week, on Monday morning in the account’s time zone.',
  },
};

/**
 * A person's choice where they made none: every kind on, but the weekly summary only for a person
 * who owns an account (someone added as developer or analyst turns it on themselves).
 */
export const defaultChoice = (kind: NotificationKind, ownsAnAccount: boolean): boolean => kind !== 'weekly_summary' || ownsAnAccount;
