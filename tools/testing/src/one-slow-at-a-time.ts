/**
 * Vitest setup file: the slow tier's files (SLOW_TIER in vitest.config.ts, handed over as
 * CW_SLOW_TIER) run one at a time while the other files run beside them, two files at once on the
 * 2-core machine. Side by side, two slow files (each a platform, a browser, a build or a fault
 * timer) starved each other into timeouts (docs/decisions/0061-ci-time.md); one slow file beside
 * ordinary ones did not. A slow file takes the run's lock (a file in the run's directory, made by
 * tools/testing/src/test-environment.ts) before its first hook and gives it back after its last; a
 * lock whose holder died is taken over. The order that keeps the waits short is the sequencer's
 * (tools/testing/src/slow-first-sequencer.ts: a slow file, then ordinary ones).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { RUN_DIR_ENV } from './seed-snapshots';

const slowTier = new Set((process.env.CW_SLOW_TIER ?? '').split(',').filter(Boolean));
const runDir = process.env[RUN_DIR_ENV];
/** As long as the longest slow file may run (the lock waits for it). */
const WAIT_MS = 30 * 60_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function take(path: string): Promise<void> {
  for (;;) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let holder = 0;
    try {
      holder = Number(readFileSync(path, 'utf8'));
    } catch {
      continue;
    }
    // An empty file is one being written: its holder is alive.
    if (holder && holder !== process.pid && !alive(holder)) rmSync(path, { force: true });
    await new Promise((r) => setTimeout(r, 250));
  }
}

let held: string | undefined;
const give = () => {
  if (held) rmSync(held, { force: true });
  held = undefined;
};

beforeAll(async () => {
  const path = relative(process.cwd(), expect.getState().testPath ?? '');
  if (!runDir || !slowTier.has(path)) return;
  const lock = join(runDir, 'slow-file.lock');
  await take(lock);
  held = lock;
  process.once('exit', give);
}, WAIT_MS);

afterAll(give);
