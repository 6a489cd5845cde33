/**
 * A real Redis Cluster of a test's own: three primaries with a replica each, six redis-server
 * processes with `cluster-enabled`, joined with `redis-cli --cluster create`. A primary can be
 * killed (SIGKILL) to watch its replica take over.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { redisAnswers } from './redis-answers';

const run = promisify(execFile);

export interface PrivateRedisCluster {
  /** `host:port` of every node, as REDIS_CLUSTER_NODES takes them. */
  nodes: string[];
  /** SIGKILL the primary that serves `key`'s slot; resolves with its port. */
  killPrimaryOf(key: string): Promise<number>;
  /**
   * Every node forgets who serves slots `from`..`to` (the state turns `fail`, as in a cluster not
   * yet converged); the function returned gives each range back to its primary.
   */
  uncoverSlots(from: number, to: number): Promise<() => Promise<void>>;
  stop(): Promise<void>;
}

async function cli(port: number, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-p', String(port), ...args], { timeout: 10_000 })).stdout;
}

/** The slot ranges and the port of the primary serving each, as the node on `port` sees them. */
async function shardsOf(port: number): Promise<Array<{ start: number; end: number; port: number }>> {
  const lines = (await cli(port, 'cluster', 'slots')).split('\n').map((l) => l.trim());
  const shards = [];
  // `cluster slots` lists: start, end, then the primary's host and port.
  for (let i = 0; i + 3 < lines.length; i++) {
    const start = Number(lines[i]);
    const end = Number(lines[i + 1]);
    if (lines[i] && lines[i + 1] && Number.isInteger(start) && Number.isInteger(end) && lines[i + 2] === '127.0.0.1')
      shards.push({ start, end, port: Number(lines[i + 3]) });
  }
  return shards;
}

/**
 * Six local redis-server processes made one cluster. `replicas`: per primary (default 1);
 * `waitForSync: false` answers as soon as the cluster is created, replicas maybe still syncing;
 * `syncDelaySeconds`: how long a primary waits before its first full sync to a replica (default 0).
 */
export async function startRedisCluster(
  opts: { nodeTimeoutMs?: number; replicas?: 0 | 1; waitForSync?: boolean; syncDelaySeconds?: number } = {},
): Promise<PrivateRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'cw-redis-cluster-'));
  const children = new Map<number, ChildProcess>();
  // Each node is started on its own free port and a free bus port (the default bus port, port +
  // 10,000, is past 65,535 for a quarter of the ephemeral range); a port another process took
  // between our look and the node's bind makes the node exit, and it is tried again on new ports.
  const startNode = async (): Promise<number> => {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const busPort = await freePort();
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-port',
          String(busPort),
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          String(opts.nodeTimeoutMs ?? 1000),
          '--save',
          '',
          '--appendonly',
          'no',
          '--repl-diskless-sync-delay',
          String(opts.syncDelaySeconds ?? 0),
          '--dir',
          dir,
        ],
        { stdio: 'ignore' },
      );
      let exited = false;
      child.once('exit', () => (exited = true));
      for (let i = 0; i < 200 && !exited && !(await redisAnswers('127.0.0.1', port, 200)); i++) await new Promise((r) => setTimeout(r, 50));
      if (!exited && (await redisAnswers('127.0.0.1', port, 1000))) {
        children.set(port, child);
        return port;
      }
      child.kill('SIGKILL');
      if (attempt === 5) throw new Error(`redis-server did not start on a free port after ${attempt} attempts`);
    }
  };
  const ports: number[] = [];
  try {
    for (let i = 0; i < 6; i++) ports.push(await startNode());
  } catch (e) {
    for (const child of children.values()) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', String(opts.replicas ?? 1), '--cluster-yes'], {
    timeout: 60_000,
  });
  // Ready when every node sees the cluster ok and every replica's link to its primary is up (a
  // replica that never synced would refuse to take over: its data counts as too old).
  for (let i = 0; i < (opts.waitForSync === false ? 0 : 300); i++) {
    const states = await Promise.all(ports.map((p) => cli(p, 'cluster', 'info').catch(() => '')));
    const roles = await Promise.all(ports.map((p) => cli(p, 'info', 'replication').catch(() => '')));
    if (states.every((s) => s.includes('cluster_state:ok')) && roles.every((r) => r.includes('role:master') || r.includes('master_link_status:up'))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    nodes: ports.map((p) => `127.0.0.1:${p}`),
    async killPrimaryOf(key) {
      const slot = Number((await cli(ports[0]!, 'cluster', 'keyslot', key)).trim());
      const port = (await shardsOf(ports[0]!)).find((s) => s.start <= slot && slot <= s.end)?.port;
      if (port === undefined) throw new Error(`no primary found for slot ${slot}`);
      const child = children.get(port)!;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      return port;
    },
    async uncoverSlots(from, to) {
      const owned = (await shardsOf(ports[0]!))
        .filter((s) => s.start <= to && from <= s.end)
        .map((s) => ({ port: s.port, start: Math.max(s.start, from), end: Math.min(s.end, to) }));
      for (const p of ports) await cli(p, 'cluster', 'delslotsrange', String(from), String(to));
      return async () => {
        for (const o of owned) await cli(o.port, 'cluster', 'addslotsrange', String(o.start), String(o.end));
      };
    },
    async stop() {
      for (const child of children.values()) if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
