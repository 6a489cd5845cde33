/**
 * Corrections: bonuses and adjustments the network books (`ledger:add`). Each is a conversion row
 * of `source: ledger` (the spec's `/conversions/?source=ledger` lists them, reports count them)
 * and a ledger transaction keyed by that row's id, which is what moves the balance. The row comes
 * first, flagged `ledger_pending`; the ledger books it (now, or in its pass after a crash) under the
 * same key and unflags it.
 */
import { bookLedgerEntry, type ConversionRecord } from '@cw/conversions';
import { recordOperatorAct } from '@cw/audit';
import { operatorUseCase } from '@cw/usecase';
import { book } from './journal';
import type { LedgerDeps } from './deps';

type Deps = Pick<LedgerDeps, 'data'>;

const negate = (amount: string) => (amount.startsWith('-') ? amount.slice(1) : `-${amount}`);

/** Books the ledger transaction of a network booking (idempotent: the row's id is the key), and unflags the row. */
export async function bookCorrection(deps: Deps, c: ConversionRecord, actor = 'system') {
  const amount = c.commission.toString();
  const booked = await book(deps, {
    key: `correction:${c._id}`,
    publisher_id: c.publisher_id,
    type: 'correction',
    postings: [
      { account: 'publisher', currency: c.currency, amount },
      { account: 'corrections', currency: c.currency, amount: negate(amount) },
    ],
    conversion_id: c._id,
    reason: c.reason,
    actor,
    created_at: c.created_at,
  });
  await deps.data.conversions.networkBookingBooked(c._id);
  return booked;
}

/** Books every network booking not booked yet (of one account, or of any: the worker's pass). */
export async function bookPendingCorrections(deps: Deps, publisherId?: string): Promise<number> {
  let booked = 0;
  for (;;) {
    const rows = await deps.data.conversions.unbookedNetworkBookings(200, publisherId);
    for (const c of rows) if ((await bookCorrection(deps, c)).created) booked++;
    if (rows.length < 200) return booked;
  }
}

/** An admin books a bonus or correction: the conversion row, its ledger transaction, the audit log. */
export const operatorAddCorrection = operatorUseCase(
  'admin',
  async function operatorAddCorrection(
    deps: LedgerDeps,
    operator,
    input: { publisherId: string; amount: string; currency: string; reason: string; programId?: number; merchantId?: number },
  ) {
    const c = await bookLedgerEntry(deps, input);
    const { txn } = await bookCorrection(deps, c, operator.email);
    await recordOperatorAct(
      deps.data.audit,
      operator,
      'ledger_entry_booked',
      {
        conversion_id: c._id,
        transaction_id: txn._id,
        amount: input.amount,
        currency: input.currency,
        reason: input.reason,
        ...(input.programId ? { program_id: input.programId } : {}),
      },
      input.publisherId,
    );
    return c;
  },
);
