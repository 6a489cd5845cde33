/**
 * The event-source port: how a domain other than the sales core adds events to an account's log
 * (the events feed, its stream, and the log's consumers such as postbacks) without this lib
 * importing it. The composition root registers each source on the feed's data handle
 * (`data.eventsFeed.addEventSource(source)`, libs/root/runtime/src/platform-data.ts).
 *
 * The producer's contract, the same one conversions keep with their `log_pending` flag:
 * - the state change and the "event pending" mark are ONE write: the row gets its event pushed
 *   (a stable id, the type, the time) and a pending flag in the update that changes its state, so
 *   a crash leaves either no change or a change with its event still to log;
 * - `pending` reads marked rows with every event they carry (logged ones too: the append
 *   recognises ids already in the log and skips them, so a crash between the append's insert and
 *   `clear` repeats nothing);
 * - `clear` unmarks a row only if it carries no event pushed since it was read.
 *
 * Appends (./event-log.ts) read every source's pending rows of the account under the account's
 * log lease, number their events together with the sale events (contiguous, oldest first), insert
 * them, then clear the marks. Event ids must be unique across the log (`evt_` + a hash of the row
 * and the type, say), and the same on every read.
 */

/** One event of a source's row, as it joins the log. */
export interface SourceEvent {
  /** `evt_…`: unique across the log, the same every time the row is read. */
  id: string;
  /** A type of ./event-types.ts (`payout.paid`…): the feed's `type`, the stream's `event:`, the postback's X-CW-Event. */
  type: string;
  /** When the change happened: events of one append are numbered in this order. */
  created_at: Date;
  /**
   * The body every surface shows (feed entry, stream data, postback body): at least `id`, `type`,
   * `event`, `created_at` (ISO string) and `publisher_id`, and the object it is about under its
   * own name (`payout`, `inquiry`). Built when the event is logged, then frozen.
   */
  body: Record<string, unknown>;
}

/** A marked row of a source and every event it carries; `token` is what `clear` needs back (a version, the events' count). */
export interface PendingRow {
  events: SourceEvent[];
  token: unknown;
}

export interface EventSource {
  /** Unique among sources (`payouts`, `inquiries`): for logs and errors. */
  readonly name: string;
  /** Whether the account has marked rows (asked before every feed read and stream poll: keep it one indexed query). */
  hasPending(publisherId: string): Promise<boolean>;
  /** Accounts with marked rows, at most `limit` (the worker's pass). */
  pendingAccounts(limit: number): Promise<string[]>;
  /** At most `limit` of the account's marked rows, with all their events. */
  pending(publisherId: string, limit: number): Promise<PendingRow[]>;
  /** Unmarks these rows, each only where no event was pushed since it was read. */
  clear(publisherId: string, rows: PendingRow[]): Promise<void>;
}
