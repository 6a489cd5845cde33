/**
 * The demo dataset seeded once per run and size, not once per test file: the first file that asks
 * for a seeded database seeds it as before and saves the engine's state to one snapshot file with
 * the dataset's credentials beside it; the files after it start their own embedded engine from
 * that file (a copy in their memory, their writes their own). Seeding takes seconds of the
 * engine's CPU per file; loading the snapshot takes a fraction of one.
 *
 * Only for a test's own embedded engine (a real MongoDB at MONGODB_URI is seeded per file, as
 * before), only within one `npm test` run (the directory is the run's, made and removed by
 * tools/testing/src/test-environment.ts: a change to the seed's code is seen by the next run), and
 * only while the seed is younger than SEED_MAX_AGE_MS, since the dataset is dated relative to when
 * it was seeded.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DemoDataset } from '@cw-tools/demo-data';
import type { EmbeddedMongo } from '@cw-tools/embedded-mongo';

/** Set by the run's global setup: the run's own directory (its seeds, the slow files' lock). */
export const RUN_DIR_ENV = 'CW_TEST_RUN_DIR';
/** A seed older than this is seeded again (its clicks and sales are dated from its own now). */
export const SEED_MAX_AGE_MS = 10 * 60_000;

export interface Seed {
  /** The snapshot file an engine starts from. */
  snapshot: string;
  /** The database the dataset is in. */
  dbName: string;
  demo: DemoDataset;
}

/**
 * Settings a test changes that never reach a seeded row (rate budgets, time limits, intervals,
 * logging, proxies, the postback URL check): files that differ only in these share a seed. Any
 * other setting makes a seed of its own.
 */
const NOT_IN_THE_SEED = [/^RATELIMIT_/, /_TIMEOUT_MS$/, /_INTERVAL_MS$/, /^LOG_/, /^TRUST_PROXY_HOPS$/, /^POSTBACK_ALLOW_INSECURE$/, /^PORT$/];

/**
 * Where the seed of these options lives in this run, or undefined when no run directory is set.
 * `kind` keeps seeds of different databases apart (a test's own, `platform`: the one-process platform's).
 */
export function seedPlace(products: number, env: Record<string, string | undefined> | undefined, kind = 'seed'): string | undefined {
  const root = process.env[RUN_DIR_ENV];
  if (!root) return undefined;
  const seeded = Object.entries(env ?? {}).filter(([k, v]) => v !== undefined && !NOT_IN_THE_SEED.some((re) => re.test(k)));
  const key = createHash('sha256')
    .update(JSON.stringify({ products, env: seeded.sort() }))
    .digest('hex')
    .slice(0, 16);
  return join(root, `${kind}-${products}-${key}`);
}

/** The seed at `place` when one is there and fresh enough. */
export function findSeed(place: string, now = Date.now()): Seed | undefined {
  try {
    const meta = JSON.parse(readFileSync(join(place, 'seed.json'), 'utf8')) as { dbName: string; demo: DemoDataset; at: number };
    if (now - meta.at > SEED_MAX_AGE_MS) return undefined;
    const snapshot = join(place, 'state.bson');
    statSync(snapshot);
    return { snapshot, dbName: meta.dbName, demo: meta.demo };
  } catch {
    return undefined;
  }
}

/**
 * Saves a freshly seeded engine's state and dataset at `place` (written aside, then renamed into
 * place whole; another file seeding the same at the same time loses nothing but its own copy).
 */
export async function saveSeed(place: string, engine: Pick<EmbeddedMongo, 'saveSnapshot'>, dbName: string, demo: DemoDataset, at: number): Promise<void> {
  const aside = `${place}.${process.pid}.${Date.now()}`;
  try {
    mkdirSync(aside, { recursive: true });
    await engine.saveSnapshot(join(aside, 'state.bson'));
    writeFileSync(join(aside, 'seed.json'), JSON.stringify({ dbName, demo, at }));
    // A stale seed is replaced; a fresh one another file just saved is kept.
    if (statOrNull(place) && !findSeed(place)) rmSync(place, { recursive: true, force: true });
    renameSync(aside, place);
  } catch {
    // Not saved: the next file seeds again.
  } finally {
    rmSync(aside, { recursive: true, force: true });
  }
}

function statOrNull(path: string) {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}
