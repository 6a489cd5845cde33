/**
 * `payouts:scheduled-run`, recurring (hourly): from the 15th of each month (UTC) opens that month's
 * payout run of every publisher due (@cw/payouts `openScheduledRun`; docs/decisions/0055), which
 * admins then approve, export and settle as any run. The run's id is the month's, so another
 * worker's pass, or a pass after a crash, opens nothing twice and finishes a run left half-open.
 */
import { openScheduledRun, type PayoutsDeps } from '@cw/payouts';
import type { JobDefinition } from './job';

export const PAYOUTS_SCHEDULED_RUN_JOB = 'payouts:scheduled-run';
/** How often the worker looks whether this month's run is due (it opens once a month). */
export const PAYOUTS_SCHEDULED_RUN_EVERY_MS = 60 * 60_000;

export function payoutJobs(deps: PayoutsDeps, onOpened: (r: { run_id: string; payouts: number; held: number }) => void): JobDefinition[] {
  return [
    {
      name: PAYOUTS_SCHEDULED_RUN_JOB,
      // One pass at a time; a worker that dies holding it frees it after 30 minutes (the next pass finishes the run).
      options: { concurrency: 1, lockLifetime: 30 * 60_000 },
      run: async () => {
        const run = await openScheduledRun(deps);
        if (run) onOpened({ run_id: run._id, payouts: run.totals.reduce((n, t) => n + t.count, 0), held: run.held });
      },
    },
  ];
}
