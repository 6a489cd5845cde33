/**
 * The job worker: Agenda on the MongoDB backend. Job definitions live in jobs/<name>.job.ts and
 * are registered here: postback delivery (the dispatch pass every interval, and one job per retry)
 * and the refresh of prepared feed files (every FEEDS_REFRESH_MS).
 */
import { Agenda } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import type { Db } from 'mongodb';
import type { Logger } from '@cw/logging';
import { createDeliveryAgent } from '@cw/postbacks';
import type { UseCaseDeps } from '@cw/usecase';
import { FEEDS_REFRESH_JOB, feedJobs } from './jobs/feeds.job';
import { postbackJobs } from './jobs/postbacks.job';
import { Gauge, type Registry } from 'prom-client';

export interface WorkerDeps extends UseCaseDeps {
  db: Db;
  logger: Logger;
  /** Poll and dispatch interval in milliseconds (a number: Agenda reads '200 milliseconds' as seconds). */
  processEveryMs?: number;
  /** How often stale feed markets are looked for (default 5 minutes). */
  feedsRefreshMs?: number;
  /** Where the Agenda queue's depth is reported (agenda_jobs_due at each scrape). */
  registry?: Registry;
}

export interface JobDefinition {
  name: string;
  run: (data: unknown) => Promise<void>;
  options?: { concurrency?: number; removeOnComplete?: boolean; lockLifetime?: number };
}

export interface Worker {
  agenda: Agenda;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createWorker(deps: WorkerDeps): Worker {
  const every = deps.processEveryMs ?? 1000;
  const agenda = new Agenda({ backend: new MongoBackend({ mongo: deps.db, collection: 'jobs' }), processEvery: every });
  if (deps.registry && !deps.registry.getSingleMetric('agenda_jobs_due')) {
    const jobs = deps.db.collection('jobs');
    new Gauge({
      name: 'agenda_jobs_due',
      help: 'Agenda jobs due now and not running (the queue the workers have not caught up with; -1: not measured)',
      registers: [deps.registry],
      async collect() {
        this.set(await jobs.countDocuments({ nextRunAt: { $lte: new Date() }, lockedAt: null }, { maxTimeMS: 1000 }).catch(() => -1));
      },
    });
  }
  const http = createDeliveryAgent({ allowInsecure: deps.config.postbackAllowInsecure, timeoutMs: deps.config.postbackTimeoutMs });
  const postbacks = postbackJobs(deps, agenda, http, (err) => deps.logger.error({ err: err.message }, 'postback attempt failed'));
  const feeds = feedJobs(deps, (r) => deps.logger.info(r, 'feed files regenerated'));
  for (const job of [...postbacks.definitions, ...feeds]) agenda.define(job.name, async (j) => job.run(j.attrs.data), job.options);
  // Agenda reports a lost database connection as 'error': log it and keep polling (it recovers).
  agenda.on('error', (err: Error) => deps.logger.error({ err: err.message }, 'job store error'));
  agenda.on('fail', (err: Error, job: { attrs: { name: string } }) => deps.logger.warn({ job: job.attrs.name, err: err.message }, 'job failed'));
  return {
    agenda,
    start: async () => {
      await agenda.start();
      await agenda.every(every, 'postbacks:dispatch');
      await agenda.every(deps.feedsRefreshMs ?? 5 * 60_000, FEEDS_REFRESH_JOB);
    },
    stop: async () => {
      await agenda.stop();
      await postbacks.drain();
      await http.close();
    },
  };
}
