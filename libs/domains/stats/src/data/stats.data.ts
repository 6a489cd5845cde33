/**
 * The stats read model's data: the cells (`stats`) and the transactions that fill them
 * (`stats_txns`). The models stay in this lib; the handle has no methods yet.
 */
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import { statSchema, statTxnSchema, type StatDoc, type StatTxnDoc } from './stat.schema';

export interface StatsModels {
  Stat: Model<StatDoc>;
  StatTxn: Model<StatTxnDoc>;
}

const { DomainHandle, open } = modelVault<StatsModels>('stats');

export class StatsData extends DomainHandle {}

/** The read model's own models (not exported from the lib). */
export const statsModels = (data: StatsData): StatsModels => open(data);

export const statsDomain = defineDomain(
  'stats',
  {
    Stat: [statSchema, 'stats'],
    StatTxn: [statTxnSchema, 'stats_txns'],
  },
  (m: StatsModels) => new StatsData(m),
);
