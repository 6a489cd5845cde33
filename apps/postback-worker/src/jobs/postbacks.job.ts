/**
 * Postback delivery in two Agenda jobs (docs/decisions.md, "Postbacks"):
 * - `postbacks:dispatch`, recurring: the events feed's appender (sale events join their account's
 *   log, for accounts no reader asked about since), the outbox pump (pending sale events become deliveries), then
 *   every first attempt due (up to 64 at once, not waiting for slow receivers), and any retry
 *   whose own job was lost;
 * - `postbacks:retry`, one job per scheduled retry of a delivery (data: delivery id and attempt
 *   number), created by the attempt before it, at the time the retry schedule gives.
 * Every attempt is claimed on the delivery itself, so a sweep, a job and a second worker never
 * send one attempt twice.
 */
import type { Agenda } from 'agenda';
import type { Agent } from 'undici';
import { attemptDue, dueDeliveries, leaseMs, publishPendingEvents, type AttemptOptions } from '@cw/postbacks';
import { appendPendingEvents } from '@cw/conversions';
import type { UseCaseDeps } from '@cw/usecase';
import type { JobDefinition } from '../worker';

const CONCURRENCY = 64;
export const RETRY_JOB = 'postbacks:retry';

interface RetryData {
  delivery_id: string;
  attempt: number;
}

/** Creates the retry's job; unique per (delivery, attempt), so saving it twice makes one job. */
export function retryScheduler(agenda: Agenda): NonNullable<AttemptOptions['scheduleRetry']> {
  return async (deliveryId, attempt, at) => {
    await agenda
      .create<RetryData>(RETRY_JOB, { delivery_id: deliveryId, attempt })
      .unique({ 'data.delivery_id': deliveryId, 'data.attempt': attempt }, { insertOnly: true })
      .schedule(at)
      .save();
  };
}

export interface PostbackJobs {
  definitions: JobDefinition[];
  /** Waits for the attempts still in flight (graceful stop). */
  drain(): Promise<void>;
}

export function postbackJobs(deps: UseCaseDeps, agenda: Agenda, http: Agent, onError: (err: Error) => void): PostbackJobs {
  const scheduleRetry = retryScheduler(agenda);
  // First attempts in flight in this worker. A pass launches attempts into free slots and does not
  // wait for them: a receiver that hangs holds one slot until its timeout, never the others.
  const inFlight = new Map<string, Promise<void>>();
  const launch = (id: string, configs: AttemptOptions['configs']) => {
    const p = attemptDue(deps, http, id, { configs, scheduleRetry })
      .then(() => undefined, onError)
      .finally(() => inFlight.delete(id));
    inFlight.set(id, p);
  };
  return {
    drain: async () => {
      await Promise.allSettled([...inFlight.values()]);
    },
    definitions: [
      {
        name: 'postbacks:dispatch',
        // One dispatch job exists; a worker that dies holding it must not stop the others for long.
        options: { lockLifetime: 2 * leaseMs(deps) },
        run: async () => {
          // A pass ends well inside its lock (Agenda cancels a job that outlives it); the next continues.
          const deadline = Date.now() + leaseMs(deps);
          await appendPendingEvents(deps);
          while (Date.now() < deadline && (await publishPendingEvents(deps)).length >= 1000);
          // Configurations are read once per pass (a change applies from the next pass, within a second).
          const configs: AttemptOptions['configs'] = new Map();
          while (Date.now() < deadline) {
            const room = CONCURRENCY - inFlight.size;
            if (room <= 0) {
              await Promise.race(inFlight.values());
              continue;
            }
            const due = (await dueDeliveries(deps, room + inFlight.size)).filter((id) => !inFlight.has(id)).slice(0, room);
            if (!due.length) return;
            for (const id of due) launch(id, configs);
          }
        },
      },
      {
        name: RETRY_JOB,
        options: { concurrency: CONCURRENCY, removeOnComplete: true },
        run: async (data) => {
          const { delivery_id, attempt } = data as RetryData;
          await attemptDue(deps, http, delivery_id, { attempt, scheduleRetry });
        },
      },
    ],
  };
}
