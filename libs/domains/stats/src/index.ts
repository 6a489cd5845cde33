export {
  countAccountChanges,
  countPendingChanges,
  countStoredClicks,
  countWrittenChanges,
  migrateStatsFlags,
  recoverClickBatches,
  STATS_STEPS,
  storeClicks,
  storeCountedClicks,
} from './counting';
export { AS_OF, countedAsOf } from './freshness';
export { readFacts, viewFor } from './reader';
export type { Fact, StatsQuery } from './reader';
export { addDays, bucketOf, daysBetween, nextDay, offsetCalendar, UTC_CALENDAR, zoneCalendar } from './calendar';
export type { Bucket, Calendar } from './calendar';
export { parseRebuildAfter, rebuildStats, upgradeStatsCells } from './rebuild';
export { buildPendingRollups, buildStatsRollups, ROLLUP_CACHE, ROLLUP_LIMITS, rollupId, rollupKey } from './rollups';
export type { RollupBuildProgress } from './rollups';
export { backfillRollups, ROLLUP_BACKFILL, rollupBackfillState } from './rollup-backfill';
export type { BackfillRound } from './rollup-backfill';
export { COMPACT_AFTER_MS, compactClicks, MERGE_SETTLE_MS } from './click-compaction';
export type { CompactionResult } from './click-compaction';
export type { RebuildAfter, RebuildProgress, RebuildResult } from './rebuild';
export { StatsData, statsDomain } from './data/stats.data';
export type { StatDoc, StatTxnDoc } from './data/stat.schema';
export type { StatRollupBackfillDoc, StatRollupDoc } from './data/stat-rollup.schema';
export type { StatsDeps } from './deps';
