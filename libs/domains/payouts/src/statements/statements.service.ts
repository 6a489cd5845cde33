/**
 * A payout's statement as its publisher reads it (`GET /payouts/{id}/statement`, the portal's
 * payments page, MCP): the newest statement of one of the account's payouts, as its PDF bytes and
 * its snapshot. The payment-status key rules (PAYOUTS_READ_POLICY). Another account's payout is
 * 404 `not_found` like an unknown one; a payout without a statement yet, 404 `statement_not_issued`.
 */
import type { Principal } from '@cw/auth';
import { ApiError } from '@cw/errors';
import { useCase, type InputOf } from '@cw/usecase';
import { PAYOUT_ID_INPUT, PAYOUTS_READ_POLICY, payoutOf } from '../payouts.service';
import type { PayoutsDeps } from '../deps';
import { latestStatement, pdfBytes } from './issue';
import type { StatementSnapshot } from './snapshot';

export interface PayoutStatement {
  number: string;
  /** `statement-2026-000001.pdf`. */
  filename: string;
  pdf: Buffer;
  snapshot: StatementSnapshot;
}

/** The statement of one of the account's payouts (its newest, when corrected). */
export async function statementOf(deps: Pick<PayoutsDeps, 'data'>, publisherId: string, payoutId: string): Promise<PayoutStatement> {
  const p = await payoutOf(deps, publisherId, payoutId);
  const row = await latestStatement(deps, publisherId, p._id);
  if (!row)
    throw new ApiError({
      code: 'statement_not_issued',
      detail: `Payout ${p._id} has no statement yet: it is issued when the payout is paid (status ${p.status === 'held' ? 'pending' : p.status}).`,
    });
  return { number: row.number, filename: `statement-${row.number}.pdf`, pdf: pdfBytes(row), snapshot: row.snapshot as StatementSnapshot };
}

export const getPayoutStatement = useCase(
  PAYOUTS_READ_POLICY,
  async function getPayoutStatement(deps: PayoutsDeps, principal: Principal, input: InputOf<typeof PAYOUT_ID_INPUT>) {
    return statementOf(deps, principal.publisher._id, input.id);
  },
  PAYOUT_ID_INPUT,
);
