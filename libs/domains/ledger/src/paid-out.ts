/**
 * Whether a sale's commission was already paid out: a payout booked after its commission (a payout
 * takes the whole balance, so it carried that commission) and not returned since. What a reversal
 * of that sale means for the publisher: the amount comes off the next payout (the notice of a
 * reversal after payout, @cw/notifications).
 */
import type { LedgerData } from './data/ledger.data';
import { own } from './deps';

/** The payout that carried the sale's commission, or null (not approved yet, not paid out, or its payout came back). */
export async function payoutThatCarried(deps: { data: { ledger: LedgerData } }, publisherId: string, conversionId: string): Promise<string | null> {
  const m = own(deps);
  const commission = await m.LedgerTxn.findOne({ publisher_id: publisherId, conversion_id: conversionId, type: 'commission' }, { created_at: 1 })
    .sort({ created_at: 1 })
    .lean<{ created_at: Date }>();
  if (!commission) return null;
  const payouts = await m.LedgerTxn.find({ publisher_id: publisherId, type: 'payout', created_at: { $gte: commission.created_at } }, { payout_id: 1 })
    .sort({ created_at: 1 })
    .limit(20)
    .lean<Array<{ payout_id?: string }>>();
  for (const p of payouts) {
    if (!p.payout_id) continue;
    const returned = await m.LedgerTxn.exists({ publisher_id: publisherId, type: 'payout_return', payout_id: p.payout_id });
    if (!returned) return p.payout_id;
  }
  return null;
}
