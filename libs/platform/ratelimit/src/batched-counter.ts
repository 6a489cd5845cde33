/**
 * Counting a budget without a store round trip per request, for callers that only count (the
 * tracker flags a reader over its per-address budget and never refuses a redirect):
 * docs/decisions/0050-tracker-counts-addresses-in-batches.md. A hit is counted in this process at
 * once; every key's hits since the last batch go to the shared store together, one batch per
 * `flushMs`, each key's hits as one consume of that many points. A key's count is the store's
 * total as of its last batch plus the hits since: exact within one process, and what other
 * processes counted is seen within one batch. Every hit reaches the store; a batch that fails is
 * kept and sent again with the next (counts of a process killed outright are lost for at most
 * one interval).
 */
import type { RateLimiter, RateLimitResult } from './limiter';

/** How often keys whose window ended are forgotten. */
const FORGET_EVERY_MS = 1000;

interface KeyCount {
  /** The store's count of the key's window as of its last batch (over the limit: limit + 1). */
  stored: number;
  /** When that window ends (ms); 0: not known (no batch answered in this window yet). */
  resetAt: number;
  /** Hits in the batch being sent. */
  sending: number;
  /** Hits since. */
  pending: number;
}

export interface BatchedCounterOptions {
  /** How often counted hits go to the store (ms). */
  flushMs: number;
  /** Keys kept between batches; beyond, idle keys under their limit are forgotten first. */
  maxKeys?: number;
  /** The store refused a batch (its hits are kept for the next one): called once per outage, at its first failed batch. */
  onStoreError?: (err: Error) => void;
}

export class BatchedCounter {
  private readonly keys = new Map<string, KeyCount>();
  /** Keys hit since the last batch (a batch reads these, not every key kept). */
  private dirty = new Map<string, KeyCount>();
  /** When keys were last forgotten (every FORGET_EVERY_MS: it walks every key kept). */
  private forgotAt = 0;
  private readonly timer: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private failing = false;
  private readonly maxKeys: number;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly budget: string,
    private readonly limit: number,
    private readonly opts: BatchedCounterOptions,
  ) {
    this.maxKeys = opts.maxKeys ?? 200_000;
    this.timer = setInterval(() => void this.flush(), opts.flushMs);
    this.timer.unref();
  }

  /** Counts one hit of `key` and answers the key's budget with it (synchronously: nothing is awaited). */
  hit(key: string, now = Date.now()): RateLimitResult {
    let k = this.keys.get(key);
    if (!k) this.keys.set(key, (k = { stored: 0, resetAt: 0, sending: 0, pending: 0 }));
    // The window the store knew has ended: the next batch starts a new one.
    if (k.resetAt && k.resetAt <= now) {
      k.stored = 0;
      k.resetAt = 0;
    }
    k.pending++;
    this.dirty.set(key, k);
    const count = k.stored + k.sending + k.pending;
    return {
      allowed: count <= this.limit,
      limit: this.limit,
      remaining: Math.max(0, this.limit - count),
      resetSeconds: k.resetAt ? Math.max(1, Math.ceil((k.resetAt - now) / 1000)) : this.limiter.windowSeconds,
      windowSeconds: this.limiter.windowSeconds,
    };
  }

  /** Sends the hits counted since the last batch; one batch at a time. Never rejects (see onStoreError). */
  flush(): Promise<void> {
    this.flushing ??= this.send().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async send(): Promise<void> {
    const batch = [...this.dirty];
    this.dirty = new Map();
    for (const [, k] of batch) {
      k.sending = k.pending;
      k.pending = 0;
    }
    let failure: Error | undefined;
    await Promise.all(
      batch.map(async ([key, k]) => {
        try {
          const r = await this.limiter.consume(this.budget, key, this.limit, k.sending);
          k.stored = r.allowed ? this.limit - r.remaining : this.limit + 1;
          k.resetAt = Date.now() + r.resetSeconds * 1000;
        } catch (e) {
          // Kept for the next batch: every hit reaches the store.
          k.pending += k.sending;
          this.dirty.set(key, k);
          failure ??= e as Error;
        } finally {
          k.sending = 0;
        }
      }),
    );
    if (failure && !this.failing) this.opts.onStoreError?.(failure);
    this.failing = failure !== undefined;
    if (Date.now() - this.forgotAt >= FORGET_EVERY_MS || this.keys.size > this.maxKeys) this.forget();
  }

  /** Forgets keys whose window is over and, beyond maxKeys, idle keys under their limit. */
  private forget(): void {
    const now = (this.forgotAt = Date.now());
    let over = this.keys.size - this.maxKeys;
    for (const [key, k] of this.keys) {
      if (k.pending || k.sending) continue;
      if (k.resetAt <= now || (over > 0 && k.stored <= this.limit)) {
        this.keys.delete(key);
        over--;
      }
    }
  }

  /** Stops the interval and sends what is counted (before the process exits). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    if (this.dirty.size) await this.flush();
  }
}
