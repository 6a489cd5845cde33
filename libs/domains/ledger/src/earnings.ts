/**
 * What a publisher earned between two moments: its commission, reversal and correction entries,
 * oldest first (a payout's self-billing statement lists them by program and month).
 */
import type { LedgerTxn } from './data/ledger.schema';
import { ledgerTxnFromStored } from './journal';
import { own } from './deps';

type Deps = Parameters<typeof own>[0];

export interface Earning {
  type: 'commission' | 'reversal' | 'correction';
  /** The sale (commission, reversal) or network booking (correction) it is about. */
  conversion_id: string | null;
  currency: string;
  /** Signed: what it added to the balance. */
  amount: string;
  created_at: Date;
}

const EARNING_TYPES = ['commission', 'reversal', 'correction'] as const;

/** The publisher's earnings booked after `after` (none: from the start) up to `until`, oldest first. */
export async function* earningsBetween(deps: Deps, publisherId: string, window: { after: Date | null; until: Date }): AsyncGenerator<Earning> {
  const created_at = { ...(window.after ? { $gt: window.after } : {}), $lte: window.until };
  const cursor = own(deps)
    .LedgerTxn.find({ publisher_id: publisherId, created_at, type: { $in: EARNING_TYPES } }, { type: 1, conversion_id: 1, postings: 1, created_at: 1 })
    .sort({ created_at: 1, _id: 1 })
    .lean()
    .cursor();
  for await (const row of cursor) {
    const t: LedgerTxn = ledgerTxnFromStored(row as Record<string, unknown>);
    for (const p of t.postings)
      if (p.account === 'publisher')
        yield { type: t.type as Earning['type'], conversion_id: t.conversion_id ?? null, currency: p.currency, amount: p.amount, created_at: t.created_at };
  }
}
