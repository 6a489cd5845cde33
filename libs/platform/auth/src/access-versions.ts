/**
 * Per-account access versions: the stamp a cached principal must still match to be used. Every
 * change to what decides an account's access bumps it (the data layer announces the changes,
 * see @cw/db onAccessChange); program changes and unknown-scope changes bump shared versions.
 *
 * Redis: the versions every process shares (API instances, operator CLI, worker). The stamp is
 * read with one MGET on the same client as the rate limiter, so with auto-pipelining it travels
 * in the rate-limit consume's round trip. An epoch key guards against a Redis that lost its data
 * (restart without persistence, flush): with no epoch there is no valid stamp, so nothing cached
 * before is trusted. Version keys have no TTL (Redis must not evict them: `noeviction` or a
 * `volatile-*` policy).
 *
 * Memory: the one-process platform's versions, bumped by this process's writes and by the
 * embedded engine's own write hook (the operator CLI writes through the same engine).
 *
 * The catalog version (products, merchant names) travels in the same read but is no part of any
 * account's stamp: a price refresh must not drop every cached principal. catalogStamp() is the
 * value the latest stamp read saw, so a request that has read its stamp sees a catalog version
 * at least as new as every change acknowledged before it started.
 */
import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { AccessChange, AccessChangeListener } from '@cw/db';
import { ApiError } from '@cw/errors';

export interface AccessVersions {
  /** The account's current stamp; null while no stamp can be trusted (nothing may be cached). */
  stamp(accountId: string): Promise<string | null> | string | null;
  bump(change: AccessChange): Promise<void> | void;
  /**
   * The catalog version as of the latest stamp read in this process (one Redis client answers in
   * order, so after a request's own stamp read it is at least that new); null: do not trust.
   */
  catalogStamp(): string | null;
}

export class MemoryAccessVersions implements AccessVersions {
  private readonly accounts = new Map<string, number>();
  private programs = 0;
  private all = 0;
  private catalog = 0;
  /** Distinguishes this process's counters from any other's. */
  private readonly epoch = randomBytes(6).toString('base64url');

  /**
   * `fed`: whether whatever reports the writes (the embedded engine's observer) still does; once
   * it stops (the engine stopped or was replaced) no stamp is trusted, as with a Redis that lost
   * its data.
   */
  constructor(private readonly fed: () => boolean = () => true) {}

  stamp(accountId: string): string | null {
    if (!this.fed()) return null;
    return `${this.epoch}.${this.all}.${this.programs}.${this.accounts.get(accountId) ?? 0}`;
  }

  catalogStamp(): string | null {
    if (!this.fed()) return null;
    return `${this.epoch}.${this.catalog}`;
  }

  bump(change: AccessChange): void {
    if (change === 'catalog') this.catalog++;
    else if (change === 'all') this.all++;
    else if (change === 'programs') this.programs++;
    else for (const id of change.accounts) this.accounts.set(id, (this.accounts.get(id) ?? 0) + 1);
  }
}

export class RedisAccessVersions implements AccessVersions {
  private readonly epochKey: string;
  private readonly allKey: string;
  private readonly programsKey: string;
  private readonly catalogKey: string;
  private catalogSeen: string | null = null;
  private readonly waitMs: number;

  /**
   * Every key carries the hash tag `{prefix}`, so on a Redis Cluster they share one slot and the
   * stamp's MGET and a bump's pipeline are one-slot commands (no CROSSSLOT).
   */
  /** Replicas that must hold a bump before it returns (WAIT): 1 on a Redis Cluster, else 0. */
  private readonly waitReplicas: number;

  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix = 'access',
    opts: { waitReplicas?: number; waitMs?: number } = {},
  ) {
    this.waitReplicas = opts.waitReplicas ?? ((redis as { isCluster?: boolean }).isCluster ? 1 : 0);
    this.waitMs = opts.waitMs ?? 500;
    this.epochKey = `{${prefix}}:epoch`;
    this.allKey = `{${prefix}}:all`;
    this.programsKey = `{${prefix}}:programs`;
    this.catalogKey = `{${prefix}}:catalog`;
  }

  catalogStamp(): string | null {
    return this.catalogSeen;
  }

  private accountKey(id: string): string {
    return `{${this.prefix}}:acct:${id}`;
  }

  async stamp(accountId: string): Promise<string | null> {
    let values: Array<string | null>;
    try {
      values = await this.redis.mget(this.epochKey, this.allKey, this.programsKey, this.accountKey(accountId), this.catalogKey);
    } catch (e) {
      this.catalogSeen = null;
      throw e;
    }
    const [epoch, all, programs, account, catalog] = values;
    this.catalogSeen = epoch ? `${epoch}.${catalog ?? 0}` : null;
    if (!epoch) {
      // First use, or Redis lost its data: start an epoch; this request trusts nothing cached.
      await this.redis.set(this.epochKey, randomBytes(8).toString('base64url'), 'NX');
      return null;
    }
    return `${epoch}.${all ?? 0}.${programs ?? 0}.${account ?? 0}`;
  }

  /**
   * Waits until a bump would be acknowledged (a probe key in the stamps' slot, then WAIT): a Redis
   * Cluster created a moment ago answers before its replicas have synced, and every bump would
   * fail until they have. Retries every 250 ms; true once acknowledged (at once without replicas to
   * wait for), false after `timeoutMs`.
   */
  async awaitReplicas(timeoutMs: number, onWait?: (message: string) => void): Promise<boolean> {
    if (this.waitReplicas === 0) return true;
    const end = Date.now() + timeoutMs;
    for (let said = false; ;) {
      // An attempt that gets no answer at all (a cluster still agreeing on its slots) counts as
      // not acknowledged once the time is up, so the wait never outlasts `timeoutMs`.
      let timer: NodeJS.Timeout | undefined;
      const acked = await Promise.race([
        this.redis
          .pipeline()
          .set(`{${this.prefix}}:probe`, '1', 'PX', 60_000)
          .wait(this.waitReplicas, this.waitMs)
          .exec()
          .then((r) => Number(r?.at(-1)?.[1] ?? 0))
          .catch(() => 0),
        new Promise<number>((r) => (timer = setTimeout(() => r(0), Math.max(0, end - Date.now()) + this.waitMs))),
      ]).finally(() => clearTimeout(timer));
      if (acked >= this.waitReplicas) return true;
      if (Date.now() >= end) return false;
      if (!said) onWait?.(`waiting for a Redis replica to acknowledge writes (a cluster still syncing)...`);
      said = true;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /**
   * A bump writes a new random token, never a counter: if a failover loses a bump, a later bump
   * can never bring back a value some cache was stamped with (a counter could count up to it again).
   * On a cluster the bump then WAITs for a replica to hold it, on the same connection, so a
   * failover right after cannot lose it; no acknowledgement in time fails the bump.
   */
  async bump(change: AccessChange): Promise<void> {
    const token = () => randomBytes(9).toString('base64url');
    const keys =
      change === 'catalog'
        ? [this.catalogKey]
        : change === 'all'
          ? [this.allKey]
          : change === 'programs'
            ? [this.programsKey]
            : change.accounts.map((id) => this.accountKey(id));
    if (!keys.length) return;
    const p = this.redis.pipeline();
    for (const key of keys) p.set(key, token());
    if (this.waitReplicas > 0) p.wait(this.waitReplicas, this.waitMs);
    const results = (await p.exec()) ?? [];
    const failed = results.find(([err]) => err);
    if (failed) throw failed[0];
    if (this.waitReplicas > 0 && Number(results.at(-1)?.[1]) < this.waitReplicas)
      throw new Error(`the access version bump was not acknowledged by ${this.waitReplicas} replica(s) within ${this.waitMs} ms`);
  }
}

/**
 * The data layer's listener that bumps `versions` (register it with @cw/db onAccessChange). A bump
 * that fails (Redis away) fails the write call with 503: the change is saved, but other instances'
 * caches may not know yet, so the caller must retry rather than trust the answer.
 */
export function bumpOnAccessChange(versions: AccessVersions, log?: (message: string) => void): AccessChangeListener {
  return async (change) => {
    try {
      await versions.bump(change);
    } catch (e) {
      log?.(`access version bump failed: ${(e as Error).message}`);
      throw new ApiError({ code: 'service_unavailable', detail: 'The change was saved but could not be announced to every instance yet. Retry with backoff.' });
    }
  };
}
