import type { LedgerDeps } from '@cw/ledger';
import type { UseCaseDeps } from '@cw/usecase';
import { payoutsModels, type PayoutsData, type PayoutsModels } from './data/payouts.data';

/**
 * What happened to a payout that its publisher's owner is told of (the composition root sends the
 * mail; this lib knows no people).
 */
export type PayoutNotice =
  { kind: 'payout_paid' | 'payout_failed'; publisherId: string; payoutId: string } | { kind: 'payout_method_changed'; publisherId: string };

/** The payouts' use cases: their data, the ledger (balances, booking), and who to tell. */
export type PayoutsDeps = UseCaseDeps<{ payouts: PayoutsData } & LedgerDeps['data']> & {
  /** Tells the account's owner (mail); absent: nobody is told. */
  notify?: (notice: PayoutNotice) => Promise<void>;
};

export const own = (deps: { data: { payouts: PayoutsData } }): PayoutsModels => payoutsModels(deps.data.payouts);
