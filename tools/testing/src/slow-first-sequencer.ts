/**
 * The order `npm test` starts its files in. Two files run at once (vitest.config.ts), the slow
 * tier's one at a time (tools/testing/src/one-slow-at-a-time.ts), so the order puts a slow file,
 * then its share of the ordinary ones, then the next slow file: while one worker runs a slow file
 * the other works through ordinary files instead of waiting for the slow file's lock.
 *
 * A file's duration: the one Vitest remembers from this machine's last run
 * (node_modules/.vite/vitest), else the measured run's in tools/testing/test-durations.json (a
 * clean clone, CI), else the median of its kind (a new file). Within each kind, longest first;
 * ties, larger file first. The ordinary files between two slow ones add up to a little more than
 * the first one's duration: a share that is too long costs nothing (the worker that ran the slow
 * file helps with it), one that is too short leaves a worker waiting for the lock.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { readDurations } from './test-durations';

/** How much longer than its slow file a share of ordinary files is made. */
const SHARE_MARGIN = 1.2;

const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : 1);

export interface FileToOrder {
  slow: boolean;
  /** Remembered or measured duration (any unit, the same for every file); undefined: unknown. */
  duration?: number;
  /** Bytes, for ties. */
  size: number;
}

/** The order of `files` (see above): slow files longest first, each followed by its share of ordinary ones. */
export function slowFirstOrder<T>(files: readonly T[], about: (file: T) => FileToOrder): T[] {
  const info = new Map(files.map((f) => [f, about(f)] as const));
  const typical = (slow: boolean) =>
    median(
      files
        .map((f) => info.get(f)!)
        .filter((i) => i.slow === slow && i.duration !== undefined)
        .map((i) => i.duration!),
    );
  const typicalSlow = typical(true);
  const typicalOrdinary = typical(false);
  const duration = (f: T) => info.get(f)!.duration ?? (info.get(f)!.slow ? typicalSlow : typicalOrdinary);
  const longestFirst = (a: T, b: T) => {
    const x = duration(a);
    const y = duration(b);
    return x === y ? info.get(b)!.size - info.get(a)!.size : y > x ? 1 : -1;
  };
  const slow = files.filter((f) => info.get(f)!.slow).sort(longestFirst);
  const rest = files.filter((f) => !info.get(f)!.slow).sort(longestFirst);
  const order: T[] = [];
  for (const s of slow) {
    order.push(s);
    const budget = duration(s) * SHARE_MARGIN;
    for (let spent = 0; rest.length && spent < budget;) {
      const f = rest.shift()!;
      spent += duration(f);
      order.push(f);
    }
  }
  return [...order, ...rest];
}

export function slowFirstSequencer(slowTier: readonly string[]): typeof BaseSequencer {
  const slowSet = new Set(slowTier);
  return class SlowFirstSequencer extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const { cache, config } = this.ctx;
      const measured = readDurations();
      return slowFirstOrder(files, (f) => {
        const path = relative(config.root, f.moduleId);
        const key = `${f.project.name}:${path}`;
        const seconds = measured[path];
        return {
          slow: slowSet.has(path),
          duration: cache.getFileTestResults(key)?.duration ?? (seconds === undefined ? undefined : seconds * 1000),
          size: cache.getFileStats(key)?.size ?? 0,
        };
      });
    }
  };
}
