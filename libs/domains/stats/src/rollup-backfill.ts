/**
 * The roll-ups of existing accounts, built in the background (decision record 0065): an account
 * whose cells predate its roll-ups reads those periods from the cells until their documents are
 * built. The worker's backfill round (`backfillRollups`, its own loop, never in the way of counting
 * or of the worker's health) lists such accounts once (`~seeded`), then walks one account at a
 * time under a lease, its months from the newest (what dashboards read first) down, a few months a
 * round, building only the documents missing (`buildMonthRollups` with `missingOnly`) and keeping
 * where it is (`next`) after each month: a replica that dies leaves the account to another after
 * its lease, which goes on from there; two replicas never walk the same account at once, and a
 * build running twice is harmless anyway (a built document is left as it is, a replace is guarded).
 */
import { randomBytes } from 'node:crypto';
import { insertManyTolerant } from '@cw/db';
import { own, type StatsDeps } from './deps';
import { accountsWithCells } from './accounts';
import { buildMonthRollups } from './rollups';

type Deps = Pick<StatsDeps, 'data'>;

/** The marker saying the accounts were listed, and the listing's version (a higher one lists again). */
const SEEDED = '~seeded';
const BACKFILL_VERSION = 1;

export const ROLLUP_BACKFILL = {
  /** Months one round builds at most (then the account is let go, for the next round or replica). */
  months: 3,
  /** How long a replica holds an account it walks (renewed after each month). */
  leaseMs: 5 * 60_000,
};

export interface BackfillRound {
  /** The account walked this round (none: nothing left). */
  account?: string;
  months: number;
  built: number;
  /** The account has no month left to build. */
  done: boolean;
}

/**
 * Lists the accounts with cells for the backfill, once (every replica may: an account listed twice
 * is one document). Accounts created later need none: their roll-ups are written with their cells
 * and built by the counting pass.
 */
async function seed(deps: Deps, opts: { pageSize?: number }): Promise<void> {
  const Backfill = own(deps).StatRollupBackfill;
  const marker = await Backfill.findOne({ _id: SEEDED }, { v: 1 }).lean<{ v?: number }>();
  if ((marker?.v ?? 0) >= BACKFILL_VERSION) return;
  // Page by page (./accounts.ts), 1,000 accounts an insert; a replica that dies part-way leaves
  // the marker unset, and the next listing inserts again (an account listed twice is one document).
  let batch: string[] = [];
  const flush = async () => {
    if (batch.length)
      await insertManyTolerant(
        Backfill.collection,
        batch.map((id) => ({ _id: id, done: false, months: 0, built: 0 })),
      );
    batch = [];
  };
  for await (const id of accountsWithCells(deps, { pageSize: opts.pageSize })) {
    batch.push(id);
    if (batch.length >= 1000) await flush();
  }
  await flush();
  await Backfill.updateOne({ _id: SEEDED }, { $set: { done: true, v: BACKFILL_VERSION } }, { upsert: true });
}

/** Claims an account not done whose lease is free; answers it and the lease's owner. */
async function claim(deps: Deps, now: Date): Promise<{ id: string; next?: Date; owner: string } | undefined> {
  const Backfill = own(deps).StatRollupBackfill;
  const free = { done: false, $or: [{ lease_until: null }, { lease_until: { $lte: now } }] };
  const candidates = await Backfill.find(free, { _id: 1, next: 1 }).limit(5).lean<Array<{ _id: string; next?: Date }>>();
  const owner = randomBytes(9).toString('base64url');
  for (const c of candidates) {
    const res = await Backfill.updateOne({ _id: c._id, ...free }, { $set: { lease_until: new Date(now.getTime() + ROLLUP_BACKFILL.leaseMs), owner } });
    if (res.modifiedCount) return { id: c._id, next: c.next, owner };
  }
  return undefined;
}

/**
 * One backfill round: lists the accounts if not done yet, claims one account, builds its missing
 * roll-ups for at most `months` months before where it stopped (newest first), recording after each
 * month where it is; answers what it did. Bounded: a round is a few months of one account.
 */
export async function backfillRollups(deps: Deps, opts: { months?: number; now?: Date; listingPageSize?: number } = {}): Promise<BackfillRound> {
  const Backfill = own(deps).StatRollupBackfill;
  await seed(deps, { pageSize: opts.listingPageSize });
  const now = opts.now ?? new Date();
  const account = await claim(deps, now);
  if (!account) return { months: 0, built: 0, done: true };
  const limit = opts.months ?? ROLLUP_BACKFILL.months;
  const months = (
    await own(deps)
      .Stat.find({ publisher_id: account.id, v: 'a', g: 'm', ...(account.next ? { t: { $lt: account.next } } : {}) }, { _id: 0, t: 1 })
      .sort({ t: -1 })
      .limit(limit + 1)
      .lean<Array<{ t: Date }>>()
  ).map((r) => r.t);
  const out: BackfillRound = { account: account.id, months: 0, built: 0, done: false };
  const mine = { _id: account.id, owner: account.owner };
  for (const month of months.slice(0, limit)) {
    const built = await buildMonthRollups(deps, account.id, month.getTime(), { missingOnly: true });
    out.months++;
    out.built += built;
    const moved = await Backfill.updateOne(mine, {
      $set: { next: month, lease_until: new Date(Date.now() + ROLLUP_BACKFILL.leaseMs) },
      $inc: { months: 1, built },
    });
    if (!moved.matchedCount) return out; // the lease passed to another replica: it goes on from here
  }
  out.done = months.length <= limit;
  await Backfill.updateOne(mine, out.done ? { $set: { done: true }, $unset: { lease_until: '', owner: '' } } : { $unset: { lease_until: '', owner: '' } });
  return out;
}

/** How far the backfill is: accounts listed, done, and left (for the operator and tests). */
export async function rollupBackfillState(deps: Deps): Promise<{ seeded: boolean; accounts: number; left: number }> {
  const Backfill = own(deps).StatRollupBackfill;
  const [seeded, accounts, left] = await Promise.all([
    Backfill.exists({ _id: SEEDED, v: { $gte: BACKFILL_VERSION } }),
    Backfill.countDocuments({ _id: { $ne: SEEDED } }),
    Backfill.countDocuments({ done: false }),
  ]);
  return { seeded: !!seeded, accounts, left };
}
