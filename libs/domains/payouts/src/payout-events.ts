/**
 * Payouts as a source of the events feed (@cw/events-feed's event-source port): a payout that
 * settles as paid or failed gets its event (`payout.paid` / `payout.failed`, ./runs.service.ts
 * `payoutEvent`) and `log_pending` in the write that moves its status; the feed appends it to the
 * account's log under the account's lease and clears the mark here. The composition root
 * registers `payoutEventSource(data)`.
 *
 * The body is the event's envelope and the payout as `GET /payouts/{id}` shows it (`payoutView`:
 * type and last 4 of the method, never an account number), with the status the event left it in,
 * as of when it is logged (a statement issued later is in `GET /payouts/{id}`, not in the event).
 */
import type { EventSource, PendingRow, SourceEvent } from '@cw/events-feed';
import type { PayoutsData } from './data/payouts.data';
import { payoutView } from './payouts.service';
import type { PayoutRow } from './runs.service';
import { own } from './deps';

type EventRow = PayoutRow & { events?: Array<{ _id: string; type: string; created_at: Date }> };

const STATUS_AFTER: Record<string, 'paid' | 'failed'> = { 'payout.paid': 'paid', 'payout.failed': 'failed' };

/** One logged payout event: envelope + the payout as of it. */
export function payoutEventBody(p: PayoutRow, ev: { _id: string; type: string; created_at: Date }): SourceEvent['body'] {
  const view = payoutView(p);
  return {
    id: ev._id,
    type: ev.type,
    event: ev.type.slice('payout.'.length),
    created_at: ev.created_at.toISOString(),
    publisher_id: p.publisher_id,
    payout: {
      ...view,
      status: STATUS_AFTER[ev.type] ?? view.status,
      created_at: view.created_at.toISOString(),
      paid_at: view.paid_at ? view.paid_at.toISOString() : null,
    },
  };
}

export function payoutEventSource(data: { payouts: PayoutsData }): EventSource {
  const { Payout } = own({ data });
  return {
    name: 'payouts',
    hasPending: async (publisherId) => !!(await Payout.exists({ log_pending: true, publisher_id: publisherId })),
    pendingAccounts: async (limit) => ((await Payout.distinct('publisher_id', { log_pending: true })) as string[]).slice(0, limit),
    pending: async (publisherId, limit): Promise<PendingRow[]> => {
      const rows = await Payout.find({ log_pending: true, publisher_id: publisherId }).limit(limit).lean<EventRow[]>();
      return rows.map((p) => ({
        events: (p.events ?? []).map((e) => ({ id: e._id, type: e.type, created_at: e.created_at, body: payoutEventBody(p, e) })),
        token: { id: p._id, n: p.events?.length ?? 0 },
      }));
    },
    clear: async (_publisherId, rows) => {
      if (!rows.length) return;
      // Only where no event was pushed since the read (the array has the length it had).
      await Payout.bulkWrite(
        rows.map(({ token }) => {
          const { id, n } = token as { id: string; n: number };
          return { updateOne: { filter: { _id: id, events: { $size: n } }, update: { $unset: { log_pending: '' } } } };
        }),
        { ordered: false },
      );
    },
  };
}
