/**
 * Concurrency caps (e.g. open event streams per account): a slot is held while something stays
 * open, refreshed while it lives, released when it ends, and forgotten after `ttlMs` without a
 * refresh (a process that died frees its slots). Redis: one sorted set per key (token -> expiry),
 * checked and added by one script on one key, so it is atomic and cluster-safe. Memory: the same
 * in this process.
 */
import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

export interface Slot {
  refresh(): Promise<void>;
  release(): Promise<void>;
}

export interface Slots {
  /** A slot of `cap` under `key`, or null when all are held. Store failures throw. */
  hold(key: string, cap: number, ttlMs: number): Promise<Slot | null>;
}

export function createMemorySlots(): Slots {
  const held = new Map<string, Map<string, number>>();
  return {
    async hold(key, cap, ttlMs) {
      const now = Date.now();
      let tokens = held.get(key);
      if (!tokens) held.set(key, (tokens = new Map()));
      for (const [t, until] of tokens) if (until <= now) tokens.delete(t);
      if (tokens.size >= cap) return null;
      const token = randomBytes(9).toString('base64url');
      tokens.set(token, now + ttlMs);
      return {
        refresh: async () => void (tokens.has(token) && tokens.set(token, Date.now() + ttlMs)),
        release: async () => {
          tokens.delete(token);
          if (!tokens.size) held.delete(key);
        },
      };
    },
  };
}

const HOLD = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

export function createRedisSlots(redis: Redis | Cluster, prefix = 'slots'): Slots {
  return {
    async hold(key, cap, ttlMs) {
      const k = `${prefix}:${key}`;
      const token = randomBytes(9).toString('base64url');
      const now = Date.now();
      const ok = await redis.eval(HOLD, 1, k, now, cap, now + ttlMs, token, ttlMs);
      if (Number(ok) !== 1) return null;
      return {
        refresh: async () => {
          await redis.zadd(k, 'XX', Date.now() + ttlMs, token);
          await redis.pexpire(k, ttlMs);
        },
        release: async () => void (await redis.zrem(k, token)),
      };
    },
  };
}
