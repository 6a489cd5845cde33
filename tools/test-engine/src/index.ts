/**
 * A database for a lib's own tests (README.md): MONGODB_URI when set (a real MongoDB), else the
 * embedded engine started as a process of its own. Not `@cw-tools/testing`, which composes the
 * runtime: the libs the runtime registers would depend on themselves through it.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { loadTestTargets } from '@cw/config';
import { connectDatabase, migrateIndexes, type Database } from '@cw/db';

export interface TestEngine {
  /** A URI naming a database of this test's own. */
  uri: string;
  stop(): Promise<void>;
}

export interface TestDatabase {
  db: Database;
  /** Drops the test's database, closes the connection and stops the engine. */
  stop(): Promise<void>;
}

export async function startTestEngine(): Promise<TestEngine> {
  const external = loadTestTargets().mongodbUri;
  const child = external
    ? undefined
    : spawn(process.execPath, ['--import', 'tsx', 'tools/embedded-mongo/src/cli.ts', '--port', '0', '--ttl-interval-ms', '500'], {
        cwd: resolve(import.meta.dirname, '../../..'),
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
  return {
    uri: url.toString(),
    stop: async () => {
      if (child?.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function startTestDatabase(): Promise<TestDatabase> {
  const engine = await startTestEngine();
  const db = await connectDatabase(engine.uri);
  return {
    db,
    stop: async () => {
      await db.connection.dropDatabase();
      await db.close();
      await engine.stop();
    },
  };
}

/** Opens `domain` on the test database's connection with its indexes, and answers its handle. */
export async function openDomain<M extends object, H>(
  test: TestDatabase,
  domain: { open(conn: Database['connection']): { models: M; handle: H } },
): Promise<H> {
  const { models, handle } = domain.open(test.db.connection);
  await migrateIndexes(models);
  return handle;
}
