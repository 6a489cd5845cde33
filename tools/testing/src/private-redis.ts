/**
 * A redis-server process of a test's own, on its own port, that the test may kill and start
 * again on the same port (fault tests), or the run's shared one (globalSetup).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { freePort } from './free-port';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redisAnswers } from './redis-answers';

export interface PrivateRedis {
  url: string;
  port: number;
  /** SIGKILL: the server vanishes with its data, as a crashed Redis without persistence. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedisServer(opts: { port?: number } = {}): Promise<PrivateRedis> {
  const port = opts.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'cw-redis-'));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    for (let i = 0; i < 100 && !(await redisAnswers('127.0.0.1', port, 200)); i++) await new Promise((r) => setTimeout(r, 50));
    if (!(await redisAnswers('127.0.0.1', port))) throw new Error(`redis-server did not start on port ${port}`);
  };
  const end = async (signal: NodeJS.Signals) => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill: () => end('SIGKILL'),
    start,
    stop: async () => {
      await end('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
