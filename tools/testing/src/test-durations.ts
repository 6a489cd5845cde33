/**
 * How long each test file took in a measured run, kept in the repository
 * (tools/testing/test-durations.json) so a clean clone (CI) orders its files as well as a machine
 * that remembers its last run: the sequencer (./slow-first-sequencer.ts) puts between two slow
 * files the ordinary ones that take about as long as the first, so the worker beside a slow file
 * reaches the next slow one as the first ends instead of waiting for its lock. Only the ratios
 * matter; a file the table lacks counts as the median of its kind.
 *
 * `npm run test:durations -- <results.json>` rewrites the table from what Vitest remembers of a
 * whole run (node_modules/.vite/vitest/<hash>/results.json: each file's duration, hooks included,
 * the figure the sequencer reads on a machine that ran the suite; a JSON report's start and end
 * times leave the hooks out).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

export const DURATIONS_FILE = resolve(import.meta.dirname, '../test-durations.json');

export interface DurationsTable {
  /** When and where the run was measured. */
  measured: string;
  /** Repository-relative path of each test file: its wall time in that run, in seconds. */
  seconds: Record<string, number>;
}

export function readDurations(path = DURATIONS_FILE): Record<string, number> {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as DurationsTable).seconds ?? {};
  } catch {
    return {};
  }
}

/** Vitest's memory of a run: `[project:path, { duration }]` per file (node_modules/.vite/vitest/<hash>/results.json). */
interface VitestResults {
  results: Array<[string, { duration?: number; failed?: boolean }]>;
}

/** The table of Vitest's remembered results (each file's duration in seconds, to a tenth). */
export function durationsOfResults(remembered: VitestResults, measured: string): DurationsTable {
  const seconds: Record<string, number> = {};
  for (const [key, r] of remembered.results) {
    const path = key.slice(key.indexOf(':') + 1);
    if (typeof r.duration === 'number' && r.duration >= 0) seconds[path] = Math.round(r.duration / 100) / 10;
  }
  return { measured, seconds: Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b))) };
}

/** `npm run test:durations -- <results.json> [where and how it was measured]` */
if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const [resultsPath, ...about] = process.argv.slice(2);
  if (!resultsPath) {
    console.error('usage: npm run test:durations -- node_modules/.vite/vitest/<hash>/results.json [where and how it was measured]');
    process.exit(2);
  }
  const remembered = JSON.parse(readFileSync(resultsPath, 'utf8')) as VitestResults;
  const table = durationsOfResults(remembered, about.join(' ') || new Date().toISOString().slice(0, 10));
  writeFileSync(DURATIONS_FILE, `${JSON.stringify(table, null, 2)}\n`);
  console.log(`${Object.keys(table.seconds).length} files written to ${relative(process.cwd(), DURATIONS_FILE)}`);
}
