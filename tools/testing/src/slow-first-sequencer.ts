/**
 * The order `npm test` starts its files in, so that the run ends soon after its longest file:
 * longest first by the duration Vitest remembers from the last run (node_modules/.vite/vitest);
 * a file it remembers nothing of (a clean clone, a new file) counts as longest when it is in the
 * slow tier (SLOW_TIER in vitest.config.ts: platforms, browsers, builds, fault injection) and as
 * shortest otherwise; ties, larger file first. Several workers share the machine
 * (vitest.config.ts): a slow file started last would run on alone while the others sit idle.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export function slowFirstSequencer(slowTier: readonly string[]): typeof BaseSequencer {
  const slow = new Set(slowTier);
  return class SlowFirstSequencer extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const { cache, config } = this.ctx;
      const order = new Map(
        files.map((f) => {
          const path = relative(config.root, f.moduleId);
          const key = `${f.project.name}:${path}`;
          const remembered = cache.getFileTestResults(key)?.duration;
          return [f, { duration: remembered ?? (slow.has(path) ? Infinity : -1), size: cache.getFileStats(key)?.size ?? 0 }] as const;
        }),
      );
      return [...files].sort((a, b) => {
        const x = order.get(a)!;
        const y = order.get(b)!;
        return x.duration === y.duration ? y.size - x.size : y.duration > x.duration ? 1 : -1;
      });
    }
  };
}
