/**
 * `cw listen --forward-to URL`: every event of the account's stream POSTed to a local URL as the
 * platform's postback would be (the same body, byte for byte, and the X-CW-* headers signed with
 * a secret printed at start), retried on failure, one line per attempt.
 */
import type { CwClient } from '../client.js';
import { generatePostbackSecret, signPostback } from '../postbacks.js';
import { backoffDelay, sleep } from '../retry.js';

/** The platform's postback User-Agent. */
export const POSTBACK_USER_AGENT = 'CW-Postbacks/1.0 (+https://standardwebhooks.com)';

export interface ListenOptions {
  forwardTo: string;
  /** Only these event types (default all). */
  events?: string[];
  /** Sign with this secret (default: a new one, printed). */
  secret?: string;
  /** Start from this cursor, or from the first event; default: only events from now on. */
  cursor?: string;
  fromStart?: boolean;
  /** Attempts per event (default 5), 1 s, 2 s, 4 s... apart. */
  attempts?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  say: (line: string) => void;
  /** One machine-readable line per attempt instead of text. */
  json?: boolean;
}

/** The delivery id listen sends for an event: stable per event, like the platform's per event and postback. */
async function deliveryIdOf(eventId: string): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${eventId}\u0000listen`)));
  return `dlv_${Buffer.from(digest).toString('base64url').slice(0, 22)}`;
}

async function deliver(opts: ListenOptions, secret: string, e: { type: string; data: string; eventId: string; conversionId?: string }): Promise<void> {
  const deliveryId = await deliveryIdOf(e.eventId);
  const attempts = opts.attempts ?? 5;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const timestamp = Math.floor(Date.now() / 1000);
    const started = performance.now();
    let outcome: { ok: boolean; status?: number; error?: string };
    try {
      const res = await fetch(opts.forwardTo, {
        method: 'POST',
        headers: {
          'User-Agent': POSTBACK_USER_AGENT,
          'Content-Type': 'application/json',
          'X-CW-Event': e.type,
          'X-CW-Delivery': deliveryId,
          'X-CW-Timestamp': String(timestamp),
          'X-CW-Signature': await signPostback(secret, deliveryId, timestamp, e.data),
        },
        body: e.data,
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(opts.timeoutMs ?? 10_000), ...(opts.signal ? [opts.signal] : [])]),
      });
      await res.body?.cancel().catch(() => undefined);
      outcome = { ok: res.status >= 200 && res.status < 300, status: res.status };
    } catch (err) {
      if (opts.signal?.aborted) return;
      const cause = (err as { cause?: { code?: string } }).cause;
      outcome = { ok: false, error: cause?.code ?? (err as Error).message };
    }
    const ms = Math.round(performance.now() - started);
    const last = outcome.ok || attempt === attempts;
    const waitMs = last ? 0 : 1000 * 2 ** (attempt - 1) + backoffDelay(0, { baseDelayMs: 250, maxDelayMs: 250 });
    if (opts.json) {
      opts.say(
        JSON.stringify({
          at: new Date().toISOString(),
          event: e.type,
          event_id: e.eventId,
          conversion_id: e.conversionId,
          delivery_id: deliveryId,
          attempt,
          ok: outcome.ok,
          status: outcome.status,
          error: outcome.error,
          ms,
          retry_in_ms: last ? undefined : waitMs,
        }),
      );
    } else {
      const result = outcome.ok ? `[${outcome.status}]` : `[${outcome.status ?? outcome.error}]`;
      const next = outcome.ok ? '' : last ? ' gave up' : ` retry ${attempt + 1}/${attempts} in ${(waitMs / 1000).toFixed(1)} s`;
      opts.say(`${new Date().toISOString()}  ${e.type.padEnd(14)} ${e.eventId}  --> POST ${opts.forwardTo} ${result} ${ms} ms${next}`);
    }
    if (outcome.ok || last) return;
    try {
      await sleep(waitMs, opts.signal);
    } catch {
      return;
    }
  }
}

export async function listen(cw: CwClient, opts: ListenOptions): Promise<void> {
  const secret = opts.secret ?? generatePostbackSecret();
  const cursor = opts.cursor ?? (opts.fromStart ? undefined : await cw.events.latestCursor({ signal: opts.signal }));
  const wanted = opts.events?.length ? new Set(opts.events) : undefined;
  opts.say(
    opts.json
      ? JSON.stringify({ ready: true, forward_to: opts.forwardTo, secret, events: opts.events ?? 'all' })
      : `Ready. Forwarding ${wanted ? [...wanted].join(', ') : 'every sale event'} to ${opts.forwardTo}\nSigning secret: ${secret}  (verify with verifyPostback(headers, rawBody, [secret]); Ctrl-C stops)`,
  );
  // Deliveries run beside the stream (a slow receiver does not hold events back), each retried on its own.
  const inFlight = new Set<Promise<void>>();
  for await (const e of cw.events.stream({ cursor, signal: opts.signal })) {
    if (wanted && !wanted.has(e.type)) continue;
    const p = deliver(opts, secret, {
      type: e.type,
      data: e.data,
      eventId: e.event.id,
      conversionId: 'conversion' in e.event ? e.event.conversion?.id : undefined,
    }).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
}
