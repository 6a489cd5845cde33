/**
 * `postbacks:dispatch`, a recurring Agenda job: turns pending sale events into deliveries (the
 * outbox pump) and makes every due attempt, a few at a time. Each attempt is claimed on the
 * delivery itself, so several workers share the work without sending one attempt twice.
 */
import type { Agent } from 'undici';
import { attemptDue, dueDeliveries, publishPendingEvents } from '@cw/postbacks';
import type { UseCaseDeps } from '@cw/usecase';
import type { JobDefinition } from '../worker';

const CONCURRENCY = 64;

export function postbacksJob(deps: UseCaseDeps, agent: Agent): JobDefinition {
  return {
    name: 'postbacks:dispatch',
    run: async () => {
      while ((await publishPendingEvents(deps)).length >= 1000);
      // Configurations are read once per pass (a change applies from the next pass, within a second).
      const configs = new Map();
      for (;;) {
        const due = await dueDeliveries(deps, 500);
        if (!due.length) return;
        let next = 0;
        await Promise.all(
          Array.from({ length: Math.min(CONCURRENCY, due.length) }, async () => {
            for (let i = next++; i < due.length; i = next++) await attemptDue(deps, agent, due[i], { configs });
          }),
        );
        if (due.length < 500) return;
      }
    },
  };
}
