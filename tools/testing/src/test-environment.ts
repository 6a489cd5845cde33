/**
 * What `npm test` needs beyond npm, set up once per run (Vitest's globalSetup):
 *
 * - Redis at REDIS_URL (default redis://127.0.0.1:6379): when nothing answers there, a private
 *   `redis-server` is started on that port for the run (Debian's package installed first when
 *   missing and running as root), and stopped afterwards.
 * - A Redis Cluster (three primaries with a replica each, six local `redis-server`s) that the
 *   contract tests of everything touching Redis also run against: its nodes are provided as
 *   `redisClusterNodes` (vitest inject).
 * - Chromium for the docs browser test (Debian's `chromium` at /usr/bin/chromium, or
 *   CHROMIUM_PATH): installed with apt-get when missing and running as root.
 * - promtool, which checks the operations kit's alert rules and Prometheus config (Debian's
 *   `prometheus` package; only its files are installed, no server is started).
 *
 * - A directory for the run: its demo seeds (tools/testing/src/seed-snapshots.ts) and the slow
 *   files' lock (tools/testing/src/one-slow-at-a-time.ts), removed afterwards.
 *
 * When something cannot be set up (not root, no apt-get, a remote Redis that does not answer),
 * one clear message says what to install, and the tests that need it fail with that message.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBrowserTarget, loadTestTargets } from '@cw/config';
import { redisAnswers } from './redis-answers';
import { RUN_DIR_ENV } from './seed-snapshots';
import { startRedisServer } from './private-redis';
import { startRedisCluster, type PrivateRedisCluster } from './private-redis-cluster';

function say(message: string): void {
  process.stderr.write(`[test environment] ${message}\n`);
}

function onPath(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Installs Debian packages when this process may; otherwise says why it cannot. */
function aptInstall(packages: string[], why: string): string | undefined {
  if (process.getuid?.() !== 0)
    return `${why}: install ${packages.join(' ')} (apt-get install ${packages.join(' ')}); the tests are not running as root, so they cannot.`;
  if (!onPath('apt-get')) return `${why}: install ${packages.join(' ')}; this machine has no apt-get.`;
  say(`installing ${packages.join(' ')} with apt-get (${why}; once per machine)...`);
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env, timeout: 300_000 });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { stdio: 'ignore', env, timeout: 600_000 });
    return undefined;
  } catch (e) {
    return `${why}: apt-get install ${packages.join(' ')} failed (${(e as Error).message.split('\n')[0]}).`;
  }
}

async function ensureRedis(): Promise<{ problem?: string; stop?: () => Promise<void> }> {
  const url = new URL(loadTestTargets().redisUrl);
  const host = url.hostname || '127.0.0.1';
  const port = Number(url.port || 6379);
  if (await redisAnswers(host, port)) return {};
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host))
    return { problem: `Redis at ${url.host} does not answer, and it is not on this machine, so the tests cannot start one.` };
  if (!onPath('redis-server')) {
    const problem = aptInstall(['redis-server'], 'Redis is needed by the rate-limit and integration tests');
    if (problem) return { problem };
  }
  say(`nothing answers at ${url.host}: starting redis-server there for this run`);
  try {
    const redis = await startRedisServer({ port });
    return { stop: () => redis.stop() };
  } catch (e) {
    return { problem: (e as Error).message };
  }
}

function ensureChromium(): string | undefined {
  const { chromiumPath, chromiumPathSet } = loadBrowserTarget();
  if (existsSync(chromiumPath)) return undefined;
  if (chromiumPathSet) return `Chromium is not at CHROMIUM_PATH=${chromiumPath}.`;
  return (
    aptInstall(['chromium'], 'Chromium is needed by the API reference browser test') ??
    (existsSync(chromiumPath) ? undefined : `Chromium is still missing at ${chromiumPath} after apt-get.`)
  );
}

function ensurePromtool(): string | undefined {
  if (onPath('promtool')) return undefined;
  return (
    aptInstall(['prometheus'], 'promtool is needed by the operations kit test') ??
    (onPath('promtool') ? undefined : 'promtool is still missing after apt-get install prometheus.')
  );
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Why Chromium is unavailable, when it is (the browser test fails with this message). */
    chromiumProblem: string;
    /** Why promtool is unavailable, when it is (the operations kit's promtool test fails with this). */
    promtoolProblem: string;
    /** `host:port` of each node of the run's shared Redis Cluster. */
    redisClusterNodes: string[];
  }
}

/** Vitest globalSetup: runs once before every test file, tears down after the run. */
export default async function setup(project: {
  provide(key: 'chromiumProblem', value: string): void;
  provide(key: 'promtoolProblem', value: string): void;
  provide(key: 'redisClusterNodes', value: string[]): void;
}): Promise<() => Promise<void>> {
  const redis = await ensureRedis();
  if (redis.problem) throw new Error(`[test environment] ${redis.problem}`);
  // The cluster needs redis-server here even when REDIS_URL answers from elsewhere.
  const missing = onPath('redis-server') ? undefined : aptInstall(['redis-server'], 'redis-server is needed by the Redis Cluster tests');
  if (missing) throw new Error(`[test environment] ${missing}`);
  const cluster: PrivateRedisCluster = await startRedisCluster();
  project.provide('redisClusterNodes', cluster.nodes);
  const chromium = ensureChromium();
  if (chromium) say(chromium);
  project.provide('chromiumProblem', chromium ?? '');
  const promtool = ensurePromtool();
  if (promtool) say(promtool);
  project.provide('promtoolProblem', promtool ?? '');
  // The test files' processes inherit it.
  const seeds = mkdtempSync(join(tmpdir(), 'cw-test-run-'));
  process.env[RUN_DIR_ENV] = seeds;
  return async () => {
    rmSync(seeds, { recursive: true, force: true });
    await cluster.stop();
    await redis.stop?.();
  };
}
