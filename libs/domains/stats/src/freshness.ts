/**
 * How fresh an answer from the stats read model is (`as_of`, docs/decisions/0046-stats-read-contract.md):
 * the instant up to which every conversion change of the account is counted. Now when nothing of
 * the account is left to count; else the time of its oldest change not counted: the oldest sale
 * event after the stats checkpoint in the events log, or still waiting to join the log
 * (@cw/events-feed `oldestUnreadSaleEvent`), and the oldest network booking not counted. Reads
 * only (the account's log head, its events after the checkpoint, the partial indexes of what is
 * waiting); it writes nothing and takes no lease.
 *
 * Read it before the cells: a change counted between the two reads is then in the cells and
 * after `as_of`, never the other way round. Clicks are counted in their own write (a batch whose
 * writer died is counted by the worker a minute later, which `as_of` does not tell).
 */
import { oldestUnreadSaleEvent } from '@cw/events-feed';
import { own, type StatsDeps } from './deps';

type Deps = Pick<StatsDeps, 'data'>;

/** The answers' `as_of`, for their response schemas. */
export const AS_OF = {
  type: 'string',
  format: 'date-time',
  description:
    'Every conversion change up to this instant is counted in these numbers: the time of the answer when none is waiting to be counted, else when the oldest one waiting was made.',
};

/** The instant up to which every conversion change of the account is counted (`now` when none is pending). */
export async function countedAsOf(deps: Deps, publisherId: string, now: Date = new Date()): Promise<Date> {
  const event = await oldestUnreadSaleEvent(deps, 'stats', publisherId);
  const booking = await own(deps)
    .Conversion.findOne({ source: 'ledger', stats_key: { $exists: false }, publisher_id: publisherId }, { created_at: 1 })
    .sort({ created_at: 1 })
    .lean<{ created_at: Date }>();
  const times = [event, booking?.created_at].filter((t): t is Date => !!t).map((t) => new Date(t).getTime());
  const oldest = Math.min(...times, now.getTime());
  return oldest < now.getTime() ? new Date(oldest) : now;
}
