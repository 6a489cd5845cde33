/**
 * A database for this lib's tests: MONGODB_URI when set (a real MongoDB), else the embedded
 * engine started as a process of its own. Not `createTestDatabase` from `@cw-tools/testing`:
 * that lib composes the runtime, which registers this lib's data, and importing it from here
 * would make a dependency cycle (stats -> testing -> runtime -> stats), as in
 * libs/platform/oauth/test/test-engine.ts.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { loadTestTargets } from '@cw/config';

export interface TestEngine {
  /** A URI naming a database of this test's own. */
  uri: string;
  stop(): Promise<void>;
}

const withDatabase = (serverUri: string): string => {
  const url = new URL(serverUri);
  url.pathname = `/test_${randomBytes(6).toString('hex')}`;
  return url.toString();
};

export async function startTestEngine(): Promise<TestEngine> {
  const external = loadTestTargets().mongodbUri;
  if (external) return { uri: withDatabase(external), stop: async () => undefined };
  const root = resolve(import.meta.dirname, '../../../..');
  const child = spawn(process.execPath, ['--import', 'tsx', 'tools/embedded-mongo/src/cli.ts', '--port', '0', '--ttl-interval-ms', '500'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const uri = await new Promise<string>((ok, fail) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => ok(line.trim()));
    child.once('exit', (code) => fail(new Error(`the embedded engine exited (${code}) before it served`)));
  });
  return {
    uri: withDatabase(uri),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
