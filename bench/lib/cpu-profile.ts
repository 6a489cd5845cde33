/**
 * CPU profiles of this process (node:inspector), summarised by package: where a request's CPU
 * goes (driver, bson, engine, Koa, our code...). Used by the hot-path benchmark's --profile.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The package a source URL belongs to, in the words of the breakdown. */
export function packageOf(url: string, fn: string): string | undefined {
  if (fn === '(idle)' || fn === '(program)') return undefined;
  if (fn === '(garbage collector)') return 'GC';
  if (!url) return 'native / V8';
  if (url.startsWith('node:')) return 'node internals';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (nm) {
    const pkg = nm[1];
    if (pkg === 'mongodb') return 'mongodb driver';
    if (pkg.startsWith('koa') || pkg.startsWith('@koa/')) return 'koa';
    if (pkg === 'mingo') return 'engine (mingo)';
    return pkg;
  }
  if (url.includes('/tools/embedded-mongo/')) return 'engine';
  if (url.includes('/libs/') || url.includes('/apps/')) return 'our code';
  if (url.includes('/tools/') || url.includes('/bench/')) return 'dev stack';
  return 'other';
}

/** Profiles this process while `run` runs; `rawOut`: also write the raw .cpuprofile there (Chrome DevTools opens it). */
export async function profileWhile<T>(
  run: () => Promise<T>,
  rawOut?: string,
): Promise<{ result: T; byPackage: Map<string, number>; totalMs: number; byFunction: Map<string, number> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  const result = await run();
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
  session.disconnect();
  if (rawOut) {
    mkdirSync(dirname(rawOut), { recursive: true });
    writeFileSync(rawOut, JSON.stringify(profile));
  }
  const pkgOfNode = new Map(profile.nodes.map((n) => [n.id, packageOf(n.callFrame.url, n.callFrame.functionName)]));
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const nameOfNode = new Map(
    profile.nodes.map((n) => [
      n.id,
      `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^.*\/work\/[^/]+\//, '')}`,
    ]),
  );
  let totalMs = 0;
  profile.samples.forEach((id, i) => {
    const pkg = pkgOfNode.get(id);
    if (!pkg) return;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    totalMs += ms;
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
    const fn = nameOfNode.get(id)!;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
  });
  return { result, byPackage, totalMs, byFunction };
}

/** One line: the packages over 2% of the busy time, largest first. */
export function formatBreakdown(byPackage: Map<string, number>, totalMs: number): string {
  return [...byPackage]
    .sort((a, b) => b[1] - a[1])
    .filter(([, ms]) => ms / totalMs >= 0.02)
    .map(([pkg, ms]) => `${pkg} ${((100 * ms) / totalMs).toFixed(0)}%`)
    .join(', ');
}

/** The functions with the most self time, one per line (for finding the next thing to cut). */
export function formatTop(byFunction: Map<string, number>, totalMs: number, n: number): string {
  return [...byFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([fn, ms]) => `    ${((100 * ms) / totalMs).toFixed(1).padStart(5)}%  ${fn}`)
    .join('\n');
}
