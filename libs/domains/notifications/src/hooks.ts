/**
 * The notices other domains raise without knowing people (the composition root wires them, for
 * every process that opens the platform's data): a reversal the ledger booked, when the sale's
 * commission was already paid out; a postback configuration whose circuit breaker opened.
 */
import { payoutThatCarried, type BookedReversal, type LedgerData } from '@cw/ledger';
import type { NotifyDeps } from './deps';
import { notifyPeople } from './notify';

/** Tells the account's owners of a reversal after payout (at most once per sale); nothing for a sale not paid out yet. */
export async function noticeReversal(deps: NotifyDeps & { data: { ledger: LedgerData } }, r: BookedReversal): Promise<number> {
  const payoutId = await payoutThatCarried(deps, r.publisherId, r.conversionId);
  if (!payoutId) return 0;
  return notifyPeople(deps, {
    kind: 'sale_reversed_after_payout',
    publisherId: r.publisherId,
    conversionId: r.conversionId,
    payoutId,
    amount: r.amount,
    currency: r.currency,
  });
}

/** Tells the account's owners and developers that its postback endpoint keeps failing (at most once a day). */
export function noticeBreakerOpen(deps: NotifyDeps, publisherId: string): Promise<number> {
  return notifyPeople(deps, { kind: 'postback_failing', publisherId });
}
