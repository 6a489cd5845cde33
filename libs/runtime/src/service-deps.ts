/**
 * Opens what every service needs from a validated config: the database and models, Redis and
 * the rate limiter (memory limiter without REDIS_URL), logger and metrics. Used by app mains
 * and by the dev stack; nothing here reads the environment.
 */
import { AccessCache, bumpOnAccessChange, RedisAccessVersions, type AccessVersions } from '@cw/auth';
import type { PlatformConfig } from '@cw/config';
import { registerOperatorMetrics } from './operator-metrics';
import { openRedis, type RedisClient } from '@cw/ratelimit';
import { connectDatabase, migrateIndexes, onAccessChange, verifyIndexes, type Database } from '@cw/db';
import { openPlatformData, type Models, type PlatformData } from './platform-data';
import type { ReadinessCheck } from '@cw/health';
import { createLogger, type Logger } from '@cw/logging';
import { createHttpMetrics, type HttpMetrics } from '@cw/metrics';
import { createMemoryRateLimiter, createMemorySlots, createRedisRateLimiter, createRedisSlots, type RateLimiter, type Slots } from '@cw/ratelimit';

export interface ServiceDeps {
  config: PlatformConfig;
  logger: Logger;
  db: Database;
  /** Every domain's data handle (what use cases receive). */
  data: PlatformData;
  /** Every model: for the index check and operator metrics, never handed to a lib. */
  models: Models;
  limiter: RateLimiter;
  /** Concurrency caps (open event streams per account): Redis's when there is Redis, else this process's. */
  slots: Slots;
  redis?: RedisClient;
  metrics: HttpMetrics;
  checks: ReadinessCheck[];
  /** Principals cached and validated on every request against the access versions. */
  access: AccessCache;
}

export interface ServiceDepsOptions {
  /**
   * Access versions for a process without Redis whose database reports every writer's changes
   * to it (the one-process platform on its embedded engine). Otherwise: Redis's, or none.
   */
  localVersions?: AccessVersions;
  /** Where logs go (default: standard output); tests read them. */
  logDestination?: NodeJS.WritableStream;
  /**
   * `verify` (services): refuse to start while a declared index is missing, naming it (indexes
   * are built by `npm run admin -- db:migrate` before a deploy); `migrate`: build them (the local
   * platform, tests).
   */
  indexes?: 'verify' | 'migrate';
}

/** A service started on a database whose indexes are not migrated. */
export class IndexesMissingError extends Error {}

export async function openServiceDeps(
  config: PlatformConfig,
  mongoUri: string,
  name: string,
  opts: ServiceDepsOptions = {},
): Promise<ServiceDeps & { close(): Promise<void> }> {
  const logger = createLogger({ level: config.logLevel, name, destination: opts.logDestination });
  const db = await connectDatabase(mongoUri);
  const { data, models } = openPlatformData(db.connection);
  if (opts.indexes === 'migrate') await migrateIndexes(models);
  else {
    const missing = await verifyIndexes(models);
    if (missing.length) {
      await db.close();
      throw new IndexesMissingError(
        `the database lacks ${missing.length} index(es) this service needs; run \`npm run admin -- db:migrate\` first: ${missing.join('; ')}`,
      );
    }
  }
  let limiter: RateLimiter;
  const checks: ReadinessCheck[] = [{ name: 'mongodb', check: () => db.ping() }];
  const redis = await openRedis(config, (err) => logger.warn({ err: err.message }, 'redis error'));
  if (redis) {
    limiter = createRedisRateLimiter(redis);
    checks.push({ name: 'redis', check: async () => void (await redis!.ping()) });
  } else {
    limiter = createMemoryRateLimiter();
  }
  const versions = redis ? new RedisAccessVersions(redis) : (opts.localVersions ?? null);
  // Every write this process makes to what decides access bumps the versions before it returns.
  if (versions)
    onAccessChange(
      db.connection,
      bumpOnAccessChange(versions, (m) => logger.error(m)),
    );
  const metrics = createHttpMetrics();
  registerOperatorMetrics(metrics.registry, { db, data, redis });
  return {
    config,
    logger,
    db,
    data,
    models,
    limiter,
    slots: redis ? createRedisSlots(redis) : createMemorySlots(),
    redis,
    metrics,
    checks,
    access: new AccessCache(versions),
    close: async () => {
      redis?.disconnect();
      await db.close();
    },
  };
}

/** What an app's createApp needs: no connections it must open itself. */
export type AppDeps = Pick<ServiceDeps, 'config' | 'logger' | 'data' | 'limiter' | 'slots' | 'metrics' | 'access'>;
