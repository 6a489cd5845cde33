/**
 * The ledger's migration for databases from before it (`ledger:migrate`), also its repair: for
 * every account with conversions, in id order, (1) its sale events booked from the ledger's
 * checkpoint, (2) every network booking (`source: ledger`) booked as a correction, (3) commission
 * marked paid before the ledger existed booked as one payout per currency, so the balance is what
 * the network still owes. Every step is keyed by its cause, so a run stopped anywhere is resumed by
 * running it again (from `after`, the last account it reported, to skip what is done).
 */
import { addDecimals, compareDecimals, formatDecimal, minorUnits } from '@cw/money';
import { bookCorrection } from './corrections';
import { book } from './journal';
import { bookAccountSales } from './sales';
import type { LedgerDeps } from './deps';

type Deps = Pick<LedgerDeps, 'data'>;

export interface LedgerMigrationProgress {
  accounts: number;
  last: string;
  sales: number;
  corrections: number;
  legacyPayouts: number;
}

/** Books the sale events, corrections and legacy payouts of one account (idempotent). */
export async function migrateAccount(deps: Deps, publisherId: string): Promise<Omit<LedgerMigrationProgress, 'accounts' | 'last'>> {
  const sales = await bookAccountSales(deps, publisherId);
  let corrections = 0;
  // Every booking, flagged or not (rows from before the flag existed).
  for (const c of await deps.data.conversions.networkBookings(publisherId, 100_000)) if ((await bookCorrection(deps, c)).created) corrections++;
  let legacyPayouts = 0;
  for (const { currency, amounts } of await deps.data.conversions.paidBeforeLedger(publisherId)) {
    const sum = addDecimals(amounts);
    if (compareDecimals(sum, '0') === 0) continue;
    const amount = formatDecimal(sum, Math.max(sum.scale, minorUnits(currency)));
    const r = await book(deps, {
      key: `legacy-paid:${currency}`,
      publisher_id: publisherId,
      type: 'payout',
      postings: [
        { account: 'publisher', currency, amount: `-${amount}` },
        { account: 'payouts', currency, amount },
      ],
      reason: 'Paid before the ledger',
      actor: 'system',
    });
    if (r.created) legacyPayouts++;
  }
  return { sales, corrections, legacyPayouts };
}

/** Every account (after `after`, in id order), reporting progress after each. */
export async function migrateLedger(
  deps: Deps,
  opts: { after?: string; publisherId?: string; onProgress?: (p: LedgerMigrationProgress) => void } = {},
): Promise<LedgerMigrationProgress> {
  const total: LedgerMigrationProgress = { accounts: 0, last: opts.after ?? '', sales: 0, corrections: 0, legacyPayouts: 0 };
  const step = async (publisherId: string) => {
    const r = await migrateAccount(deps, publisherId);
    total.accounts++;
    total.last = publisherId;
    total.sales += r.sales;
    total.corrections += r.corrections;
    total.legacyPayouts += r.legacyPayouts;
    opts.onProgress?.({ ...total });
  };
  if (opts.publisherId) {
    await step(opts.publisherId);
    return total;
  }
  for (;;) {
    const batch = await deps.data.conversions.publishersAfter(total.last, 500);
    if (!batch.length) return total;
    for (const publisherId of batch) await step(publisherId);
  }
}
