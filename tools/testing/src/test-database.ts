import { randomBytes } from 'node:crypto';
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
}

export async function createTestDatabase(opts: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const external = opts.ownEngine ? undefined : loadTestTargets().mongodbUri;
  const dbName = `test_${randomBytes(6).toString('hex')}`;
  const embedded = external ? undefined : await startEmbeddedMongo({ ttlMonitorIntervalMs: opts.ttlMonitorIntervalMs ?? 500 });
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
    embedded,
    drop,
    stop: async () => {
      if (embedded?.stopped) return;
      await drop();
      await embedded?.stop();
    },
  };
}

export function redisUrl(): string {
  return loadTestTargets().redisUrl;
}
