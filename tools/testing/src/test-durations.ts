/**
 * How long each test file took in a measured run, kept in the repository
 * (tools/testing/test-durations.json) so a clean clone (CI) orders its files as well as a machine
 * that remembers its last run: the sequencer (./slow-first-sequencer.ts) puts between two slow
 * files the ordinary ones that take about as long as the first, so the worker beside a slow file
 * reaches the next slow one as the first ends instead of waiting for its lock. Only the ratios
 * matter; a file the table lacks counts as the median of its kind.
 *
 * `npm run test:durations -- <vitest JSON report>` rewrites the table from a run's report
 * (`npx vitest run --reporter=json --outputFile.json=<file>`, as .ci/run writes .local/vitest-report.json).
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

interface VitestJsonReport {
  testResults: Array<{ name: string; startTime?: number; endTime?: number }>;
}

/** The table of a Vitest JSON report's files (their wall time, rounded to a tenth of a second). */
export function durationsOfReport(report: VitestJsonReport, root: string, measured: string): DurationsTable {
  const seconds: Record<string, number> = {};
  for (const r of report.testResults)
    if (r.startTime !== undefined && r.endTime !== undefined && r.endTime >= r.startTime)
      seconds[relative(root, r.name)] = Math.round((r.endTime - r.startTime) / 100) / 10;
  return { measured, seconds: Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b))) };
}

/** `npm run test:durations -- <report.json> [what the run was measured on]` */
if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const [reportPath, ...about] = process.argv.slice(2);
  if (!reportPath) {
    console.error('usage: npm run test:durations -- <vitest JSON report> [where and how it was measured]');
    process.exit(2);
  }
  const report = JSON.parse(readFileSync(reportPath, 'utf8')) as VitestJsonReport;
  const table = durationsOfReport(report, resolve(import.meta.dirname, '../../..'), about.join(' ') || new Date().toISOString().slice(0, 10));
  writeFileSync(DURATIONS_FILE, `${JSON.stringify(table, null, 2)}\n`);
  console.log(`${Object.keys(table.seconds).length} files written to ${relative(process.cwd(), DURATIONS_FILE)}`);
}
