/**
 * An account's leases on its `event_log_heads` document: one process at a time appends the
 * account's events (`log`: `leased_until`, `holder`) and one counts or rebuilds its stats
 * (`stats`: `stats_leased_until`, `stats_holder`). A lease is taken by one conditional upsert
 * (free or expired), renewed by its holder between steps (a holder that lost it stops), and released
 * at the end; a holder that died leaves it to expire.
 */
import { randomBytes } from 'node:crypto';
import { own, type EventsFeedDeps } from './deps';

const FIELDS = { log: ['leased_until', 'holder'], stats: ['stats_leased_until', 'stats_holder'] } as const;

export interface AccountLease {
  /** Extends the lease by its length; false when it was lost (expired and taken): stop. */
  renew(): Promise<boolean>;
}

/**
 * Runs `work` under the account's `kind` lease of `ms`, released after it. Without the lease (another
 * holder): undefined at once, or after waiting up to `waitMs` for it.
 */
export async function withAccountLease<T>(
  deps: { data: Pick<EventsFeedDeps['data'], 'conversions' | 'eventsFeed'> },
  publisherId: string,
  kind: keyof typeof FIELDS,
  ms: number,
  work: (lease: AccountLease) => Promise<T>,
  opts: { waitMs?: number } = {},
): Promise<T | undefined> {
  const [until, who] = FIELDS[kind];
  const holder = randomBytes(9).toString('base64url');
  const heads = own(deps).EventLogHead;
  for (const giveUp = Date.now() + (opts.waitMs ?? 0); ;) {
    const now = new Date();
    try {
      await heads.findOneAndUpdate(
        { _id: publisherId, $or: [{ [until]: null }, { [until]: { $lte: now } }] },
        { $set: { [until]: new Date(now.getTime() + ms), [who]: holder } },
        { upsert: true },
      );
      break;
    } catch (e) {
      // The head exists and is leased: the upsert's insert collided with it.
      if ((e as { code?: number }).code !== 11000) throw e;
      if (Date.now() >= giveUp) return undefined;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  try {
    return await work({
      renew: async () => (await heads.updateOne({ _id: publisherId, [who]: holder }, { $set: { [until]: new Date(Date.now() + ms) } })).matchedCount > 0,
    });
  } finally {
    await heads.updateOne({ _id: publisherId, [who]: holder }, { $set: { [until]: null, [who]: null } });
  }
}
