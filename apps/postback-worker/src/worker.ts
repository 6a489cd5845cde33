/**
 * The job worker. Every process runs its loops on their own timers, so none waits for another and
 * every replica adds capacity: postback dispatch (jobs/postbacks.job.ts), the events feed's appender
 * (sale events join their account's log), the stats counter (conversion changes and orphaned click
 * batches are counted in the stats read model; each account under its own lease, so replicas share
 * the accounts), the clicks counter (the tracker's stored batches, several at a time, each claimed
 * by one replica), the clicks' compaction (low-traffic accounts' small buckets merged, each
 * account under its stats lease) and the stats roll-ups' backfill (existing accounts' day and
 * month documents, a few months of one account a round, under a lease of its own); Agenda
 * (MongoDB backend, collection `jobs`, its indexes declared by the migration) runs the jobs that wake retries, the refresh of prepared feed files (every
 * FEEDS_REFRESH_MS), the link health pass (jobs/link-health.job.ts) and the month's scheduled payout run
 * (jobs/payouts.job.ts).
 */
import { Agenda } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import type { Db } from 'mongodb';
import { appendPendingEvents } from '@cw/events-feed';
import { bookPendingSales } from '@cw/ledger';
import { backfillRollups, compactClicks, countPendingChanges, countStoredClicks, migrateStatsFlags, upgradeStatsCells } from '@cw/stats';
import type { Logger } from '@cw/logging';
import { inSpan } from '@cw/telemetry';
import { createDeliveryAgent, createDispatcher, migrateOutbox } from '@cw/postbacks';
import { createMemorySlots, type Slots } from '@cw/ratelimit';
import type { PlatformData } from '@cw/runtime';
import type { UseCaseDeps } from '@cw/usecase';
import { FEEDS_REFRESH_JOB, feedJobs } from './jobs/feeds.job';
import { createMailer, type Mailer } from '@cw/mail';
import { MAIL_JOB, mailJobs, WEEKLY_SUMMARIES_JOB, type MailJobOptions } from './jobs/mail.job';
import { INQUIRIES_DECIDE_EVERY_MS, INQUIRIES_DECIDE_JOB, inquiryJobs } from './jobs/inquiries.job';
import { LINK_HEALTH_EVERY_MS, LINK_HEALTH_JOB, linkHealthJobs } from './jobs/link-health.job';
import { PAYOUTS_SCHEDULED_RUN_EVERY_MS, PAYOUTS_SCHEDULED_RUN_JOB, payoutJobs } from './jobs/payouts.job';
import { dispatchRound, RETRY_JOB, retryJobs, retryScheduler } from './jobs/postbacks.job';
import { Gauge, type Registry } from 'prom-client';

export interface WorkerDeps extends UseCaseDeps<PlatformData> {
  db: Db;
  logger: Logger;
  /** Where the per-configuration cap's slots are held (Redis: across workers); default: this process. */
  slots?: Slots;
  /** Dispatch and Agenda poll interval in milliseconds (default WORKER_POLL_MS; a number: Agenda reads '200 milliseconds' as seconds). */
  processEveryMs?: number;
  /** How often stale feed markets are looked for (default 5 minutes). */
  feedsRefreshMs?: number;
  /** Where the Agenda queue's depth is reported (agenda_jobs_due at each scrape). */
  registry?: Registry;
  /** Sends the notification mail jobs (default: SMTP_URL, else files in MAIL_DIR, from the config). */
  mailer?: Mailer;
  /** The mail jobs' retry timing (tests shorten it). */
  mail?: MailJobOptions;
  /** How often the weekly summaries due are looked for (default 15 minutes). */
  weeklySummariesMs?: number;
  /** How often the link health pass runs (default LINK_HEALTH_EVERY_MS). */
  linkHealthMs?: number;
  /**
   * Opens the month's payout run on schedule (jobs/payouts.job.ts). The deployed worker does
   * (main.ts); tests' workers and the local platform do not, so every run there is one an operator
   * or a test opened, and the demo account's "Request payment" stays open whatever the date.
   */
  scheduledPayoutRuns?: boolean;
}

export interface Worker {
  agenda: Agenda;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The events appender's and the stats counter's interval. The appender is a backstop (every feed
 * read and stream poll appends its own account first); the counter's lag is this plus one round.
 */
const APPEND_EVERY_MS = 1000;

/** The job that dispatched postbacks before every worker did (removed at start where an older version left it). */
const RETIRED_JOBS = ['postbacks:dispatch'];

export function createWorker(deps: WorkerDeps): Worker {
  const every = deps.processEveryMs ?? deps.config.workerPollMs;
  // Indexes are a deploy step (db:migrate declares Agenda's): the backend does not create them.
  const agenda = new Agenda({ backend: new MongoBackend({ mongo: deps.db, collection: 'jobs', ensureIndex: false }), processEvery: every });
  if (deps.registry && !deps.registry.getSingleMetric('agenda_jobs_due')) {
    const jobs = deps.db.collection('jobs');
    new Gauge({
      name: 'agenda_jobs_due',
      help: 'Agenda jobs due now and not running (the queue the workers have not caught up with; -1: not measured)',
      registers: [deps.registry],
      async collect() {
        const due = {
          name: { $in: [RETRY_JOB, FEEDS_REFRESH_JOB, INQUIRIES_DECIDE_JOB, MAIL_JOB, WEEKLY_SUMMARIES_JOB, LINK_HEALTH_JOB, PAYOUTS_SCHEDULED_RUN_JOB] },
          nextRunAt: { $lte: new Date() },
          lockedAt: null,
        };
        this.set(await jobs.countDocuments(due, { maxTimeMS: 1000 }).catch(() => -1));
      },
    });
  }
  const http = createDeliveryAgent({ allowInsecure: deps.config.postbackAllowInsecure, timeoutMs: deps.config.postbackTimeoutMs });
  const onError = (err: Error) => deps.logger.error({ err: err.message }, 'postback attempt failed');
  const dispatcher = createDispatcher(deps, { agent: http, slots: deps.slots ?? createMemorySlots(), scheduleRetry: retryScheduler(agenda), onError });
  const mailer =
    deps.mailer ??
    createMailer({
      from: deps.config.mailFrom,
      smtpUrl: deps.config.smtpUrl,
      dir: deps.config.mailDir,
      onWritten: (path, m) => deps.logger.info({ mail: path, subject: m.subject }, 'mail written'),
    });
  for (const job of [
    ...retryJobs(deps, dispatcher),
    ...mailJobs(deps, mailer, deps.mail),
    ...feedJobs(deps, (r) => deps.logger.info(r, 'feed files regenerated')),
    ...inquiryJobs(deps, (r) => deps.logger.info(r, 'overdue inquiries decided')),
    ...linkHealthJobs(deps, (r) => deps.logger.info(r, 'link health pass')),
    ...(deps.scheduledPayoutRuns ? payoutJobs(deps, (r) => deps.logger.info(r, 'scheduled payout run opened')) : []),
  ])
    // Each run in its own span (nothing when tracing is off): a retry's or a feed refresh's time and failure in the traces.
    agenda.define(
      job.name,
      async (j) => inSpan(`job ${job.name}`, undefined, { 'job.name': job.name, 'job.id': String(j.attrs._id ?? '') }, () => job.run(j.attrs.data)),
      job.options,
    );
  // Agenda reports a lost database connection as 'error': log it and keep polling (it recovers).
  agenda.on('error', (err: Error) => deps.logger.error({ err: err.message }, 'job store error'));
  agenda.on('fail', (err: Error, job: { attrs: { name: string } }) => deps.logger.warn({ job: job.attrs.name, err: err.message }, 'job failed'));

  // The loops (dispatch, events, stats): a round, then a pause of one interval, until stopped.
  let stopped = false;
  const wakes = new Set<() => void>();
  let loops: Array<Promise<void>> = [];
  let upgraded: Promise<number> | undefined;
  // The sale events' consumers read the log (docs/decisions/0070-sale-event-consumers.md): what the
  // retired flags of an older version still hold is handled once per start (a rerun finds nothing).
  let statsFlagsMigrated: Promise<number> | undefined;
  let outboxMigrated: Promise<unknown> | undefined;
  /** Rounds of `name` one interval apart until stopped, the first at once or, with `pauseFirst`, after an interval. */
  const loop = async (name: string, round: () => Promise<void>, interval: number, pauseFirst = false) => {
    for (let first = true; !stopped; first = false) {
      if (!first || !pauseFirst) await round().catch((err: Error) => deps.logger.error({ err: err.message }, `${name} round failed`));
      if (stopped) break;
      await new Promise<void>((ok) => {
        const wake = () => {
          clearTimeout(t);
          wakes.delete(wake);
          ok();
        };
        const t = setTimeout(wake, interval);
        wakes.add(wake);
      });
    }
  };
  return {
    agenda,
    start: async () => {
      await deps.db
        .collection('jobs')
        .deleteMany({ name: { $in: RETIRED_JOBS } })
        .catch(() => undefined);
      await agenda.start();
      await agenda.every(deps.feedsRefreshMs ?? 5 * 60_000, FEEDS_REFRESH_JOB);
      await agenda.every(deps.weeklySummariesMs ?? 15 * 60_000, WEEKLY_SUMMARIES_JOB);
      await agenda.every(INQUIRIES_DECIDE_EVERY_MS, INQUIRIES_DECIDE_JOB);
      await agenda.every(deps.linkHealthMs ?? LINK_HEALTH_EVERY_MS, LINK_HEALTH_JOB);
      if (deps.scheduledPayoutRuns) await agenda.every(PAYOUTS_SCHEDULED_RUN_EVERY_MS, PAYOUTS_SCHEDULED_RUN_JOB);
      const slow = Math.max(every, APPEND_EVERY_MS);
      loops = [
        loop(
          'postback dispatch',
          async () => {
            outboxMigrated ??= migrateOutbox(deps).catch((err: Error) => {
              outboxMigrated = undefined; // tried again next round
              throw err;
            });
            await outboxMigrated;
            await dispatchRound(deps, dispatcher);
          },
          every,
        ),
        loop('events append', async () => void (await appendPendingEvents(deps)), slow),
        // The ledger reads the log from its own checkpoint: approvals and reversals move balances.
        loop('ledger', async () => void (await bookPendingSales(deps)), slow),
        loop(
          'stats count',
          async () => {
            // Cells of an older layout are rebuilt first (once per start; later starts find none).
            upgraded ??= upgradeStatsCells(deps, (publisherId) =>
              deps.logger.info({ publisher: publisherId }, 'stats cells: rebuilding to the current layout'),
            ).catch((err: Error) => {
              upgraded = undefined; // tried again next round
              throw err;
            });
            await upgraded;
            statsFlagsMigrated ??= migrateStatsFlags(deps).catch((err: Error) => {
              statsFlagsMigrated = undefined; // tried again next round
              throw err;
            });
            await statsFlagsMigrated;
            await countPendingChanges(deps);
          },
          slow,
        ),
        // Existing accounts' roll-ups (periods from before them), a few months of one account a
        // round, in the background: reads take the cells for a period until its documents are built.
        loop(
          'stats roll-ups backfill',
          async () => {
            // Rounds for up to a few seconds (many small accounts go quickly), then a pause.
            for (const until = Date.now() + 5000; !stopped && Date.now() < until;) {
              const r = await backfillRollups(deps);
              if (!r.account) break;
              deps.logger.info(r, r.done ? 'stats roll-ups: account backfilled' : 'stats roll-ups: backfilling');
            }
          },
          slow,
          true,
        ),
        // Tracker batches stored since the last round, together: they share their cells, so counting
        // every CLICK_COUNT_INTERVAL_MS (a second) costs a fraction of counting each batch as it comes.
        loop('clicks count', async () => void (await countStoredClicks(deps)), deps.processEveryMs ?? deps.config.clickCountIntervalMs),
        // Low-traffic accounts' small click buckets merged into wide ones (and earlier merges settled).
        ...(deps.config.clickCompactIntervalMs
          ? [
              loop(
                'clicks compact',
                async () => {
                  const r = await compactClicks(deps);
                  if (r.merged || r.settled) deps.logger.info(r, 'clicks compacted');
                },
                deps.config.clickCompactIntervalMs,
                true,
              ),
            ]
          : []),
      ];
    },
    stop: async () => {
      stopped = true;
      for (const wake of [...wakes]) wake();
      await Promise.all(loops);
      // Jobs running now finish before the connection they write through closes (stop() would
      // unlock them mid-write); one that outlasts the wait is left locked and runs again after
      // its lock lifetime.
      const drained = await agenda.drain(15_000);
      if (drained.timedOut) deps.logger.warn({ running: drained.running }, 'worker stopped with jobs still running');
      await dispatcher.drain();
      await http.close();
    },
  };
}
