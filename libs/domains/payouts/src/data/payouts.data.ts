/** The payouts domain's data: settings per publisher, runs, payouts, exchange rates. */
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import {
  fxRatesSchema,
  payoutProfileSchema,
  payoutRunSchema,
  payoutSchema,
  type FxRatesDoc,
  type PayoutDoc,
  type PayoutProfileDoc,
  type PayoutRunDoc,
} from './payouts.schema';
import { statementSchema, type StatementDoc } from '../statements/statement.schema';

export interface PayoutsModels {
  PayoutProfile: Model<PayoutProfileDoc>;
  PayoutRun: Model<PayoutRunDoc>;
  Payout: Model<PayoutDoc>;
  FxRates: Model<FxRatesDoc>;
  Statement: Model<StatementDoc>;
}

const { DomainHandle, open } = modelVault<PayoutsModels>('payouts');

export class PayoutsData extends DomainHandle {}

export const payoutsModels = (data: PayoutsData): PayoutsModels => open(data);

export const payoutsDomain = defineDomain(
  'payouts',
  {
    PayoutProfile: [payoutProfileSchema, 'payout_profiles'],
    PayoutRun: [payoutRunSchema, 'payout_runs'],
    Payout: [payoutSchema, 'payouts'],
    FxRates: [fxRatesSchema, 'fx_rates'],
    Statement: [statementSchema, 'statements'],
  },
  (m: PayoutsModels) => new PayoutsData(m),
);
