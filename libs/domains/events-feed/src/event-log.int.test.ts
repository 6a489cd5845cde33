/**
 * The events feed's own rules on the embedded engine through mongoose: cursors are opaque and bound
 * to their account; the log numbers an account's events 1, 2, 3... in the order they happened,
 * each once, and a cursor resumes exactly after the event it names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversionsDomain, type ConversionRow } from '@cw/conversions';
import { ApiError } from '@cw/errors';
import { programsDomain } from '@cw/programs';
import { openDomain, startTestDatabase, type TestDatabase } from '@cw-tools/test-engine';
import { eventsFeedDomain } from './data/events-feed.data';
import type { EventsFeedDeps } from './deps';
import { appendAccountEvents, cursorSeq, eventCursor, pruneEvents, readEventLog } from './event-log';
import { consumeAccountEvents } from './consumers';

let engine: TestDatabase;
let deps: Pick<EventsFeedDeps, 'data'>;

beforeAll(async () => {
  engine = await startTestDatabase();
  deps = {
    data: {
      conversions: await openDomain(engine, conversionsDomain),
      eventsFeed: await openDomain(engine, eventsFeedDomain),
      programs: await openDomain(engine, programsDomain),
    },
  };
}, 60_000);
afterAll(() => engine?.stop());

const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return (e as ApiError).code;
  }
  return undefined;
};

describe('cursors', () => {
  it("resume after the number they name, are opaque, and are refused on another account's feed or when made up", () => {
    const c = eventCursor('pub_a', 42);
    expect(cursorSeq(c, 'pub_a')).toBe(42);
    expect(cursorSeq(undefined, 'pub_a')).toBe(0);
    expect(c).not.toContain('pub_a');
    expect(codeOf(() => cursorSeq(c, 'pub_b'))).toBe('invalid_parameter');
    expect(codeOf(() => cursorSeq('evc1_bm9wZQ', 'pub_a'))).toBe('invalid_parameter');
    expect(codeOf(() => cursorSeq('42', 'pub_a'))).toBe('invalid_parameter');
    expect(codeOf(() => cursorSeq(eventCursor('pub_a', 1.5), 'pub_a'))).toBe('invalid_parameter');
  });
});

const T = (min: number) => new Date(Date.UTC(2026, 10, 2, 10, min));
const conversion = (id: string, publisher: string, events: Array<[string, string, Date]>) =>
  ({
    _id: id,
    publisher_id: publisher,
    subid: '',
    status: 'pending',
    sale_amount: '80.00',
    commission: '6.40',
    currency: 'EUR',
    occurred_at: T(0),
    source: 'v1',
    reversed: false,
    log_pending: true,
    events: events.map(([_id, type, created_at]) => ({ _id, type, created_at, published_at: null })),
  }) as unknown as ConversionRow;

describe('the log', () => {
  it("numbers an account's events in the order they happened across its conversions, each once, and pages by cursor", async () => {
    await deps.data.conversions.insertRows([
      conversion('cnv_f1', 'pub_f', [
        ['evt_1', 'sale.created', T(1)],
        ['evt_4', 'sale.approved', T(4)],
      ]),
      conversion('cnv_f2', 'pub_f', [
        ['evt_2', 'sale.created', T(2)],
        ['evt_3', 'sale.declined', T(3)],
      ]),
      conversion('cnv_g1', 'pub_g', [['evt_g', 'sale.created', T(1)]]),
    ]);
    expect(await appendAccountEvents(deps, 'pub_f')).toBe(4);
    expect(await appendAccountEvents(deps, 'pub_f')).toBe(0); // nothing left pending: nothing twice

    const first = await readEventLog(deps, 'pub_f', { limit: 3 });
    expect(first.events.map((e) => (JSON.parse(e.body) as { id: string }).id)).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect(first.events.map((e) => cursorSeq(e.cursor, 'pub_f'))).toEqual([1, 2, 3]);
    expect(first.has_more).toBe(true);
    const second = await readEventLog(deps, 'pub_f', { cursor: first.next_cursor, limit: 3 });
    expect(second.events.map((e) => e.type)).toEqual(['sale.approved']);
    expect(second.has_more).toBe(false);
    // Nothing new: the same cursor back, to ask again.
    const idle = await readEventLog(deps, 'pub_f', { cursor: second.next_cursor });
    expect(idle).toEqual({ events: [], next_cursor: second.next_cursor, has_more: false });

    // Another account's log is its own, numbered from 1.
    const other = await readEventLog(deps, 'pub_g', {});
    expect(other.events.map((e) => cursorSeq(e.cursor, 'pub_g'))).toEqual([1]);
  });

  it("refuses a cursor past the account's last event, and answers cursor_expired once the events after a cursor are pruned", async () => {
    await expect(readEventLog(deps, 'pub_f', { cursor: eventCursor('pub_f', 9) })).rejects.toMatchObject({ code: 'invalid_parameter' });
    // Events a consumer of the log (the ledger, stats, postbacks) has not read are kept; once every one read them, they can go.
    expect(await pruneEvents(deps, new Date(Date.now() + 60_000))).toBe(0);
    for (const account of ['pub_f', 'pub_g']) await consumeAccountEvents(deps, 'ledger', account, async () => undefined);
    expect(await pruneEvents(deps, new Date(Date.now() + 60_000))).toBe(0);
    for (const account of ['pub_f', 'pub_g']) await consumeAccountEvents(deps, 'stats', account, async () => undefined);
    expect(await pruneEvents(deps, new Date(Date.now() + 60_000))).toBe(0);
    for (const account of ['pub_f', 'pub_g']) await consumeAccountEvents(deps, 'postbacks', account, async () => undefined, { except: /^sale\./ });
    expect(await pruneEvents(deps, new Date(Date.now() + 60_000))).toBeGreaterThanOrEqual(5);
    await expect(readEventLog(deps, 'pub_f', { cursor: eventCursor('pub_f', 2) })).rejects.toMatchObject({ code: 'cursor_expired' });
    // From the end it still reads (nothing after it).
    expect((await readEventLog(deps, 'pub_f', { cursor: eventCursor('pub_f', 4) })).events).toEqual([]);
  });

  it('numbers on after every event was pruned: a cursor held from before sees the next event', async () => {
    // pub_f's four events are pruned (the test above); a client holds the cursor of the fourth.
    await deps.data.conversions.insertRows([conversion('cnv_f3', 'pub_f', [['evt_5', 'sale.created', T(5)]])]);
    expect(await appendAccountEvents(deps, 'pub_f')).toBe(1);
    const next = await readEventLog(deps, 'pub_f', { cursor: eventCursor('pub_f', 4) });
    expect(next.events.map((e) => [(JSON.parse(e.body) as { id: string }).id, cursorSeq(e.cursor, 'pub_f')])).toEqual([['evt_5', 5]]);
  });
});
