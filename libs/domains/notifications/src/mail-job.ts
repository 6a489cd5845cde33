/**
 * The mail job (`mail:send`, run by the worker's Agenda): one notice for one person, rendered now
 * from the ids the job holds, sent through the mailer. A send that fails throws, and Agenda runs
 * the job again after its backoff (NOTIFICATION_MAIL_BACKOFF); nothing waits for it. The person's
 * role and choice are read again here: someone who left the account or turned the kind off since
 * the notice was queued gets nothing.
 */
import { AUDIENCE, isNotificationKind } from './kinds';
import type { MailJobData } from './data/notifications.data';
import type { NotificationsDeps } from './deps';
import { composeNotice, withUnsubscribe } from './compose';
import type { Notice } from './notify';
import { enabledFor } from './preferences.service';

/** Tries after a failed send: 30 s, then four times longer each time up to 2 h, 8 tries in all (about 7 hours). */
export const NOTIFICATION_MAIL_RETRIES = { firstDelayMs: 30_000, factor: 4, maxDelayMs: 2 * 3_600_000, maxRetries: 7 };

export type MailJobOutcome = 'sent' | 'skipped';

export async function sendNotificationMail(deps: NotificationsDeps, job: MailJobData): Promise<MailJobOutcome> {
  const kind = job.notice?.kind;
  if (!isNotificationKind(kind) || typeof job.user_id !== 'string' || typeof job.account_id !== 'string') return 'skipped';
  const member = await deps.data.people.membership(job.account_id, job.user_id);
  if (!member || !AUDIENCE[kind].includes(member.role)) return 'skipped';
  const choices = await deps.data.notifications.choicesOf([job.user_id]);
  const owns = kind === 'weekly_summary' ? (await deps.data.people.ownersAmong([job.user_id])).has(job.user_id) : false;
  if (!enabledFor(kind, choices.get(job.user_id), owns)) return 'skipped';
  const account = await deps.data.auth.publisherById(job.account_id);
  if (!account) return 'skipped';
  const composed = await composeNotice(deps, job.notice as unknown as Notice, account);
  await deps.mailer.send({ to: member.email, ...withUnsubscribe(deps, composed, job.user_id, kind) });
  return 'sent';
}
