/**
 * The compaction of low-traffic accounts' clicks (docs/scaling.md, "Clicks: buckets"): an account
 * with less than a click per tracker flush gets a bucket per click; its counted buckets an hour old
 * are merged into wide buckets of a day (the links lib's `mergeSmallBuckets`), and the merges are
 * settled (their sources deleted) once no list page can still be reading past them. Each account
 * under its stats lease, which the rebuild holds too: a rebuild never reads an account's clicks
 * while they move. The worker runs it every CLICK_COMPACT_INTERVAL_MS; `clicks:compact` on demand.
 */
import { withAccountLease } from '@cw/events-feed';
import { own, type StatsDeps } from './deps';

type Deps = Pick<StatsDeps, 'data'>;

/** Merged buckets older than this are settled: far longer than a list page (its reads are REQUEST_QUERY_TIMEOUT_MS each). */
export const MERGE_SETTLE_MS = 2 * 60_000;
/** Buckets younger than this are left as they are (counted by then; the recent clicks a list reads most). */
export const COMPACT_AFTER_MS = 60 * 60_000;
const LEASE_MS = 10 * 60_000;

export interface CompactionResult {
  accounts: number;
  /** Wide buckets made, the small buckets they took, and their clicks. */
  merged: number;
  buckets: number;
  clicks: number;
  /** Earlier merges settled (their sources deleted). */
  settled: number;
  /** Accounts whose stats lease was taken (a count or a rebuild running): left for the next run. */
  busy: number;
}

/** The ids of click batches not counted yet (their transactions are deleted once counted). */
async function openClickTxns(deps: Deps): Promise<Set<string>> {
  return new Set((await own(deps).StatTxn.find({ kind: 'clicks' }, { _id: 1 }).lean()).map((t) => String(t._id)));
}

/**
 * Compacts the given accounts' clicks (default: every account with links): settles merges made
 * MERGE_SETTLE_MS before `now`, then merges small buckets ending before `before`. With
 * `settleAfterMs`, waits that long and settles this run's merges too (the operator's command; the
 * worker's next run does it otherwise); with 0, as it goes.
 */
export async function compactClicks(
  deps: Deps,
  opts: { publisherIds?: string[]; now?: Date; before?: Date; settleAfterMs?: number; waitMs?: number; onAccount?: (publisherId: string) => void } = {},
): Promise<CompactionResult> {
  const now = opts.now ?? new Date();
  const before = opts.before ?? new Date(now.getTime() - COMPACT_AFTER_MS);
  const accounts = opts.publisherIds ?? (await deps.data.links.linkPublishers()).sort();
  const result: CompactionResult = { accounts: 0, merged: 0, buckets: 0, clicks: 0, settled: 0, busy: 0 };
  const mergedNow: string[] = [];
  const underLease = (publisherId: string, work: (renew: () => Promise<boolean>) => Promise<void>) =>
    withAccountLease(deps, publisherId, 'stats', LEASE_MS, async (lease) => (await work(() => lease.renew()), true), { waitMs: opts.waitMs ?? 2_000 });
  for (const publisherId of accounts) {
    opts.onAccount?.(publisherId);
    const done = await underLease(publisherId, async (renew) => {
      result.settled += await deps.data.links.settleMerges(publisherId, new Date(now.getTime() - MERGE_SETTLE_MS));
      // Without a wait, this run's merges are settled chunk by chunk: an account's whole history is
      // never held twice (the embedded engine keeps what it read decoded until it is deleted).
      const afterChunk = opts.settleAfterMs === 0 ? async () => void (result.settled += await deps.data.links.settleMerges(publisherId, now)) : undefined;
      const r = await deps.data.links.mergeSmallBuckets(publisherId, { before, now, renew, afterChunk, openTxns: () => openClickTxns(deps) });
      result.merged += r.merged;
      result.buckets += r.buckets;
      result.clicks += r.clicks;
      if (r.merged) mergedNow.push(publisherId);
    });
    if (done) result.accounts++;
    else result.busy++;
  }
  if (opts.settleAfterMs !== undefined && mergedNow.length) {
    await new Promise((ok) => setTimeout(ok, opts.settleAfterMs));
    for (const publisherId of mergedNow)
      await underLease(
        publisherId,
        async () => void (result.settled += await deps.data.links.settleMerges(publisherId, new Date(now.getTime() + opts.settleAfterMs!))),
      );
  }
  return result;
}
