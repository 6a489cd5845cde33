/**
 * The job worker: Agenda on the MongoDB backend. Job definitions live in jobs/<name>.job.ts and
 * are registered here; postback delivery and feed regeneration are added by their issues.
 */
import { Agenda } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import type { Db } from 'mongodb';
import type { Logger } from '@cw/logging';

export interface WorkerDeps {
  db: Db;
  logger: Logger;
  /** Poll interval in milliseconds (a number: Agenda reads '200 milliseconds' as seconds). */
  processEveryMs?: number;
}

export interface JobDefinition {
  name: string;
  run: (data: unknown) => Promise<void>;
}

export interface Worker {
  agenda: Agenda;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createWorker(deps: WorkerDeps, jobs: JobDefinition[] = []): Worker {
  const agenda = new Agenda({ backend: new MongoBackend({ mongo: deps.db, collection: 'jobs' }), processEvery: deps.processEveryMs ?? 1000 });
  for (const job of jobs) agenda.define(job.name, async (j) => job.run(j.attrs.data));
  agenda.on('fail', (err: Error, job: { attrs: { name: string } }) => deps.logger.warn({ job: job.attrs.name, err: err.message }, 'job failed'));
  return {
    agenda,
    start: () => agenda.start(),
    stop: () => agenda.stop(),
  };
}
