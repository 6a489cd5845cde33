/**
 * The order `npm test` starts its files in. Two files run at once (vitest.config.ts), the slow
 * tier's one at a time (tools/testing/src/one-slow-at-a-time.ts), so the order puts a slow file,
 * then its share of the ordinary ones, then the next slow file: while one worker runs a slow file
 * the other works through ordinary files instead of waiting for the slow file's lock.
 *
 * Within each kind, longest first by the duration Vitest remembers from the last run
 * (node_modules/.vite/vitest); a file it remembers nothing of (a clean clone, a new file) counts as
 * longest when it is in the slow tier (SLOW_TIER in vitest.config.ts: platforms, browsers, builds,
 * fault injection) and as shortest otherwise; ties, larger file first. The ordinary files between
 * two slow ones add up to about the first one's remembered duration, or to an equal share of them
 * when there is no memory.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export function slowFirstSequencer(slowTier: readonly string[]): typeof BaseSequencer {
  const slowSet = new Set(slowTier);
  return class SlowFirstSequencer extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const { cache, config } = this.ctx;
      const known = new Map(
        files.map((f) => {
          const path = relative(config.root, f.moduleId);
          const key = `${f.project.name}:${path}`;
          return [f, { path, remembered: cache.getFileTestResults(key)?.duration, size: cache.getFileStats(key)?.size ?? 0 }] as const;
        }),
      );
      const isSlow = (f: TestSpecification) => slowSet.has(known.get(f)!.path);
      const rank = (f: TestSpecification) => known.get(f)!.remembered ?? (isSlow(f) ? Infinity : -1);
      const longestFirst = (a: TestSpecification, b: TestSpecification) => {
        const x = rank(a);
        const y = rank(b);
        return x === y ? known.get(b)!.size - known.get(a)!.size : y > x ? 1 : -1;
      };
      const slow = files.filter(isSlow).sort(longestFirst);
      const rest = files.filter((f) => !isSlow(f)).sort(longestFirst);
      if (!slow.length) return rest;
      const order: TestSpecification[] = [];
      const share = Math.ceil(rest.length / slow.length);
      for (const s of slow) {
        order.push(s);
        const budget = known.get(s)!.remembered;
        if (budget === undefined) order.push(...rest.splice(0, share));
        else
          for (let spent = 0; rest.length && spent < budget;) {
            const f = rest.shift()!;
            spent += known.get(f)!.remembered ?? budget / share;
            order.push(f);
          }
      }
      return [...order, ...rest];
    }
  };
}
