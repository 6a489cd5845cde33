/**
 * The events feed's Server-Sent Events stream, read with fetch: each event's `id` is the cursor
 * after it; a cut connection (or a server that ends the stream, or silence past the heartbeat)
 * is reconnected with backoff and jitter from the last cursor (`Last-Event-ID`), so nothing is
 * skipped or repeated. Errors the stream cannot recover from (401, 403, a foreign or expired
 * cursor) are thrown as CwApiError.
 */
import { CwApiError } from './errors.js';
import { backoffDelay, retryAfterDelay, sleep } from './retry.js';
import type { AccountEvent } from './types.js';

export interface StreamedEvent {
  /** The cursor after this event: pass it as `cursor` (or keep it) to resume after it. */
  cursor: string;
  /** sale.created, sale.approved, sale.declined, sale.reversed, payout.paid or payout.failed (more may be added: ignore what you do not know). */
  type: string;
  event: AccountEvent;
  /** The event's JSON exactly as sent (the postback body, byte for byte). */
  data: string;
}

export interface StreamOptions {
  /** Resume after this cursor (a `next_cursor` or a streamed event's cursor); absent: from the first event. */
  cursor?: string;
  signal?: AbortSignal;
  /** First reconnect delay (default: the server's `retry:` hint, else 1 s); doubles per failed attempt, with jitter. */
  reconnectBaseMs?: number;
  /** Largest reconnect delay (default 30 s). */
  reconnectMaxMs?: number;
  /** Reconnect when nothing (not even a heartbeat) arrives for this long (default 45 s: three heartbeats). */
  idleTimeoutMs?: number;
  /** Called when a connection ends and another is about to be made. */
  onReconnect?: (info: { attempt: number; delayMs: number; cursor: string | undefined; reason: string }) => void;
}

interface RawEvent {
  id?: string;
  event?: string;
  data: string;
}

/** Splits an SSE byte stream into events (the `retry:` field is reported separately). */
export async function* parseSse(body: ReadableStream<Uint8Array>, onRetryHint: (ms: number) => void, onActivity: () => void): AsyncGenerator<RawEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let current: RawEvent = { data: '' };
  let hasData = false;
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      onActivity();
      buffer += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (hasData) yield current;
          current = { data: '' };
          hasData = false;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') {
          current.data = hasData ? `${current.data}\n${value}` : value;
          hasData = true;
        } else if (field === 'id') current.id = value;
        else if (field === 'event') current.event = value;
        else if (field === 'retry' && /^\d+$/.test(value)) onRetryHint(Number(value));
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

export interface StreamConnector {
  /** Opens the stream after `cursor`: the Response (2xx), or a thrown CwApiError. */
  open(cursor: string | undefined, signal: AbortSignal): Promise<Response>;
}

/** Whether a refused connection is worth making again (rate limits, a restarting server, the network). */
const transient = (e: CwApiError) => e.status === 0 || e.status === 429 || e.status === 502 || e.status === 503 || e.status === 504;

export async function* streamEvents(connector: StreamConnector, options: StreamOptions = {}): AsyncGenerator<StreamedEvent> {
  let cursor = options.cursor;
  let hintMs: number | undefined;
  let failures = 0;
  const maxMs = options.reconnectMaxMs ?? 30_000;
  const idleMs = options.idleTimeoutMs ?? 45_000;
  for (let attempt = 1; ; attempt++) {
    if (options.signal?.aborted) return;
    const conn = new AbortController();
    const onAbort = () => conn.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    let idle: ReturnType<typeof setTimeout> | undefined;
    const activity = () => {
      clearTimeout(idle);
      idle = setTimeout(() => conn.abort(new Error('idle')), idleMs);
    };
    let reason = 'the server ended the stream';
    let retryAfterMs: number | undefined;
    let delivered = false;
    try {
      activity();
      const res = await connector.open(cursor, conn.signal);
      activity();
      for await (const raw of parseSse(res.body!, (ms) => (hintMs = ms), activity)) {
        if (raw.event === 'error') {
          reason = 'the server could not continue the stream';
          continue;
        }
        if (!raw.id) continue;
        const event = JSON.parse(raw.data) as AccountEvent;
        cursor = raw.id;
        delivered = true;
        failures = 0;
        yield { cursor: raw.id, type: raw.event ?? event.type, event, data: raw.data };
      }
    } catch (e) {
      if (options.signal?.aborted) return;
      if (e instanceof CwApiError) {
        if (!transient(e)) throw e;
        retryAfterMs = e.retryAfterSeconds === undefined ? undefined : e.retryAfterSeconds * 1000;
        reason = `${e.status || e.code}`;
      } else reason = conn.signal.aborted ? 'no data within the idle timeout' : `the connection failed (${(e as Error).message})`;
    } finally {
      clearTimeout(idle);
      options.signal?.removeEventListener('abort', onAbort);
      conn.abort();
    }
    if (options.signal?.aborted) return;
    if (!delivered) failures++;
    const base = options.reconnectBaseMs ?? hintMs ?? 1_000;
    const delayMs = retryAfterMs !== undefined ? retryAfterDelay(retryAfterMs) : backoffDelay(failures, { baseDelayMs: base, maxDelayMs: maxMs });
    options.onReconnect?.({ attempt, delayMs, cursor, reason });
    try {
      await sleep(delayMs, options.signal);
    } catch {
      return;
    }
  }
}
