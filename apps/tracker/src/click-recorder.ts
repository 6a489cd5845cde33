/**
 * Buffered click writes: the redirect never waits for the database. Clicks are written in
 * unordered batches every flush interval (CLICK_FLUSH_INTERVAL_MS) or at BATCH_SIZE; a failed batch stays buffered and
 * is retried (click ids are unique, so a partly written batch is not duplicated). close() flushes
 * everything before the process exits (SIGTERM), so no click is lost.
 */
import type { Models } from '@cw/db';
import type { Logger } from '@cw/logging';

export interface ClickRecord {
  _id: string;
  link_id: string;
  publisher_id: string;
  program_id: number;
  campaign_id: number;
  subid: string;
  created_at: Date;
  user_agent: string;
  ip_hash: string;
  referrer: string;
  is_bot: boolean;
  bot_reason?: string;
}

const BATCH_SIZE = 1000;

export class ClickRecorder {
  private buffer: ClickRecord[] = [];
  private flushing?: Promise<void>;
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** Clicks written so far (for metrics and tests). */
  written = 0;

  constructor(
    private readonly models: Models,
    private readonly logger: Logger,
    flushIntervalMs: number,
  ) {
    this.timer = setInterval(() => void this.flush().catch(() => undefined), flushIntervalMs);
    this.timer.unref();
  }

  get pending(): number {
    return this.buffer.length;
  }

  record(click: ClickRecord): void {
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
        const r = await this.models.Click.collection.insertMany(batch as never[], { ordered: false });
        this.written += r.insertedCount;
      } catch (e) {
        const err = e as { code?: number; writeErrors?: Array<{ code: number }>; insertedCount?: number; result?: { insertedCount?: number } };
        const writeErrors = err.writeErrors ?? [];
        if (writeErrors.length && writeErrors.every((w) => w.code === 11000)) {
          this.written += batch.length - writeErrors.length;
          continue; // already written by an earlier, partly failed attempt
        }
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
