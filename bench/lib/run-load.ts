/** Runs bench/lib/load.ts in a child process and returns its result. */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { LoadResult, LoadSpec } from './load';

const run = promisify(execFile);
const LOAD = resolve(import.meta.dirname, 'load.ts');
const TSX = resolve(import.meta.dirname, '../../node_modules/.bin/tsx');

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const { stdout } = await run(TSX, [LOAD, JSON.stringify(spec)], { maxBuffer: 1 << 24 });
  return JSON.parse(stdout.trim().split('\n').pop()!) as LoadResult;
}

export function formatResult(label: string, r: LoadResult): string {
  const codes = Object.entries(r.statusCounts)
    .map(([k, v]) => `${k}:${v}`)
    .join(' ');
  return `${label.padEnd(34)} ${r.requestsPerSecond.toFixed(0).padStart(6)} req/s  mean ${r.latencyMeanMs.toFixed(2)} ms  p50 ${r.latencyP50Ms} ms  p99 ${r.latencyP99Ms} ms  (${r.total} requests; ${codes})`;
}
