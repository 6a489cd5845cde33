/**
 * How fresh an answer from the stats read model is (`as_of`, docs/decisions/0046-stats-read-contract.md):
 * the instant up to which every conversion change of the account is counted. Now when nothing of
 * the account is pending; else the time of its oldest pending change (a conversion's `updated_at`:
 * one changed twice before it was counted is dated by its later change). One read of the partial
 * index `{stats_pending, publisher_id}`, which holds only what is not counted yet; it writes
 * nothing and takes no lease.
 *
 * Read it before the cells: a change counted between the two reads is then in the cells and
 * after `as_of`, never the other way round. Clicks are counted in their own write (a batch whose
 * writer died is counted by the worker a minute later, which `as_of` does not tell).
 */
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
  const [oldest] = await own(deps).Conversion.aggregate<{ at: Date | null }>([
    { $match: { stats_pending: true, publisher_id: publisherId } },
    { $group: { _id: null, at: { $min: '$updated_at' } } },
  ]);
  return oldest?.at && oldest.at.getTime() < now.getTime() ? new Date(oldest.at) : now;
}
