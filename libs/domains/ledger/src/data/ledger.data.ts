/** The ledger's data: the journal (`ledger_transactions`) and the balances over it (`ledger_balances`). */
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import { ledgerBalanceSchema, ledgerTxnSchema, type LedgerBalanceDoc, type LedgerTxnDoc } from './ledger.schema';

export interface LedgerModels {
  LedgerTxn: Model<LedgerTxnDoc>;
  LedgerBalance: Model<LedgerBalanceDoc>;
}

const { DomainHandle, open } = modelVault<LedgerModels>('ledger');

export class LedgerData extends DomainHandle {}

export const ledgerModels = (data: LedgerData): LedgerModels => open(data);

export const ledgerDomain = defineDomain(
  'ledger',
  {
    LedgerTxn: [ledgerTxnSchema, 'ledger_transactions'],
    LedgerBalance: [ledgerBalanceSchema, 'ledger_balances'],
  },
  (m: LedgerModels) => new LedgerData(m),
);
