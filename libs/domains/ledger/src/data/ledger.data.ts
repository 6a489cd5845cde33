/** The ledger's data: the journal (`ledger_transactions`) and the balances over it (`ledger_balances`). */
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import { ledgerBalanceSchema, ledgerTxnSchema, type LedgerBalanceDoc, type LedgerTxnDoc } from './ledger.schema';

export interface LedgerModels {
  LedgerTxn: Model<LedgerTxnDoc>;
  LedgerBalance: Model<LedgerBalanceDoc>;
}

const { DomainHandle, open } = modelVault<LedgerModels>('ledger');

/** A reversal the ledger booked (approved, then declined): the commission taken back, positive. */
export interface BookedReversal {
  publisherId: string;
  conversionId: string;
  currency: string;
  amount: string;
}

export class LedgerData extends DomainHandle {
  #onReversal: Array<(r: BookedReversal) => Promise<void>> = [];

  /** Tells `listener` of each reversal booked from now on (the composition root: the notice of a reversal after payout). */
  onReversal(listener: (r: BookedReversal) => Promise<void>): void {
    this.#onReversal.push(listener);
  }

  /** Called once the reversal is booked; a listener's failure never undoes or fails the booking. */
  async reversalBooked(r: BookedReversal): Promise<void> {
    for (const listener of this.#onReversal) await listener(r).catch(() => undefined);
  }
}

export const ledgerModels = (data: LedgerData): LedgerModels => open(data);

export const ledgerDomain = defineDomain(
  'ledger',
  {
    LedgerTxn: [ledgerTxnSchema, 'ledger_transactions'],
    LedgerBalance: [ledgerBalanceSchema, 'ledger_balances'],
  },
  (m: LedgerModels) => new LedgerData(m),
);
