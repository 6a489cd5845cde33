import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { loadTestTargets } from '@cw/config';
import { startEmbeddedMongo, type EmbeddedMongo } from '@cw-tools/embedded-mongo';

export interface TestDatabase {
  /** Server URI without a database name. */
  serverUri: string;
  /** URI including this test's database name. */
  uri: string;
  dbName: string;
  /** True when running against a real MongoDB (MONGODB_URI). */
  external: boolean;
  /** The embedded engine, when one was started. */
  embedded?: EmbeddedMongo;
  drop(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Outage tests: stops the own embedded engine, waits `downMs`, and starts it again on the same
   * port with the same data (needs `durable`). Clients see their connections dropped, then back.
   */
  restart(downMs?: number): Promise<void>;
}

function withDatabase(serverUri: string, dbName: string): string {
  const url = new URL(serverUri);
  url.pathname = `/${dbName}`;
  return url.toString();
}

export interface TestDatabaseOptions {
  ttlMonitorIntervalMs?: number;
  /** Always start an own embedded engine, even when MONGODB_URI is set (outage tests stop it). */
  ownEngine?: boolean;
  /** An own engine keeping its data in a temporary directory, so `restart()` keeps the data. */
  durable?: boolean;
  /**
   * Start the own embedded engine from this snapshot file, whose data is in database `dbName`
   * (tools/testing/src/seed-snapshots.ts); not with MONGODB_URI.
   */
  from?: { snapshot: string; dbName: string };
}

export async function createTestDatabase(opts: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const external = opts.ownEngine || opts.durable ? undefined : loadTestTargets().mongodbUri;
  if (external && opts.from) throw new Error('a snapshot needs an own embedded engine, not MONGODB_URI');
  const dbName = opts.from?.dbName ?? `test_${randomBytes(6).toString('hex')}`;
  const dataDir = opts.durable ? await mkdtemp(join(tmpdir(), 'cw-test-engine-')) : undefined;
  // A durable engine recovers the snapshot as its own first one; an in-memory one loads it.
  if (dataDir && opts.from) await copyFile(opts.from.snapshot, join(dataDir, 'snapshot-000000.bson'));
  const engineOptions = { ttlMonitorIntervalMs: opts.ttlMonitorIntervalMs ?? 500, dataDir };
  let embedded = external ? undefined : await startEmbeddedMongo({ ...engineOptions, snapshot: dataDir ? undefined : opts.from?.snapshot });
  const serverUri = external ?? embedded!.uri;
  const drop = async () => {
    const client = await MongoClient.connect(serverUri);
    try {
      await client.db(dbName).dropDatabase();
    } finally {
      await client.close();
    }
  };
  return {
    serverUri,
    uri: withDatabase(serverUri, dbName),
    dbName,
    external: !!external,
    get embedded() {
      return embedded;
    },
    drop,
    stop: async () => {
      if (!embedded?.stopped) {
        await drop();
        await embedded?.stop();
      }
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
    restart: async (downMs = 0) => {
      if (!embedded || !dataDir) throw new Error('restart() needs createTestDatabase({ durable: true })');
      const port = Number(new URL(embedded.uri).port);
      await embedded.stop();
      await new Promise((r) => setTimeout(r, downMs));
      embedded = await startEmbeddedMongo({ ...engineOptions, port });
    },
  };
}

export function redisUrl(): string {
  return loadTestTargets().redisUrl;
}
