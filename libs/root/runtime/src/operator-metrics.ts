/**
 * What an operator watches beyond request counts, in the process's registry (served at /metrics):
 * the MongoDB connection pool (open and checked-out connections, failed check-outs, from the
 * driver's pool events), Redis (round-trip time of a PING taken at each scrape, errors), and the
 * postback pipeline's state read at each scrape (deliveries by status, the age of the oldest
 * event not yet turned into deliveries). Apps add their own (the tracker's click buffer, the
 * worker's Agenda queue) next to where the numbers live.
 */
import type { Cluster, Redis } from 'ioredis';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Database } from '@cw/db';
import type { PlatformData } from './platform-data';

const SCRAPE_QUERY_MS = 1_000;

export function registerOperatorMetrics(
  registry: Registry,
  deps: { db: Database; data: Pick<PlatformData, 'eventsFeed' | 'postbacks'>; redis?: Redis | Cluster },
): void {
  const pool = deps.db.pool;
  new Gauge({
    name: 'mongodb_pool_connections',
    help: 'MongoDB driver pool connections, by state (open, in_use)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.set({ state: 'open' }, pool.open);
      this.set({ state: 'in_use' }, pool.inUse);
    },
  });
  new Gauge({
    name: 'mongodb_pool_checkout_failures',
    help: 'Connection check-outs that failed since start (pool exhausted or closed)',
    registers: [registry],
    collect() {
      this.set(pool.checkoutFailures);
    },
  });

  if (deps.redis) {
    const redis = deps.redis;
    const errors = new Counter({ name: 'redis_errors_total', help: 'Errors reported by the Redis client', registers: [registry] });
    redis.on('error', () => errors.inc());
    new Gauge({
      name: 'redis_ping_seconds',
      help: 'Round trip of a PING to Redis, taken at the scrape (-1: no answer)',
      registers: [registry],
      async collect() {
        const started = performance.now();
        try {
          await redis.ping();
          this.set((performance.now() - started) / 1000);
        } catch {
          this.set(-1);
        }
      },
    });
  }

  new Gauge({
    name: 'postback_deliveries',
    help: 'Postback deliveries kept, by status (pending, succeeded, failed, dead)',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      for (const status of ['pending', 'succeeded', 'failed', 'dead'] as const) {
        this.set({ status }, await deps.data.postbacks.deliveriesIn(status, SCRAPE_QUERY_MS).catch(() => -1));
      }
    },
  });
  new Gauge({
    name: 'outbox_oldest_pending_seconds',
    help: 'Age of the oldest event of the log (sale events, payout events) not yet turned into postback deliveries (0: none waiting; -1: not measured)',
    registers: [registry],
    async collect() {
      const oldest = await deps.data.eventsFeed.oldestUnread('postbacks', SCRAPE_QUERY_MS).catch(() => undefined);
      if (oldest === undefined) return void this.set(-1);
      this.set(oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0);
    },
  });
}
