/**
 * The composition root: what every process of the platform runs on, built in one place from a
 * validated config (the database and every domain's data, Redis, the rate limiter, the access
 * versions, the caches, logger and metrics). Services (`runHttpService`), the one-process dev
 * stack, the tests (`@cw-tools/testing` `createTestDeps`) and the operator CLI all open it here,
 * each overriding only what differs (a silent logger, a test's own Redis and key prefix, the
 * engine's in-process versions, whether indexes are built or verified). Nothing here reads the
 * environment.
 */
import { AccessCache, bumpOnAccessChange, PRINCIPALS_CACHE, RedisAccessVersions, type AccessVersions, type TokenAuthority } from '@cw/auth';
import { CacheNamespace, registerCacheMetrics, type CacheSpec, type NamespaceStats } from '@cw/cache';
import { createTokenAuthority } from './token-authority';
import { CATALOG_CACHES, catalogNamespaces, createCatalogCaches, type CatalogCaches, type CatalogVersion } from '@cw/catalog';
import type { PlatformConfig } from '@cw/config';
import { EVENT_TAILS_CACHE, EventTails } from '@cw/events-feed';
import { budgetReads, connectDatabase, migrateIndexes, onAccessChange, verifyIndexes, type Database } from '@cw/db';
import type { ReadinessCheck } from '@cw/health';
import { createLogger, type Logger } from '@cw/logging';
import { KNOWN_LINKS_CACHE, LEGACY_CLICKS_EMPTY_CACHE, REDIRECT_TARGETS_CACHE, type RedirectTarget } from '@cw/links';
import { createHttpMetrics, type HttpMetrics } from '@cw/metrics';
import { MERCHANT_NAMES_CACHE } from '@cw/programs';
import {
  createMemoryRateLimiter,
  createMemorySlots,
  createRedisRateLimiter,
  createRedisSlots,
  openRedis,
  type RateLimiter,
  type RedisClient,
  type Slots,
} from '@cw/ratelimit';
import { registerOperatorMetrics } from './operator-metrics';
import { openPlatformData, type Models, type PlatformData } from './platform-data';

/**
 * Every cache of the process, each with its owner: namespaces of the one cache abstraction
 * (`@cw/cache`, docs/decisions/0045-one-cache-abstraction.md; what each keeps, its bound and what
 * ends an entry: `PLATFORM_CACHES`, rendered in docs/caches.md). Caches of one domain's reads that
 * live with its data (merchant names, link codes known stored) are on that domain's handle in `data`.
 */
export interface PlatformCaches extends CatalogCaches {
  /** auth: principals by key hash, used only while the account's access stamp is unchanged. */
  principals: AccessCache;
  /** conversions: the newest events of accounts with open event streams. */
  eventTails: EventTails;
  /** links: the tracker's redirect targets by link code. */
  redirectTargets: CacheNamespace<string, RedirectTarget>;
}

/** Every namespace's declaration, in the order of the docs' table (docs/caches.md; a test keeps them equal). */
export const PLATFORM_CACHES: readonly CacheSpec[] = [
  PRINCIPALS_CACHE,
  ...CATALOG_CACHES,
  MERCHANT_NAMES_CACHE,
  KNOWN_LINKS_CACHE,
  LEGACY_CLICKS_EMPTY_CACHE,
  REDIRECT_TARGETS_CACHE,
  EVENT_TAILS_CACHE,
];

/** Every namespace of a process: the caches' and its domains' data handles' (what the metrics read). */
export function platformNamespaces(caches: PlatformCaches, data: Pick<PlatformData, 'programs' | 'links'>): NamespaceStats[] {
  return [
    caches.principals.entries,
    ...catalogNamespaces(caches),
    data.programs.names,
    data.links.known,
    data.links.legacyEmpty,
    caches.redirectTargets,
    caches.eventTails.byAccount,
  ];
}

export function createPlatformCaches(config: PlatformConfig, versions: AccessVersions | null, tokens?: TokenAuthority): PlatformCaches {
  const principals = new AccessCache(versions, { tokens });
  return {
    principals,
    ...createCatalogCaches(config, principals, catalogVersion(versions, principals)),
    eventTails: new EventTails(),
    redirectTargets: new CacheNamespace(REDIRECT_TARGETS_CACHE),
  };
}

/**
 * The catalog's version, kept beside the access versions (same store, same epoch) and read in the
 * same MGET as the caller's access stamp, so the hot path makes no round trip for it: the value
 * that read saw, trusted only for a principal the access cache vouched for on this request (its
 * stamp was read); anyone else's request computes.
 */
function catalogVersion(versions: AccessVersions | null, principals: AccessCache): CatalogVersion {
  return { of: (principal) => (versions && principals.vouches(principal) ? versions.catalogStamp() : null) };
}

export interface ServiceDeps {
  config: PlatformConfig;
  logger: Logger;
  db: Database;
  /** Every domain's data handle (what use cases receive). */
  data: PlatformData;
  /** Every model: for the index migration and check, the seed, the CLI and tests; never handed to a lib. */
  models: Models;
  limiter: RateLimiter;
  /** Concurrency caps (open event streams per account): Redis's when there is Redis, else this process's. */
  slots: Slots;
  redis?: RedisClient;
  /** The access versions principals are validated against (null: nothing is cached). */
  versions: AccessVersions | null;
  caches: PlatformCaches;
  metrics: HttpMetrics;
  checks: ReadinessCheck[];
}

export interface ServiceDepsOptions {
  /**
   * Access versions for a process without Redis whose database reports every writer's changes
   * to it (the one-process platform on its embedded engine, tests). Otherwise: Redis's, or none.
   */
  localVersions?: AccessVersions;
  /** Where logs go (default: standard output); tests read them. */
  logDestination?: NodeJS.WritableStream;
  /** Another logger (tests: a silent one). */
  logger?: Logger;
  /** Another metrics registry (tests: without the process's default metrics). */
  metrics?: HttpMetrics;
  /**
   * `verify` (services): refuse to start while a declared index is missing, naming it (indexes
   * are built by `npm run admin -- db:migrate` before a deploy); `migrate`: build them (the local
   * platform, tests, the CLI); `none`: leave them (the CLI's own `db:migrate`).
   */
  indexes?: 'verify' | 'migrate' | 'none';
  /** A Redis client already open (tests: a cluster or a private server) instead of the config's; null: none at all. */
  redis?: RedisClient | null;
  /** Prefix of the limiter's and slots' keys (tests sharing one Redis). */
  keyPrefix?: string;
  /** How long a query waits for an unreachable server before the 503. */
  serverSelectionTimeoutMS?: number;
  /** The driver emits `commandStarted` and the like for every command (tests that check what is sent). */
  monitorCommands?: boolean;
  /**
   * `requests`: the connection serves requests, so every read carries REQUEST_QUERY_TIMEOUT_MS
   * (`@cw/db` budgetReads: HTTP services, the one-process platform, tests); `background` (the
   * default: the worker, the CLI): reads carry no time limit.
   */
  reads?: 'requests' | 'background';
}

/** A service started on a database whose indexes are not migrated. */
export class IndexesMissingError extends Error {}

export async function openServiceDeps(
  config: PlatformConfig,
  mongoUri: string,
  name: string,
  opts: ServiceDepsOptions = {},
): Promise<ServiceDeps & { close(): Promise<void> }> {
  const logger = opts.logger ?? createLogger({ level: config.logLevel, name, destination: opts.logDestination });
  const db = await connectDatabase(mongoUri, { serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS, monitorCommands: opts.monitorCommands });
  const { data, models } = openPlatformData(db.connection);
  if (opts.indexes === 'migrate') await migrateIndexes(models);
  else if (opts.indexes !== 'none') {
    const missing = await verifyIndexes(models);
    if (missing.length) {
      await db.close();
      throw new IndexesMissingError(
        `the database lacks ${missing.length} index(es) this service needs; run \`npm run admin -- db:migrate\` first: ${missing.join('; ')}`,
      );
    }
  }
  const checks: ReadinessCheck[] = [{ name: 'mongodb', check: () => db.ping() }];
  const ownRedis = opts.redis === undefined;
  const redis = opts.redis === undefined ? await openRedis(config, (err) => logger.warn({ err: err.message }, 'redis error')) : (opts.redis ?? undefined);
  let limiter: RateLimiter;
  if (redis) {
    limiter = createRedisRateLimiter(redis, opts.keyPrefix, { windowSeconds: config.rateLimitWindowSeconds });
    checks.push({ name: 'redis', check: async () => void (await redis.ping()) });
  } else {
    limiter = createMemoryRateLimiter(opts.keyPrefix, { windowSeconds: config.rateLimitWindowSeconds });
  }
  const versions = redis ? new RedisAccessVersions(redis) : (opts.localVersions ?? null);
  announceAccessChanges(db, versions, logger, data);
  if (opts.reads === 'requests') budgetReads(db.connection, config.requestQueryTimeoutMs);
  const metrics = opts.metrics ?? createHttpMetrics();
  registerOperatorMetrics(metrics.registry, { db, data, redis });
  const caches = createPlatformCaches(config, versions, createTokenAuthority(config, data));
  const namespaces = platformNamespaces(caches, data);
  registerCacheMetrics(metrics.registry, () => namespaces);
  return {
    config,
    logger,
    db,
    data,
    models,
    limiter,
    slots: redis ? createRedisSlots(redis, opts.keyPrefix ? `${opts.keyPrefix}:slots` : undefined) : createMemorySlots(),
    redis,
    versions,
    caches,
    metrics,
    checks,
    close: async () => {
      if (ownRedis) redis?.disconnect();
      await db.close();
    },
  };
}

/**
 * Every write through `db` to what decides access bumps the versions before it returns; so does a
 * revoked OAuth grant (its account's cached token principals are read afresh on the next request).
 */
function announceAccessChanges(db: Database, versions: AccessVersions | null, logger: Logger, data?: Pick<PlatformData, 'oauth'>): void {
  if (!versions) return;
  const bump = bumpOnAccessChange(versions, (m) => logger.error(m));
  onAccessChange(db.connection, bump);
  data?.oauth.onGrantRevoked((e) => (e.accountId ? bump({ accounts: [e.accountId] }) : bump('all')));
}

/**
 * A connection of its own for the background work of a process that also serves requests (the
 * one-process platform's worker): its reads carry no request budget, its writes announce access
 * and catalog changes as the request connection's do.
 */
export async function openBackgroundData(deps: Pick<ServiceDeps, 'versions' | 'logger'>, mongoUri: string): Promise<{ db: Database; data: PlatformData }> {
  const db = await connectDatabase(mongoUri);
  const { data } = openPlatformData(db.connection);
  announceAccessChanges(db, deps.versions, deps.logger, data);
  return { db, data };
}

/** What an app's createApp needs: no connections it must open itself. */
export type AppDeps = Pick<ServiceDeps, 'config' | 'logger' | 'data' | 'limiter' | 'slots' | 'metrics' | 'caches'>;

/** The service stack's part of an app's deps (`createPlatformApp` reads no domain's data). */
export type StackDeps = Omit<AppDeps, 'data'>;

/**
 * What one app declares it uses: the stack's deps and the data of the domains named, nothing more
 * (decision record 0068). An app's createApp takes its own `AppDepsOf<...>`, so reaching a domain
 * it did not declare is a type error; a process's `AppDeps` (every domain) is one of them.
 */
export type AppDepsOf<D extends keyof PlatformData> = StackDeps & { data: Pick<PlatformData, D> };
