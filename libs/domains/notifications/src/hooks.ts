/**
 * The notices other domains raise without knowing people (the composition root wires them, for
 * every process that opens the platform's data): a reversal the ledger booked, when the sale's
 * commission was already paid out; a postback configuration whose circuit breaker opened; a
 * missing-sale inquiry decided (by its merchant, an operator or the response window).
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

/** What of a decided inquiry the mail needs (the inquiries lib's record; this lib does not import it). */
export interface DecidedInquiry {
  _id: string;
  publisher_id: string;
  program_id: number;
  order_id: string;
  amount: { toString(): string };
  currency: string;
  status: string;
  reason?: string | null;
  conversion_id?: string | null;
  decided_by?: string | null;
}

/** Tells the account's owners an inquiry they filed was decided (once per inquiry). */
export function noticeInquiryDecided(deps: NotifyDeps, i: DecidedInquiry): Promise<number> {
  if (i.status !== 'accepted' && i.status !== 'rejected') return Promise.resolve(0);
  return notifyPeople(deps, {
    kind: 'inquiry_decided',
    publisherId: i.publisher_id,
    inquiryId: i._id,
    programId: i.program_id,
    orderId: i.order_id,
    amount: i.amount.toString(),
    currency: i.currency,
    status: i.status,
    decidedBy: i.decided_by ?? 'merchant',
    ...(i.reason ? { reason: i.reason } : {}),
    ...(i.conversion_id ? { conversionId: i.conversion_id } : {}),
  });
}
