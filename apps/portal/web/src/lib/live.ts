/**
 * Live sale events of an account, over the portal's SSE stream
 * (`GET /portal/api/accounts/:account/events/stream`, EventSource with the session cookie).
 *
 * ```tsx
 * const { state } = useLiveEvents(accountId, (event) => {
 *   // event: the SaleEvent (the postback body): event.type 'sale.created' | 'sale.approved' | ...,
 *   // event.conversion {id, status, commission, ...}. Called once per event, in order.
 *   void queryClient.invalidateQueries({ queryKey: ... });
 * });
 * useEffect(() => { if (state === 'live') void refetch(); }, [state]); // catch up after (re)connecting
 * return <LiveBadge state={state} />;
 * ```
 *
 * - `state`: 'connecting' (first connection), 'live' (open: events arrive within a poll of the
 *   change, 250 ms by default), 'reconnecting' (lost; trying again), 'offline' (the browser is
 *   offline, the account cannot be read, or several attempts in a row failed; it keeps trying,
 *   with backoff up to 30 s, and at once when the browser is back online).
 * - Starts from now: the first connection opens at the account's latest event (GET .../events/latest),
 *   so history is not replayed. Every event's SSE id is the feed's cursor after it; a reconnect
 *   (the browser's own, with Last-Event-ID, or ours after the server refused or restarted, with
 *   `?cursor=`) resumes exactly after the last event received: nothing lost, nothing twice. Events
 *   are also deduplicated by their id (the last 2,000), whatever a reconnect delivers.
 * - If the server no longer keeps the events after our cursor (410 `cursor_expired`), the stream
 *   starts again from the latest event: the state passes through 'connecting', so pages that
 *   refetch when it becomes 'live' catch up.
 * - One connection per account, shared by every component of the tab using the hook (the account
 *   has a few stream slots), closed 10 s after the last one unmounts.
 * - `onEvent` may change identity between renders (the latest one is called).
 */
import { createElement, useEffect, useRef, useState } from 'react';
import { eventStreamUrl, latestEventCursor, probeEvents, type SaleEvent } from '../api/activity';
import { isApiError } from '../api/client';

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'offline';

export type { SaleEvent };

const EVENT_TYPES = ['sale.created', 'sale.approved', 'sale.declined', 'sale.reversed'] as const;
const SEEN_MAX = 2000;
const LINGER_MS = 10_000;
const MAX_BACKOFF_MS = 30_000;
/** Failed attempts in a row after which the state says offline. */
const OFFLINE_AFTER = 3;

type Listener = { onEvent(e: SaleEvent): void; onState(s: LiveState): void };

class Connection {
  state: LiveState = 'connecting';
  private readonly listeners = new Set<Listener>();
  private source: EventSource | null = null;
  private cursor: string | null = null;
  private readonly seen = new Set<string>();
  private readonly seenOrder: string[] = [];
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private lingerTimer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private generation = 0;

  constructor(
    private readonly account: string,
    private readonly onIdle: () => void,
  ) {
    window.addEventListener('online', this.online);
    window.addEventListener('offline', this.offline);
    void this.open();
  }

  add(l: Listener): () => void {
    clearTimeout(this.lingerTimer);
    this.listeners.add(l);
    l.onState(this.state);
    return () => {
      this.listeners.delete(l);
      if (!this.listeners.size) this.lingerTimer = setTimeout(() => this.stop(), LINGER_MS);
    };
  }

  private setState(s: LiveState): void {
    if (this.state === s) return;
    this.state = s;
    for (const l of this.listeners) l.onState(s);
  }

  private readonly online = () => {
    if (!this.source || this.source.readyState === EventSource.CLOSED) this.retryNow();
  };

  private readonly offline = () => this.setState('offline');

  private async open(): Promise<void> {
    const generation = ++this.generation;
    if (this.stopped) return;
    this.setState(this.failures === 0 ? (this.cursor ? 'reconnecting' : 'connecting') : this.failures >= OFFLINE_AFTER ? 'offline' : 'reconnecting');
    if (!this.cursor) {
      try {
        this.cursor = (await latestEventCursor(this.account)).cursor;
      } catch (e) {
        if (generation === this.generation) this.failed(e);
        return;
      }
      if (generation !== this.generation || this.stopped) return;
    }
    const source = new EventSource(eventStreamUrl(this.account, this.cursor));
    this.source = source;
    source.onopen = () => {
      this.failures = 0;
      this.setState('live');
    };
    const onMessage = (m: MessageEvent<string>) => {
      // The SSE id is the feed's cursor after this event: a reconnect resumes after it.
      if (m.lastEventId) this.cursor = m.lastEventId;
      let event: SaleEvent;
      try {
        event = JSON.parse(m.data) as SaleEvent;
      } catch {
        return;
      }
      if (this.seen.has(event.id)) return;
      this.seen.add(event.id);
      this.seenOrder.push(event.id);
      if (this.seenOrder.length > SEEN_MAX) this.seen.delete(this.seenOrder.shift()!);
      for (const l of this.listeners) l.onEvent(event);
    };
    for (const type of EVENT_TYPES) source.addEventListener(type, onMessage as EventListener);
    source.onerror = () => {
      if (this.source !== source) return;
      if (source.readyState === EventSource.CONNECTING) {
        // The browser reconnects by itself (Last-Event-ID): the server went away or restarted.
        this.failures++;
        this.setState(this.failures >= OFFLINE_AFTER || !navigator.onLine ? 'offline' : 'reconnecting');
        return;
      }
      // Refused (an HTTP error): closed for good by the browser; find out why, then try again.
      source.close();
      this.source = null;
      void this.diagnose(generation);
    };
  }

  /** After a refused stream: an expired cursor starts again from the latest event; a lost session or account stops. */
  private async diagnose(generation: number): Promise<void> {
    try {
      if (this.cursor) await probeEvents(this.account, this.cursor);
      this.failed(null);
    } catch (e) {
      if (generation !== this.generation) return;
      if (isApiError(e) && (e.code === 'cursor_expired' || (e.status === 400 && e.code === 'invalid_parameter'))) {
        this.cursor = null;
        this.failed(null);
      } else this.failed(e);
    }
  }

  private failed(e: unknown): void {
    if (this.stopped) return;
    // Not signed in (the client sends the person to sign in) or not this person's account: stop.
    if (isApiError(e) && (e.status === 401 || e.status === 404)) {
      this.setState('offline');
      return;
    }
    this.failures++;
    this.setState(this.failures >= OFFLINE_AFTER || !navigator.onLine ? 'offline' : 'reconnecting');
    const backoff = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (this.failures - 1));
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.open(), backoff * (0.75 + Math.random() * 0.5));
  }

  private retryNow(): void {
    clearTimeout(this.retryTimer);
    this.source?.close();
    this.source = null;
    void this.open();
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    clearTimeout(this.retryTimer);
    clearTimeout(this.lingerTimer);
    this.source?.close();
    this.source = null;
    window.removeEventListener('online', this.online);
    window.removeEventListener('offline', this.offline);
    this.onIdle();
  }
}

const connections = new Map<string, Connection>();

function connectionOf(account: string): Connection {
  let c = connections.get(account);
  if (!c) {
    const made: Connection = new Connection(account, () => {
      if (connections.get(account) === made) connections.delete(account);
    });
    connections.set(account, (c = made));
  }
  return c;
}

/** The account's live sale events (see the file's header); `accountId` null: nothing (state 'offline'). */
export function useLiveEvents(accountId: string | null | undefined, onEvent: (event: SaleEvent) => void): { state: LiveState } {
  const [state, setState] = useState<LiveState>(accountId ? 'connecting' : 'offline');
  const handler = useRef(onEvent);
  useEffect(() => {
    handler.current = onEvent;
  });
  useEffect(() => {
    if (!accountId) {
      setState('offline');
      return;
    }
    return connectionOf(accountId).add({ onEvent: (e) => handler.current(e), onState: setState });
  }, [accountId]);
  return { state };
}

const WORDS: Record<LiveState, { label: string; title: string }> = {
  connecting: { label: 'Connecting', title: 'Connecting to live updates…' },
  live: { label: 'Live', title: 'New and changed conversions appear here as they happen.' },
  reconnecting: { label: 'Reconnecting', title: 'The connection was lost; reconnecting. Nothing will be missed.' },
  offline: { label: 'Offline', title: 'Live updates are paused; retrying. Reload the page to see the latest.' },
};

/** The live state in words (the colour only repeats them), announced politely when it changes. */
export function LiveBadge({ state }: { state: LiveState }) {
  const w = WORDS[state];
  return createElement(
    'span',
    { className: `live-badge live-${state}`, role: 'status', 'data-state': state, title: w.title },
    createElement('span', { className: 'visually-hidden' }, 'Live updates: '),
    w.label,
  );
}
