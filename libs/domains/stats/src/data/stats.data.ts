/**
 * The stats read model's data: the cells (`stats`), their roll-ups (`stats_rollups`, and the backfill's progress per account, `stats_rollup_backfill`) and the
 * transactions that fill them (`stats_txns`). The models stay in this lib; the handle has no methods yet.
 */
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import { statRollupBackfillSchema, statRollupSchema, type StatRollupBackfillDoc, type StatRollupDoc } from './stat-rollup.schema';
import { statSchema, statTxnSchema, type StatDoc, type StatTxnDoc } from './stat.schema';

export interface StatsModels {
  Stat: Model<StatDoc>;
  StatTxn: Model<StatTxnDoc>;
  StatRollup: Model<StatRollupDoc>;
  StatRollupBackfill: Model<StatRollupBackfillDoc>;
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
    StatRollup: [statRollupSchema, 'stats_rollups'],
    StatRollupBackfill: [statRollupBackfillSchema, 'stats_rollup_backfill'],
  },
  (m: StatsModels) => new StatsData(m),
);
