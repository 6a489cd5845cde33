/**
 * Server-Sent Events from a poll: the response stays open, `poll` is asked for what follows the
 * last id sent every `pollMs`, each event is written as `id:`/`event:`/`data:`, a comment line
 * keeps idle connections (and the proxies between) alive every `heartbeatMs`. The stream ends
 * when the client goes, when `poll` fails (an `event: error` first, so the client reconnects with
 * Last-Event-ID), or when the process shuts down (`endEventStreams`).
 */
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';

export interface StreamedEvent {
  id: string;
  event: string;
  data: string;
}

export interface EventStreamOptions {
  /** Events after `cursor` (in order), and the cursor to continue from. */
  poll(cursor: string | undefined): Promise<{ events: StreamedEvent[]; cursor: string | undefined }>;
  cursor?: string;
  pollMs: number;
  heartbeatMs: number;
  /** Called once when the stream ends, however it ends. */
  onClose?(): void;
  /** Called when a poll fails (the stream then ends). */
  onError?(err: unknown): void;
}

const open = new Set<() => void>();

/** Ends every open stream of this process cleanly (the shutdown path, before the server closes). */
export function endEventStreams(): void {
  for (const end of [...open]) end();
}

/** How many streams this process holds open. */
export const openEventStreams = () => open.size;

export function serveEventStream(ctx: Context, opts: EventStreamOptions): void {
  const out = new PassThrough();
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.status = 200;
  ctx.set('Content-Type', 'text/event-stream; charset=utf-8');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Connection', 'keep-alive');
  // nginx and other proxies: pass each event on at once.
  ctx.set('X-Accel-Buffering', 'no');
  ctx.body = out;

  let cursor = opts.cursor;
  let closed = false;
  let pollTimer: NodeJS.Timeout | undefined;
  const end = (last?: string) => {
    if (closed) return;
    closed = true;
    clearTimeout(pollTimer);
    clearInterval(heartbeat);
    open.delete(shutdown);
    if (last && out.writable) out.write(last);
    out.end();
    opts.onClose?.();
  };
  const heartbeat = setInterval(() => out.write(': heartbeat\n\n'), opts.heartbeatMs);
  const shutdown = () => end(': the server is shutting down; reconnect with Last-Event-ID\n\n');
  open.add(shutdown);
  ctx.req.on('close', () => end());
  out.on('error', () => end());

  const tick = async () => {
    try {
      const r = await opts.poll(cursor);
      if (closed) return;
      for (const e of r.events) out.write(`id: ${e.id}\nevent: ${e.event}\ndata: ${e.data}\n\n`);
      cursor = r.cursor;
    } catch (err) {
      opts.onError?.(err);
      end(`event: error\ndata: ${JSON.stringify({ detail: 'The stream could not be continued; reconnect with Last-Event-ID.' })}\n\n`);
      return;
    }
    if (!closed) pollTimer = setTimeout(() => void tick(), opts.pollMs);
  };
  // The retry hint for EventSource clients, then the first poll at once.
  out.write('retry: 2000\n\n');
  void tick();
}
