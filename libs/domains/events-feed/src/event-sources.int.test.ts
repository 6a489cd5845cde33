/**
 * The event-source port: another domain's marked rows join the account's log numbered together
 * with the sale events (oldest first, contiguous), each event once, also after a crash between
 * the log's insert and the source's clear; a row's mark is cleared only when no event was pushed
 * to it since it was read; the postbacks consumer reads them past the sale events it skips.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversionsDomain, type ConversionRow } from '@cw/conversions';
import { programsDomain } from '@cw/programs';
import { openDomain, startTestDatabase, type TestDatabase } from '@cw-tools/test-engine';
import { eventsFeedDomain } from './data/events-feed.data';
import type { EventsFeedDeps } from './deps';
import { appendAccountEvents, appendPendingEvents, listEvents } from './event-log';
import { consumeAccountEvents, accountsBehind } from './consumers';
import type { EventSource, PendingRow, SourceEvent } from './event-sources';

let engine: TestDatabase;
let deps: Pick<EventsFeedDeps, 'data'>;

/** A producer keeping its rows in memory (its own store; the log under test is the real one). */
class Rows implements EventSource {
  readonly name = 'rows';
  rows = new Map<string, { publisher: string; pending: boolean; events: SourceEvent[] }>();
  /** Simulates a crash of the appender after its insert: clear() throws once. */
  failNextClear = false;
  push(id: string, publisher: string, ev: SourceEvent) {
    const row = this.rows.get(id) ?? { publisher, pending: false, events: [] };
    row.events.push(ev);
    row.pending = true;
    this.rows.set(id, row);
  }
  hasPending = async (p: string) => [...this.rows.values()].some((r) => r.pending && r.publisher === p);
  pendingAccounts = async () => [...new Set([...this.rows.values()].filter((r) => r.pending).map((r) => r.publisher))];
  pending = async (p: string, limit: number): Promise<PendingRow[]> =>
    [...this.rows.entries()]
      .filter(([, r]) => r.pending && r.publisher === p)
      .slice(0, limit)
      .map(([id, r]) => ({ events: [...r.events], token: { id, n: r.events.length } }));
  clear = async (_p: string, rows: PendingRow[]) => {
    if (this.failNextClear) {
      this.failNextClear = false;
      throw new Error('crashed');
    }
    for (const { token } of rows) {
      const { id, n } = token as { id: string; n: number };
      const row = this.rows.get(id);
      if (row && row.events.length === n) row.pending = false;
    }
  };
}
const source = new Rows();

beforeAll(async () => {
  engine = await startTestDatabase();
  deps = {
    data: {
      conversions: await openDomain(engine, conversionsDomain),
      eventsFeed: await openDomain(engine, eventsFeedDomain),
      programs: await openDomain(engine, programsDomain),
    },
  };
  deps.data.eventsFeed.addEventSource(source);
}, 60_000);
afterAll(() => engine?.stop());

const T = (min: number) => new Date(Date.UTC(2026, 10, 2, 10, min));
const sale = (id: string, publisher: string, events: Array<[string, string, Date]>) =>
  ({
    _id: id,
    publisher_id: publisher,
    subid: '',
    status: 'pending',
    sale_amount: '10.00',
    commission: '1.00',
    currency: 'EUR',
    occurred_at: T(0),
    reversed: false,
    paid: false,
    source: 'v1',
    log_pending: true,
    events: events.map(([_id, type, created_at]) => ({ _id, type, created_at, published_at: null })),
    created_at: T(0),
    updated_at: T(0),
  }) as unknown as ConversionRow;
const paid = (id: string, publisher: string, at: Date, type = 'payout.paid'): SourceEvent => ({
  id,
  type,
  created_at: at,
  body: { id, type, event: type.slice('payout.'.length), created_at: at.toISOString(), publisher_id: publisher, payout: { id: 'po_1', status: 'paid' } },
});

describe('event sources', () => {
  it('refuses a second source of the same name', () => {
    expect(() => deps.data.eventsFeed.addEventSource(new Rows())).toThrow(/registered already/);
  });

  it("numbers a source's events with the sale events, oldest first, and shows their bodies as given", async () => {
    await deps.data.conversions.insertRows([sale('cnv_1', 'pub_s', [['evt_s1', 'sale.created', T(1)]])]);
    source.push('po_1', 'pub_s', paid('evt_p1', 'pub_s', T(2)));
    await deps.data.conversions.insertRows([sale('cnv_2', 'pub_s', [['evt_s2', 'sale.created', T(3)]])]);
    expect(await appendAccountEvents(deps, 'pub_s')).toBe(3);
    const page = await listEvents(deps, 'pub_s', {});
    expect(page.data.map((e) => e.id)).toEqual(['evt_s1', 'evt_p1', 'evt_s2']);
    expect(page.data[1]).toEqual({
      id: 'evt_p1',
      type: 'payout.paid',
      event: 'paid',
      created_at: T(2).toISOString(),
      publisher_id: 'pub_s',
      payout: { id: 'po_1', status: 'paid' },
    });
    expect(await source.hasPending('pub_s')).toBe(false);
  });

  it('logs an event once when the appender died between the insert and the clear (ids recognised)', async () => {
    source.push('po_2', 'pub_s', paid('evt_p2', 'pub_s', T(4)));
    source.failNextClear = true;
    await expect(appendAccountEvents(deps, 'pub_s')).rejects.toThrow('crashed');
    expect(await source.hasPending('pub_s')).toBe(true);
    // The worker's pass finds the marked row again: nothing new to number, the mark cleared.
    expect(await appendPendingEvents(deps)).toBe(0);
    expect(await source.hasPending('pub_s')).toBe(false);
    expect((await listEvents(deps, 'pub_s', {})).data.map((e) => e.id)).toEqual(['evt_s1', 'evt_p1', 'evt_s2', 'evt_p2']);
  });

  it('keeps the mark of a row that got an event after it was read', async () => {
    source.push('po_3', 'pub_t', paid('evt_p3', 'pub_t', T(5)));
    const rows = await source.pending('pub_t', 10);
    source.push('po_3', 'pub_t', paid('evt_p4', 'pub_t', T(6), 'payout.failed'));
    await source.clear('pub_t', rows);
    expect(await source.hasPending('pub_t')).toBe(true);
    expect(await appendPendingEvents(deps)).toBe(2);
    expect((await listEvents(deps, 'pub_t', {})).data.map((e) => [e.id, e.type])).toEqual([
      ['evt_p3', 'payout.paid'],
      ['evt_p4', 'payout.failed'],
    ]);
  });

  it('the postbacks consumer gets only the events that are not sale events, each once, and catches up', async () => {
    expect(await accountsBehind(deps, 'postbacks')).toEqual(expect.arrayContaining(['pub_s', 'pub_t']));
    const seen: string[] = [];
    const read = (events: Array<{ body: string }>) => {
      seen.push(...events.map((e) => (JSON.parse(e.body) as { id: string }).id));
      return Promise.resolve();
    };
    expect(await consumeAccountEvents(deps, 'postbacks', 'pub_s', read, { except: /^sale\./, batch: 1 })).toBe(2);
    expect(seen).toEqual(['evt_p1', 'evt_p2']);
    expect(await consumeAccountEvents(deps, 'postbacks', 'pub_s', read, { except: /^sale\./ })).toBe(0);
    expect(await accountsBehind(deps, 'postbacks')).not.toContain('pub_s');
    // A sale event later moves the head: the consumer is behind, reads past it, hands nothing over.
    await deps.data.conversions.insertRows([sale('cnv_3', 'pub_s', [['evt_s3', 'sale.created', T(7)]])]);
    await appendAccountEvents(deps, 'pub_s');
    expect(await accountsBehind(deps, 'postbacks')).toContain('pub_s');
    expect(await consumeAccountEvents(deps, 'postbacks', 'pub_s', read, { except: /^sale\./ })).toBe(0);
    expect(await accountsBehind(deps, 'postbacks')).not.toContain('pub_s');
    expect(seen).toEqual(['evt_p1', 'evt_p2']);
  });
});
