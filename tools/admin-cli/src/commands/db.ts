/** The database as a whole: indexes, sharding and layout migrations. */
import { migrateIndexes, NotShardedClusterError, shardCollections } from '@cw/db';
import { compactClicks, COMPACT_AFTER_MS, MERGE_SETTLE_MS } from '@cw/stats';
import { int, mustPublisher, str, UsageError, type CommandSpec } from './shared';

export const DB_COMMANDS: Record<string, CommandSpec> = {
  'db:migrate': {
    summary: 'Create every index the models declare, rebuild any whose options changed (run before a deploy; services only verify)',
    options: {
      'drop-undeclared': { type: 'boolean', doc: 'also drop indexes no model declares' },
      shard: { type: 'boolean', doc: 'first shard the collections docs/scaling.md shards (on a mongos only)' },
    },
    run: async (deps, o, progress) => {
      const sharded =
        o.shard === true
          ? await shardCollections(deps.models, { onStep: progress ? (s) => process.stderr.write(`sharded  ${s.collection} ${s.index}\n`) : undefined }).catch(
              (e) => {
                throw e instanceof NotShardedClusterError ? new UsageError(e.message) : e;
              },
            )
          : [];
      const steps = await migrateIndexes(deps.models, {
        dropUndeclared: o['drop-undeclared'] === true,
        // For a person (not --json): one line per index as it happens, on standard error.
        onStep: progress ? (s) => process.stderr.write(`${s.action.padEnd(8)} ${s.collection}.${s.index}\n`) : undefined,
      });
      const count = (a: string) => steps.filter((s) => s.action === a).length;
      return {
        indexes: steps.length,
        created: count('created'),
        rebuilt: count('rebuilt'),
        modified: count('modified'),
        dropped: count('dropped'),
        present: count('present'),
        ...(o.shard === true ? { sharded: sharded.length } : {}),
      };
    },
  },
  'clicks:migrate': {
    summary:
      'Move click rows of the older layout (one document per click) into buckets (many clicks per document), a batch at a time (progress bar); run while the services run; resumable after a crash, safe to repeat',
    options: { batch: { type: 'string', doc: 'rows per step (default 5000)' } },
    run: async (deps, o, progress) => {
      const batch = int(o, 'batch');
      if (batch === 0) throw new UsageError('--batch must be at least 1');
      const total = await deps.models.Click.estimatedDocumentCount();
      const { moved, buckets } = await deps.data.links.migrateClickRows({
        batch,
        onProgress: progress ? (done) => progress(done, Math.max(total, done)) : undefined,
      });
      return { moved, buckets, left: await deps.models.Click.estimatedDocumentCount() };
    },
  },
  'clicks:compact': {
    summary:
      "Merge low-traffic accounts' small click buckets (counted, older than an hour) into buckets of up to a day and 1,000 clicks, then settle the merges; what the worker does every CLICK_COMPACT_INTERVAL_MS; safe to repeat",
    options: {
      publisher: { type: 'string', doc: 'one account id (default: every account with links)' },
      'settle-after-seconds': {
        type: 'string',
        doc: `wait this long, then delete the merged buckets (default ${MERGE_SETTLE_MS / 1000}: list pages reading meanwhile see each click once)`,
      },
    },
    run: async (deps, o, progress) => {
      const publisherId = str(o, 'publisher');
      if (publisherId !== undefined) await mustPublisher(deps, publisherId);
      const settleAfter = int(o, 'settle-after-seconds') ?? MERGE_SETTLE_MS / 1000;
      const accounts = publisherId ? [publisherId] : (await deps.data.links.linkPublishers()).sort();
      let done = 0;
      const result = await compactClicks(deps, {
        publisherIds: accounts,
        settleAfterMs: settleAfter * 1000,
        waitMs: 60_000,
        onAccount: progress ? () => progress(done++, accounts.length) : undefined,
      });
      progress?.(accounts.length, accounts.length);
      return { ...result, older_than_minutes: COMPACT_AFTER_MS / 60_000 };
    },
  },
};
