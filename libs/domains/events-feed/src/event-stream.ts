/**
 * GET .../events/stream/: the events feed as Server-Sent Events. Each event's `id:` is its cursor,
 * so a client that reconnects with `Last-Event-ID` (or `?cursor=`) resumes exactly after it. The
 * stream holds one of the account's slots (EVENT_STREAMS_PER_ACCOUNT, shared through Redis across
 * instances), refreshed with each heartbeat and released when it ends.
 */
import type { Context } from 'koa';
import type { PlatformConfig } from '@cw/config';
import { ApiError } from '@cw/errors';
import { serveEventStream } from '@cw/http';
import type { Slots } from '@cw/ratelimit';
import { cursorSeq, eventCursor, readEventLog, tailAfter, type EventsView, type EventTails } from './event-log';
import { type EventsFeedDeps } from './deps';

export interface EventStreamDeps extends Pick<EventsFeedDeps, 'data'> {
  config: Pick<PlatformConfig, 'eventStreamsPerAccount' | 'eventsPollMs' | 'eventsHeartbeatMs'>;
  slots: Slots;
  caches: { eventTails: EventTails };
  logger?: { warn(obj: object, msg: string): void };
}

/** A slot not refreshed for this long is free again (its process died). */
const SLOT_TTL_FACTOR = 3;

export async function openEventStream(
  ctx: Context,
  deps: EventStreamDeps,
  publisherId: string,
  cursor: string | undefined,
  view: EventsView = {},
): Promise<void> {
  // Refused before anything is sent: a malformed, foreign or expired cursor is a plain 4xx.
  await readEventLog(deps, publisherId, { cursor, limit: 1 }, view);
  const hidden = new Set(view.hidden ?? []);
  const ttl = deps.config.eventsHeartbeatMs * SLOT_TTL_FACTOR;
  const slot = await deps.slots.hold(`events:${publisherId}`, deps.config.eventStreamsPerAccount, ttl);
  if (!slot)
    throw new ApiError({
      code: 'too_many_streams',
      detail: `This account already holds ${deps.config.eventStreamsPerAccount} open event streams: close one, or poll GET /events/.`,
      headers: { 'Retry-After': String(Math.ceil(ttl / 1000)) },
    });
  const refresh = setInterval(() => void slot.refresh().catch(() => undefined), deps.config.eventsHeartbeatMs);
  serveEventStream(ctx, {
    cursor,
    pollMs: deps.config.eventsPollMs,
    heartbeatMs: deps.config.eventsHeartbeatMs,
    poll: async (after) => {
      // Caught up: from this process's tail of the account (shared by its streams); behind: the log.
      const tail = await tailAfter(deps, publisherId, cursorSeq(after, publisherId), deps.config.eventsPollMs);
      if (tail) {
        // The tail is contiguous: the cursor moves past events this reader does not see.
        const events = tail.filter((e) => !hidden.has(e.type)).map((e) => ({ id: eventCursor(publisherId, e.seq), event: e.type, data: e.body }));
        return { events, cursor: tail.length ? eventCursor(publisherId, tail.at(-1)!.seq) : after };
      }
      const page = await readEventLog(deps, publisherId, { cursor: after, limit: 500 }, view);
      return {
        events: page.events.map((e) => ({ id: e.cursor, event: e.type, data: e.body })),
        cursor: page.next_cursor,
      };
    },
    onError: (err) => deps.logger?.warn({ err: (err as Error).message }, 'event stream ended by a failed poll'),
    onClose: () => {
      clearInterval(refresh);
      void slot.release().catch(() => undefined);
    },
  });
}
