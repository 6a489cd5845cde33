import type { LedgerDeps } from '@cw/ledger';
import type { UseCaseDeps } from '@cw/usecase';
import { payoutsModels, type PayoutsData, type PayoutsModels } from './data/payouts.data';

/**
 * A file a notice's mail carries (the paid payout's statement PDF): base64 text, so a notice stays
 * plain JSON wherever it is kept before it is mailed (a job's data).
 */
export interface NoticeAttachment {
  filename: string;
  contentType: string;
  /** The bytes, base64. */
  content: string;
  encoding: 'base64';
}

/**
 * What happened to a payout that its publisher's owner is told of (the composition root sends the
 * mail; this lib knows no people).
 */
export type PayoutNotice =
  | { kind: 'payout_paid' | 'payout_failed'; publisherId: string; payoutId: string; attachments?: NoticeAttachment[] }
  | { kind: 'payout_method_changed' | 'tax_profile_changed'; publisherId: string };

/** The payouts' use cases: their data, the ledger (balances, booking), and who to tell. */
export type PayoutsDeps = UseCaseDeps<{ payouts: PayoutsData } & LedgerDeps['data']> & {
  /** Tells the account's owner (mail); absent: nobody is told. */
  notify?: (notice: PayoutNotice) => Promise<void>;
};

export const own = (deps: { data: { payouts: PayoutsData } }): PayoutsModels => payoutsModels(deps.data.payouts);
