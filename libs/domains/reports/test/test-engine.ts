/**
 * A database for this lib's tests: MONGODB_URI when set (a real MongoDB), else the embedded engine
 * started as a process of its own, opened through mongoose with this lib's domain registered. Not
 * `@cw-tools/testing`: that lib composes the runtime, which registers this lib's data (a cycle), as
 * in libs/platform/oauth/test/test-engine.ts.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { loadTestTargets } from '@cw/config';
import { connectDatabase, migrateIndexes, type Database } from '@cw/db';

export interface TestEngine {
  db: Database;
  stop(): Promise<void>;
}

export async function startTestEngine(): Promise<TestEngine> {
  const external = loadTestTargets().mongodbUri;
  const child = external
    ? undefined
    : spawn(process.execPath, ['--import', 'tsx', 'tools/embedded-mongo/src/cli.ts', '--port', '0', '--ttl-interval-ms', '500'], {
        cwd: resolve(import.meta.dirname, '../../../..'),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
  const exited = child && new Promise<void>((ok) => child.once('exit', () => ok()));
  const serverUri =
    external ??
    (await new Promise<string>((ok, fail) => {
      createInterface({ input: child!.stdout! }).once('line', (line) => ok(line.trim()));
      child!.once('exit', (code) => fail(new Error(`the embedded engine exited (${code}) before it served`)));
    }));
  const url = new URL(serverUri);
  url.pathname = `/test_${randomBytes(6).toString('hex')}`;
  const db = await connectDatabase(url.toString());
  return {
    db,
    stop: async () => {
      await db.connection.dropDatabase();
      await db.close();
      if (child?.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Opens `domain` on the engine's connection with its indexes, and answers its handle. */
export async function openDomain<M extends object, H>(
  engine: TestEngine,
  domain: { open(conn: Database['connection']): { models: M; handle: H } },
): Promise<H> {
  const { models, handle } = domain.open(engine.db.connection);
  await migrateIndexes(models);
  return handle;
}
