/**
 * The platform's Redis client: one server (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES).
 * Both fail fast rather than queue (a limiter that cannot answer answers 503) and auto-pipeline
 * (a request's access stamp read and rate-limit consume leave in one write). On a cluster every
 * command the platform sends names keys of one slot (hash tags where a command names several).
 */
import { Cluster, Redis } from 'ioredis';
import type { PlatformConfig } from '@cw/config';

export type RedisClient = Redis | Cluster;

/** How long a start waits for a Redis Cluster whose state is not ok yet (a cluster just made). */
export const CLUSTER_READY_WAIT_MS = 60_000;

/** A connected client, or undefined when neither REDIS_URL nor REDIS_CLUSTER_NODES is set. */
export async function openRedis(
  config: Pick<PlatformConfig, 'redisUrl' | 'redisClusterNodes'>,
  onError: (err: Error) => void,
  clusterReadyWaitMs = CLUSTER_READY_WAIT_MS,
): Promise<RedisClient | undefined> {
  let client: RedisClient;
  if (config.redisClusterNodes?.length) {
    client = new Cluster(config.redisClusterNodes, {
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      lazyConnect: true,
      // A slot without a primary (a failover in progress) answers an error soon, not a queue; the
      // slot table is read again every second, so a promoted replica is found without a restart.
      clusterRetryStrategy: (times) => Math.min(100 * times, 1000),
      slotsRefreshInterval: 1000,
      retryDelayOnFailover: 50,
      retryDelayOnClusterDown: 50,
      maxRedirections: 3,
      redisOptions: { maxRetriesPerRequest: 1, connectTimeout: 500 },
    });
  } else if (config.redisUrl) {
    client = new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true, enableAutoPipelining: true });
  } else return undefined;
  client.on('error', onError);
  if (client instanceof Cluster) await clusterReady(client, clusterReadyWaitMs);
  else await client.connect();
  return client;
}

/**
 * ioredis's `Cluster.connect()` never settles when its first ready check finds the cluster's
 * state not ok (a cluster made a moment before): it reconnects and becomes ready later, but only
 * says so with 'ready'. So a start waits for 'ready' and a fresh slot table, fails when no node
 * answers (connect's rejection), and gives up with a clear error after `waitMs`.
 */
function clusterReady(client: Cluster, waitMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', ready);
      client.disconnect();
      reject(new Error(`the Redis Cluster did not become ready in ${waitMs / 1000} s (its state is not ok: slots without a primary?)`));
    }, waitMs);
    // The slot table read while the state was not ok may lack slots served since: read it again
    // before the first command (ioredis fails a command on a slot it has no node for).
    const ready = () => {
      clearTimeout(timer);
      client.refreshSlotsCache(() => resolve());
    };
    client.once('ready', ready);
    client.connect().catch((err: Error) => {
      clearTimeout(timer);
      client.off('ready', ready);
      reject(err);
    });
  });
}
