/**
 * Buffered click writes: the redirect never waits for the database. Clicks are written in batches
 * every flush interval (CLICK_FLUSH_INTERVAL_MS) or at BATCH_SIZE, stored as buckets (many clicks
 * per document, @cw/links). A flush writes the clicks buffered when it was asked for (and any full
 * batch); clicks answered while it writes wait for the next interval, so a steady stream is written
 * an interval's clicks at a time, not as a trickle of the few that arrived during the previous
 * write. A failed batch is kept as it is and retried before anything newer: the same batch makes
 * the same buckets, so buckets a partly written attempt stored are skipped whole, never doubled,
 * and none takes in a newer click. close() flushes everything before the process exits (SIGTERM),
 * so no click is lost. While the database is away the recorder holds at most CLICK_BUFFER_MAX
 * clicks; beyond, the oldest clicks not yet tried are dropped (the failed batch too when the bound
 * is smaller than it), counted in `tracker_clicks_dropped_total` and logged once per outage (memory
 * stays bounded). Each batch is stored by `write` under a stats transaction that the worker counts
 * in the stats read model (@cw/stats' counting.ts, docs/decisions/0049-clicks-counted-by-the-worker.md).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ClickRow } from '@cw/links';
import type { Logger } from '@cw/logging';

const BATCH_SIZE = 1000;

export class ClickRecorder {
  private buffer: ClickRow[] = [];
  /** The batch whose write failed, retried as it is before anything newer. */
  private retry?: ClickRow[];
  private flushing?: Promise<void>;
  /** Buffered clicks (the oldest) that a flush asked for are still to be written. */
  private due = 0;
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** Clicks written so far (for metrics and tests). */
  written = 0;
  /** Clicks dropped because the buffer was full (the database away for long). */
  dropped = 0;
  private overflowing = false;
  /** Clicks of the batch being written (they count against the bound too). */
  private inFlight = 0;
  private readonly droppedMetric?: Counter;

  constructor(
    /** Stores a batch (clicks already stored are skipped) and counts it; answers how many it stored. */
    private readonly write: (batch: ClickRow[]) => Promise<number>,
    private readonly logger: Logger,
    flushIntervalMs: number,
    private readonly maxBuffered = 200_000,
    registry?: Registry,
  ) {
    this.timer = setInterval(() => void this.flush().catch(() => undefined), flushIntervalMs);
    this.timer.unref();
    if (registry && !registry.getSingleMetric('tracker_click_buffer')) {
      const depth = () => this.pending + this.inFlight;
      new Gauge({
        name: 'tracker_click_buffer',
        help: 'Clicks answered but not yet written (buffered, and the batch being written)',
        registers: [registry],
        collect() {
          this.set(depth());
        },
      });
    }
    if (registry) {
      this.droppedMetric =
        (registry.getSingleMetric('tracker_clicks_dropped_total') as Counter | undefined) ??
        new Counter({
          name: 'tracker_clicks_dropped_total',
          help: 'Clicks dropped because the click buffer was full (database unavailable)',
          registers: [registry],
        });
    }
  }

  get pending(): number {
    return this.buffer.length + (this.retry?.length ?? 0);
  }

  record(click: ClickRow): void {
    this.buffer.push(click);
    this.bound();
    if (this.buffer.length >= BATCH_SIZE) void this.flush().catch(() => undefined);
  }

  /** Keeps buffered, failed and in-flight clicks within the bound, dropping the oldest buffered ones (then the failed batch, whole). */
  private bound(): void {
    let over = this.pending + this.inFlight - this.maxBuffered;
    if (over <= 0) return;
    let drop = Math.min(over, this.buffer.length);
    this.buffer.splice(0, drop);
    over -= drop;
    if (over > 0 && this.retry) {
      drop += this.retry.length;
      this.retry = undefined;
    }
    if (!drop) return;
    this.dropped += drop;
    this.droppedMetric?.inc(drop);
    if (!this.overflowing) {
      this.overflowing = true;
      this.logger.error(
        { buffered: this.buffer.length, max: this.maxBuffered },
        'click buffer full: dropping the oldest clicks until the database takes writes again',
      );
    }
  }

  /**
   * Writes what is buffered now (a flush already writing takes these clicks on too); one flush at a
   * time. Rejects when a batch could not be written.
   */
  flush(): Promise<void> {
    this.due = this.buffer.length;
    this.flushing ??= this.writeBatches().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async writeBatches(): Promise<void> {
    for (;;) {
      // Clicks dropped by the bound were the oldest, so some that were due may be gone.
      this.due = Math.min(this.due, this.buffer.length);
      if (!this.retry && !this.due && this.buffer.length < BATCH_SIZE) return;
      const failed = this.retry;
      const batch = failed ?? this.buffer.splice(0, BATCH_SIZE);
      if (!failed) this.due = Math.max(0, this.due - batch.length);
      this.retry = undefined;
      this.inFlight = batch.length;
      try {
        // Buckets already stored by an earlier, partly failed attempt of this batch are skipped, not doubled.
        this.written += await this.write(batch);
        this.overflowing = false;
      } catch (e) {
        this.inFlight = 0;
        this.retry = batch;
        this.bound();
        this.logger.error({ err: (e as Error).message, clicks: batch.length }, 'click batch not written; kept for retry');
        throw e;
      } finally {
        this.inFlight = 0;
      }
    }
  }

  /** Stops the timer and writes every buffered click, retrying for up to timeoutMs. */
  async close(timeoutMs = 30_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await this.flush();
        if (!this.pending) return;
      } catch {
        if (Date.now() > deadline) {
          this.logger.error({ clicks: this.pending }, 'clicks could not be written before shutdown');
          return;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }
}
