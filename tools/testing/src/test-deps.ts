import { loadConfig, loadTestTargets, type PlatformConfig } from '@cw/config';
import { MemoryAccessVersions, type AccessVersions } from '@cw/auth';
import { accessChangeOfWrite, type Database } from '@cw/db';
import { generateDemoData, type DemoDataset } from '@cw-tools/demo-data';
import { createLogger, type Logger } from '@cw/logging';
import { createHttpMetrics, type HttpMetrics } from '@cw/metrics';
import { openRedis, type RateLimiter, type RedisClient, type Slots } from '@cw/ratelimit';
import { openServiceDeps, type Models, type PlatformCaches, type PlatformData } from '@cw/runtime';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createTestDatabase, redisUrl, type TestDatabase, type TestDatabaseOptions } from './test-database';
import { findSeed, saveSeed, seedPlace, type Seed } from './seed-snapshots';

export interface TestDeps {
  config: PlatformConfig;
  logger: Logger;
  /** Every domain's data handle, as services hold it. */
  data: PlatformData;
  /** Every model, for tests that read or write raw rows. */
  models: Models;
  limiter: RateLimiter;
  slots: Slots;
  metrics: HttpMetrics;
  caches: PlatformCaches;
  versions: AccessVersions;
  /** The rate limiter's key prefix (shared by instances on the same database). */
  prefix: string;
  db: Database;
  tdb: TestDatabase;
  redis?: RedisClient;
  /** The Redis Cluster's nodes, when on one (instances on the same database use it too). */
  clusterNodes?: string[];
  /** The demo dataset's credentials and fixtures, when seeded. */
  demo?: DemoDataset;
  close(): Promise<void>;
}

export interface TestDepsOptions {
  /** Environment overrides for the config loader (rate budgets etc.). */
  env?: Record<string, string>;
  /** Use a real Redis limiter (REDIS_URL or 127.0.0.1:6379) instead of the memory limiter. */
  redis?: boolean;
  /** Use a Redis Cluster (its nodes, `host:port`) for the limiter and the access versions. */
  redisCluster?: string[];
  /** Seed the demo dataset with this many products. */
  seedProducts?: number;
  /** An own embedded engine even when MONGODB_URI is set, for tests that stop it. */
  ownEngine?: boolean;
  /** An own engine with its data on disk, so `tdb.restart()` drops every connection and keeps the data. */
  durable?: boolean;
  /**
   * Another instance of the same service: this one's own connections, caches and Redis client on
   * that one's database and Redis (with its seeded data), as a second process would have.
   */
  sameDatabaseAs?: TestDeps;
  /** How long a query waits for an unreachable server before the 503 (default 5000 ms). */
  serverSelectionTimeoutMS?: number;
  /** The driver emits command events (`db.connection.getClient().on('commandStarted', ...)`): what a test sees sent. */
  monitorCommands?: boolean;
}

/**
 * Everything an app's createApp needs, on a fresh database, for tests through HTTP: the
 * composition root services run on (`openServiceDeps`), with a test's own database, silent
 * logger, key prefix and, with Redis, its own client.
 */
/**
 * A few rows of the `@ip-location-db/asn` package in its layout (AWS, Hetzner, Google, Cloudflare,
 * Comcast, Deutsche Telekom; IPv4 and IPv6): the tracker's default AS table in tests.
 */
export const ASN_TEST_TABLE = resolve(import.meta.dirname, '../../../libs/domains/links/test/fixtures/asn');

export async function createTestDeps(opts: TestDepsOptions = {}): Promise<TestDeps> {
  // The tracker's AS table from a few real rows of the package (ASN_TEST_TABLE), not its 32 MB.
  const config = loadConfig({ NODE_ENV: 'test', ASN_DATABASE: ASN_TEST_TABLE, ...opts.env }, { port: 0 });
  const shared = opts.sameDatabaseAs;
  // The run's seed of this size, when a file before this one saved it (seed-snapshots.ts).
  const ownEngine = opts.ownEngine || opts.durable || !loadTestTargets().mongodbUri;
  const place = !shared && ownEngine && opts.seedProducts !== undefined ? seedPlace(opts.seedProducts, opts.env) : undefined;
  const seed = place ? findSeed(place) : undefined;
  const opened = shared ? undefined : await openTestDatabase({ ownEngine: opts.ownEngine, durable: opts.durable }, seed);
  const tdb = shared?.tdb ?? opened!;
  const prefix = shared?.prefix ?? `test_${randomBytes(4).toString('hex')}`;
  const cluster = opts.redisCluster ?? shared?.clusterNodes;
  // The production client (one server, or a cluster), as openServiceDeps opens it from the config.
  const redis =
    opts.redis || cluster || shared?.redis
      ? await openRedis(
          cluster ? { redisClusterNodes: cluster.map((n) => ({ host: n.split(':')[0]!, port: Number(n.split(':')[1]) })) } : { redisUrl: redisUrl() },
          () => undefined,
        )
      : undefined;
  // As in production: Redis's versions with Redis (under the production key names, so the operator
  // CLI's bumps reach them); else this process's, also fed by the engine's own change observer so
  // writers on other connections (the CLI in tests) are seen too.
  const observed = tdb.embedded;
  const deps = await openServiceDeps(config, tdb.uri, 'test', {
    logger: createLogger({ level: 'silent' }),
    metrics: createHttpMetrics({ defaultMetrics: false }),
    indexes: 'migrate',
    redis: redis ?? null,
    keyPrefix: prefix,
    localVersions: new MemoryAccessVersions(() => tdb.embedded === observed && !observed?.stopped),
    serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS,
    monitorCommands: opts.monitorCommands,
    // Apps are served from these deps: their reads carry the request budget, as a service's do.
    reads: 'requests',
  });
  const versions = deps.versions!;
  const unobserve = !redis ? observeEngine(tdb, versions) : undefined;
  const demo = shared ? shared.demo : opts.seedProducts !== undefined ? (opened?.seeded ?? (await seedDemo(deps, tdb, opts.seedProducts, place))) : undefined;
  return {
    config,
    logger: deps.logger,
    data: deps.data,
    models: deps.models,
    limiter: deps.limiter,
    metrics: deps.metrics,
    slots: deps.slots,
    caches: deps.caches,
    versions,
    prefix,
    db: deps.db,
    tdb,
    redis,
    clusterNodes: cluster,
    demo,
    close: async () => {
      unobserve?.();
      redis?.disconnect();
      await deps.close();
      if (!shared) await tdb.stop();
    },
  };
}

/** A test database, from the run's seed when there is one (a seed removed meanwhile: an empty one, seeded after). */
async function openTestDatabase(opts: TestDatabaseOptions, seed: Seed | undefined): Promise<TestDatabase & { seeded?: DemoDataset }> {
  if (seed)
    try {
      return Object.assign(await createTestDatabase({ ...opts, from: seed }), { seeded: seed.demo });
    } catch {
      // Replaced by a fresher seed while this file read it.
    }
  return createTestDatabase(opts);
}

/** Seeds the demo dataset and, with a place for this run's seeds, saves it there for the files after this one. */
async function seedDemo(
  deps: { config: PlatformConfig } & Parameters<typeof generateDemoData>[0],
  tdb: TestDatabase,
  products: number,
  place: string | undefined,
): Promise<DemoDataset> {
  const at = Date.now();
  const demo = await generateDemoData(deps, { products, linkKey: deps.config.secretKey });
  if (place && tdb.embedded) await saveSeed(place, tdb.embedded, tdb.dbName, demo, at);
  return demo;
}

/** Bumps in-process versions for every access-relevant write the test's embedded engine makes. */
function observeEngine(tdb: TestDatabase, versions: AccessVersions): (() => void) | undefined {
  return tdb.embedded?.engine.onChange((c) => {
    if (c.op !== 'put' && c.op !== 'delete') return;
    if (c.db !== tdb.dbName) return;
    const change = accessChangeOfWrite(c.coll, c.op === 'put' ? c.doc : undefined);
    if (change) void versions.bump(change);
  });
}
