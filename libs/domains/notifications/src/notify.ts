/**
 * Telling people: a notice of an account becomes one mail job per member who receives its kind
 * (../kinds.ts AUDIENCE) and has it on (their choice, else the default). Only ids go in the job;
 * the worker renders and sends it (./mail-job.ts), retrying with backoff, so the act that caused a
 * notice never waits on mail. Notices that must go out at most once claim their key first.
 */
import type { PayoutNotice } from '@cw/payouts';
import { AUDIENCE, isNotificationKind, type NotificationKind } from './kinds';
import type { MailJobData } from './data/notifications.data';
import type { NotifyDeps } from './deps';
import { enabledFor } from './preferences.service';

/** A sale whose commission was paid out was reversed: the amount is netted from the next payout. */
export interface ReversalNotice {
  kind: 'sale_reversed_after_payout';
  publisherId: string;
  conversionId: string;
  payoutId: string;
  /** The commission taken back (a positive decimal string) and its currency. */
  amount: string;
  currency: string;
}

/**
 * A missing-sale inquiry of the account was decided (a decision stands, so the job keeps what the
 * mail says: no secret in it, nothing to read again): accepted, with the conversion it credited;
 * rejected, with the reason code.
 */
export interface InquiryDecidedNotice {
  kind: 'inquiry_decided';
  publisherId: string;
  inquiryId: string;
  programId: number;
  orderId: string;
  /** The order's amount (a decimal string) and its currency. */
  amount: string;
  currency: string;
  status: 'accepted' | 'rejected';
  /** merchant, operator or window (the response window passed unanswered). */
  decidedBy: string;
  reason?: string;
  conversionId?: string;
}

/** The account's postback endpoint keeps failing: its breaker opened. */
export interface PostbackFailingNotice {
  kind: 'postback_failing';
  publisherId: string;
}

/** Links of the account lost clicks while not ok (the link health pass found their clicks lost grew). */
export interface LinksUnhealthyNotice {
  kind: 'links_unhealthy';
  publisherId: string;
}

/** Last week's numbers of an account (`week`: the Monday it ends on, in `zone`: the person's, else the account's). */
export interface WeeklySummaryNotice {
  kind: 'weekly_summary';
  publisherId: string;
  week: string;
  /** The week's range, [from, to) in epoch ms. */
  from: number;
  to: number;
  /** The IANA zone the week was taken in (jobs queued before it existed: the account's). */
  zone?: string;
}

export type Notice = PayoutNotice | ReversalNotice | InquiryDecidedNotice | PostbackFailingNotice | LinksUnhealthyNotice | WeeklySummaryNotice;

const DAY_MS = 86_400_000;

/** What of a notice a job keeps: its ids and plain fields; never bytes (a statement is loaded when the mail is rendered). */
function jobNotice(notice: Notice): MailJobData['notice'] {
  const kept: Record<string, string | number | undefined> = {};
  for (const [k, v] of Object.entries(notice)) if (typeof v === 'string' || typeof v === 'number') kept[k] = v;
  return kept as MailJobData['notice'];
}

/** The key a notice goes out once under (per account, and per person where `person` is given), and for how long; undefined: no such limit. */
function onceKey(notice: Notice, now: Date): { key: string; ttlMs: number } | undefined {
  switch (notice.kind) {
    case 'postback_failing':
      // At most one mail per configuration (one per account) and UTC day.
      return { key: `postback_failing:${notice.publisherId}:${now.toISOString().slice(0, 10)}`, ttlMs: 2 * DAY_MS };
    case 'links_unhealthy':
      // At most one mail per account and UTC day, whatever the number of passes that found losses.
      return { key: `links_unhealthy:${notice.publisherId}:${now.toISOString().slice(0, 10)}`, ttlMs: 2 * DAY_MS };
    case 'sale_reversed_after_payout':
      return { key: `sale_reversed_after_payout:${notice.publisherId}:${notice.conversionId}`, ttlMs: 30 * DAY_MS };
    case 'inquiry_decided':
      // One mail per inquiry: its decision stands (a listener called twice sends nothing more).
      return { key: `inquiry_decided:${notice.inquiryId}`, ttlMs: 30 * DAY_MS };
    default:
      return undefined;
  }
}

/**
 * Queues the notice's mail to each member who receives its kind and has it on. Returns how many
 * jobs were queued. Never throws for a mail's sake beyond the queue's own write.
 */
export async function notifyPeople(deps: NotifyDeps, notice: Notice, now = new Date()): Promise<number> {
  const kind = notice.kind as NotificationKind;
  if (!isNotificationKind(kind)) return 0;
  const once = onceKey(notice, now);
  if (once && !(await deps.data.notifications.claim([{ key: once.key, kind, expiresAt: new Date(now.getTime() + once.ttlMs) }], now)).size) return 0;
  try {
    const members = await deps.data.people.membersOf([notice.publisherId], AUDIENCE[kind]);
    const jobs = await enabledMembers(deps, kind, members);
    await deps.data.notifications.enqueue(jobs.map((m) => ({ user_id: m.user_id, account_id: notice.publisherId, notice: jobNotice(notice) })));
    return jobs.length;
  } catch (e) {
    if (once) await deps.data.notifications.release(once.key).catch(() => undefined);
    throw e;
  }
}

/** The members who have `kind` on (their choice, else the default). */
export async function enabledMembers<M extends { user_id: string }>(deps: NotifyDeps, kind: NotificationKind, members: M[]): Promise<M[]> {
  if (!members.length) return [];
  const users = [...new Set(members.map((m) => m.user_id))];
  const [choices, owners] = await Promise.all([
    deps.data.notifications.choicesOf(users),
    kind === 'weekly_summary' ? deps.data.people.ownersAmong(users) : Promise.resolve(new Set<string>()),
  ]);
  return members.filter((m) => enabledFor(kind, choices.get(m.user_id), owners.has(m.user_id)));
}

/** The `notify` port of the payouts lib (and any other): queue the mail; a failure to queue is logged by the caller, never the act's failure. */
export const notifier =
  (deps: NotifyDeps) =>
  async (notice: Notice): Promise<void> => {
    await notifyPeople(deps, notice);
  };
