/**
 * Notification mail in the worker (docs/decisions/0056-notification-mail.md):
 * - `mail:send`: one notice for one person, queued by whoever raised it (the portal, the CLI, the
 *   ledger's and the dispatcher's hooks), rendered and sent here; a send that fails (an SMTP server
 *   down) fails the job, and Agenda runs it again after a backoff (30 s, then four times longer each
 *   time up to 2 h; 8 tries in all), so nothing that raised a notice ever waits on mail;
 * - `mail:weekly-summaries`, recurring (every 15 minutes): queues the weekly summaries due in each
 *   person's time zone (else the account's, else UTC), once per person, account and week.
 */
import type { Mailer } from '@cw/mail';
import { MAIL_JOB, NOTIFICATION_MAIL_RETRIES, queueWeeklySummaries, sendNotificationMail, type MailJobData } from '@cw/notifications';
import type { PlatformData } from '@cw/runtime';
import type { UseCaseDeps } from '@cw/usecase';
import type { JobDefinition } from './job';

export { MAIL_JOB };
export const WEEKLY_SUMMARIES_JOB = 'mail:weekly-summaries';

export interface MailJobOptions {
  /** The first retry's delay (default 30 s; later ones grow fourfold up to 2 h). Tests shorten it. */
  firstRetryMs?: number;
  onSent?: (r: { kind: string; outcome: string }) => void;
}

/** The delay before retry `attempt` (1-based), or null once the tries are spent. */
export function mailRetryDelay(attempt: number, firstMs = NOTIFICATION_MAIL_RETRIES.firstDelayMs): number | null {
  if (attempt > NOTIFICATION_MAIL_RETRIES.maxRetries) return null;
  return Math.min(NOTIFICATION_MAIL_RETRIES.maxDelayMs, firstMs * NOTIFICATION_MAIL_RETRIES.factor ** (attempt - 1));
}

export function mailJobs(deps: UseCaseDeps<PlatformData>, mailer: Mailer, opts: MailJobOptions = {}): JobDefinition[] {
  const sendDeps = { ...deps, mailer };
  return [
    {
      name: MAIL_JOB,
      options: {
        concurrency: 10,
        removeOnComplete: true,
        lockLifetime: 5 * 60_000,
        backoff: ({ attempt }) => mailRetryDelay(attempt, opts.firstRetryMs),
      },
      run: async (data) => {
        const job = data as MailJobData;
        const outcome = await sendNotificationMail(sendDeps, job);
        opts.onSent?.({ kind: String(job?.notice?.kind), outcome });
      },
    },
    {
      name: WEEKLY_SUMMARIES_JOB,
      // One pass at a time across workers; the keys it claims make a second pass harmless anyway.
      options: { concurrency: 1, lockLifetime: 30 * 60_000 },
      run: async () => {
        await queueWeeklySummaries(deps);
      },
    },
  ];
}
