/**
 * The accounts the read model's batch jobs walk, in id order, listed page by page (`sortedDistinct`
 * of @cw/db: an aggregation `$group` by account id per page, read at once; never one `distinct`
 * reply, which passes MongoDB's 16 MB at about 500,000 accounts). Shared by the worker's roll-up
 * backfill (./rollup-backfill.ts), `stats:rollups` (./rollups.ts `buildStatsRollups`) and
 * `stats:rebuild` (./rebuild.ts); `after` goes on after the last account a stopped run finished.
 */
import { mergeSorted, sortedDistinct, type SortedDistinctOptions } from '@cw/db';
import { own, type StatsDeps } from './deps';

export type AccountListing = SortedDistinctOptions;

/**
 * Accounts with cells matching `cells`; by default those with an account-view month cell (every
 * counted fact writes one).
 */
export function accountsWithCells(
  deps: Pick<StatsDeps, 'data'>,
  opts: AccountListing = {},
  cells: Record<string, unknown> = { v: 'a', g: 'm' },
): AsyncGenerator<string> {
  return sortedDistinct(own(deps).Stat.collection, 'publisher_id', cells, opts);
}

/** Accounts with rows to count: conversions (and ledger entries) or clicks. */
export function accountsWithRows(deps: Pick<StatsDeps, 'data'>, opts: AccountListing = {}): AsyncGenerator<string> {
  return mergeSorted([sortedDistinct(own(deps).Conversion.collection, 'publisher_id', {}, opts), deps.data.links.clickPublishers(opts)]);
}
