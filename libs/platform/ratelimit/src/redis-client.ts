/**
 * The platform's Redis client: one server (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES).
 * Both fail fast rather than queue (a limiter that cannot answer answers 503) and auto-pipeline
 * (a request's access stamp read and rate-limit consume leave in one write). On a cluster every
 * command the platform sends names keys of one slot (hash tags where a command names several).
 */
import { Cluster, Redis } from 'ioredis';
import type { PlatformConfig } from '@cw/config';

export type RedisClient = Redis | Cluster;

/** A connected client, or undefined when neither REDIS_URL nor REDIS_CLUSTER_NODES is set. */
export async function openRedis(
  config: Pick<PlatformConfig, 'redisUrl' | 'redisClusterNodes'>,
  onError: (err: Error) => void,
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
  await client.connect();
  return client;
}
