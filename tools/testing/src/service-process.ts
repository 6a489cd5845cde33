/**
 * A service as its own process (`apps/<app>/src/main.ts`) on a test database, once `/healthz`
 * answers: what kill -9 and SIGTERM tests stop. No Redis, no log output, no address rate limit
 * unless `env` says otherwise.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from './free-port';

export async function spawnService(app: string, mongoUri: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const root = resolve(import.meta.dirname, '../../..');
  const child = spawn(process.execPath, ['--import', 'tsx', `apps/${app}/src/main.ts`], {
    cwd: root,
    env: {
      ...process.env,
      MONGODB_URI: mongoUri,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      RATELIMIT_IP_PER_MIN: '1000000',
      REDIS_URL: '',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, base };
}
