/**
 * Buffered click writes: the redirect never waits for the database. Clicks are written in
 * unordered batches every flush interval (CLICK_FLUSH_INTERVAL_MS) or at BATCH_SIZE; a failed batch stays buffered and
 * is retried (click ids are unique, so a partly written batch is not duplicated). close() flushes
 * everything before the process exits (SIGTERM), so no click is lost.
 */
import type { ClickRepository, ClickRow } from '@cw/db';
import type { Logger } from '@cw/logging';

const BATCH_SIZE = 1000;

export class ClickRecorder {
  private buffer: ClickRow[] = [];
  private flushing?: Promise<void>;
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** Clicks written so far (for metrics and tests). */
  written = 0;

  constructor(
    private readonly clicks: ClickRepository,
    private readonly logger: Logger,
    flushIntervalMs: number,
  ) {
    this.timer = setInterval(() => void this.flush().catch(() => undefined), flushIntervalMs);
    this.timer.unref();
  }

  get pending(): number {
    return this.buffer.length;
  }

  record(click: ClickRow): void {
    this.buffer.push(click);
    if (this.buffer.length >= BATCH_SIZE) void this.flush().catch(() => undefined);
  }

  /** Writes what is buffered now; one flush at a time. Rejects when the batch could not be written. */
  flush(): Promise<void> {
    this.flushing ??= this.writeBatches().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async writeBatches(): Promise<void> {
    while (this.buffer.length) {
      const batch = this.buffer.splice(0, BATCH_SIZE);
      try {
        // Clicks already stored by an earlier, partly failed attempt are skipped, not doubled.
        this.written += await this.clicks.insertBatch(batch);
      } catch (e) {
        this.buffer.unshift(...batch);
        this.logger.error({ err: (e as Error).message, clicks: batch.length }, 'click batch not written; kept for retry');
        throw e;
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
        if (!this.buffer.length) return;
      } catch {
        if (Date.now() > deadline) {
          this.logger.error({ clicks: this.buffer.length }, 'clicks could not be written before shutdown');
          return;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }
}
