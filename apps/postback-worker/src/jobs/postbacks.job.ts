/**
 * Postback delivery in the worker (docs/decisions/0023-postbacks.md):
 * - the dispatch loop, in every worker process (no job one replica holds): every interval the
 *   events waiting to join their account's log appended, the log's events the postbacks have not
 *   read made deliveries (`deliverLoggedEvents`: sale.*, payout.paid, payout.failed…), then the
 *   first attempts due and the retries whose wake-up was lost; beside it, on its own timer, the
 *   events feed's appender for the other consumers;
 * - `postbacks:retry`, Agenda jobs that wake the retries: one job per due-time slot (data
 *   `{slot}`, unique on it), created by the failed attempts that fall in the slot, due at the slot's
 *   time; it claims every retry due by then. The live jobs stay bounded by the slots in use (about
 *   64 per doubling of the wait), not by the number of failing deliveries.
 * Every attempt is claimed on the delivery itself (./dispatch.ts in @cw/postbacks), so a loop, a slot
 * job and another worker never send one attempt twice.
 */
import type { Agenda } from 'agenda';
import { appendPendingEvents } from '@cw/events-feed';
import { deliverLoggedEvents, leaseMs, retrySlot, type Dispatcher } from '@cw/postbacks';
import type { PlatformData } from '@cw/runtime';
import type { UseCaseDeps } from '@cw/usecase';
import type { JobDefinition } from './job';

export const RETRY_JOB = 'postbacks:retry';

/**
 * Schedules the wake-up of a retry due at `at`: the slot job it falls in (one upsert on
 * `{name, data.slot}`, skipped when this process already saved that slot's job).
 */
export function retryScheduler(agenda: Agenda): (at: Date) => Promise<void> {
  const saved = new Set<number>();
  return async (at) => {
    const now = Date.now();
    const slot = retrySlot(at.getTime(), now);
    if (saved.has(slot)) return;
    await agenda.create(RETRY_JOB, { slot }).unique({ 'data.slot': slot }, { insertOnly: true }).schedule(new Date(slot)).save();
    saved.add(slot);
    if (saved.size > 10_000) for (const s of saved) if (s <= now) saved.delete(s);
  };
}

/** Accounts one read of the log takes (a pass takes more while its round has time). */
const ACCOUNTS_PER_READ = 1000;

/**
 * One round of the dispatch loop: events waiting for the log appended (a change whose write did
 * not append it), the log's events made deliveries (the `postbacks` consumer), launch due first
 * attempts and lost retries. A sale's postback thus waits at most a round after its change.
 */
export async function dispatchRound(deps: UseCaseDeps<PlatformData>, dispatcher: Dispatcher): Promise<void> {
  // A round ends well inside a lease, so a claim it makes is never older than its lease.
  const deadline = Date.now() + leaseMs(deps);
  await appendPendingEvents(deps);
  while ((await deliverLoggedEvents(deps, { accounts: ACCOUNTS_PER_READ })).accounts >= ACCOUNTS_PER_READ && Date.now() < deadline);
  await dispatcher.pass('first', deadline);
  await dispatcher.pass('overdue', deadline);
}

export function retryJobs(deps: UseCaseDeps<PlatformData>, dispatcher: Dispatcher): JobDefinition[] {
  return [
    {
      name: RETRY_JOB,
      // One slot job at a time per worker (each claims every retry due); other workers run theirs.
      options: { concurrency: 1, removeOnComplete: true, lockLifetime: 2 * leaseMs(deps) },
      run: async () => {
        await dispatcher.pass('retry', Date.now() + leaseMs(deps));
      },
    },
  ];
}
