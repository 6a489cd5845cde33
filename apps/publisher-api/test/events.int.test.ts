/**
 * The events feed through HTTP (GET /events/, GET /events/stream/ and the reporting token's copy):
 * every sale event of the account once, in one order, resumable after any cut, also while 50
 * changes land at once and when pages come from two instances; bad, foreign and pruned cursors;
 * the live stream with Last-Event-ID, heartbeats, the per-account cap and a clean shutdown.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeStatus, type ConversionRecord } from '@cw/conversions';
import { pruneEvents } from '@cw/events-feed';
import { endEventStreams } from '@cw/http';
import { bookPendingSales } from '@cw/ledger';
import { deliverLoggedEvents } from '@cw/postbacks';
import { createTestDeps, expectErrorShape, readEventStream, type TestDeps, handlerServer } from '@cw-tools/testing';
import { createApp } from '../src/app';

const ENV = {
  RATELIMIT_REPORTING_PER_MIN: '1000000',
  RATELIMIT_REPORTING_TOKEN_PER_MIN: '1000000',
  EVENTS_POLL_MS: '50',
  EVENTS_HEARTBEAT_MS: '300',
  EVENT_STREAMS_PER_ACCOUNT: '2',
};
let a: TestDeps;
let b: TestDeps;
let servers: Array<ReturnType<ReturnType<typeof createApp>['callback']>>;
let account: string;
let key: string;

interface Event {
  id: string;
  type: string;
  conversion: { id: string; status: string };
}
interface Page {
  data: Event[];
  next_cursor: string;
  has_more: boolean;
}

beforeAll(async () => {
  a = await createTestDeps({ seedProducts: 30, env: ENV });
  b = await createTestDeps({ sameDatabaseAs: a, env: ENV });
  servers = [createApp(a).callback(), createApp(b).callback()];
  account = a.demo!.publishers[0].account_id;
  key = a.demo!.publishers[0].keys.live;
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const page = async (query: string, instance = 0, apiKey = key): Promise<Page> => {
  const res = await request(servers[instance]!).get(`/api/v1/publisher/events/${query}`).set('X-API-Key', apiKey);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Page;
};

/** Every event from `cursor` on, page by page, alternating instances. */
async function drain(cursor?: string, limit = 100): Promise<{ events: Event[]; cursor: string }> {
  const events: Event[] = [];
  for (let i = 0; ; i++) {
    const p = await page(`?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, i % 2);
    events.push(...p.data);
    cursor = p.next_cursor;
    if (!p.has_more) return { events, cursor };
  }
}

const storedEvents = async (publisherId: string) =>
  (await a.models.Conversion.find({ publisher_id: publisherId, source: 'v1' }, { events: 1 }).lean<ConversionRecord[]>()).flatMap((c) =>
    c.events.map((e) => e._id),
  );

describe('GET /events/', () => {
  it('lists every sale event of the account once, oldest first, each showing the conversion as of that event', async () => {
    const { events } = await drain(undefined, 37);
    const stored = await storedEvents(account);
    expect(events.length).toBe(stored.length);
    expect(new Set(events.map((e) => e.id))).toEqual(new Set(stored));
    const after = { 'sale.created': 'pending', 'sale.approved': 'approved', 'sale.declined': 'declined', 'sale.reversed': 'declined' } as Record<
      string,
      string
    >;
    for (const e of events) expect(e.conversion.status).toBe(after[e.type]);
    // One conversion's events keep their order: created before its decision.
    const seen = new Map<string, string[]>();
    for (const e of events) seen.set(e.conversion.id, [...(seen.get(e.conversion.id) ?? []), e.type]);
    for (const types of seen.values()) expect(types[0]).toBe('sale.created');
  });

  it('resumes exactly after any cut: every cursor gives what followed it in the full list', async () => {
    const full = (await page('?limit=500')).data.map((e) => e.id);
    let cursor: string | undefined;
    for (let i = 0; i < full.length; i++) {
      const next = await page(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`, i % 2);
      expect(next.data.map((e) => e.id)).toEqual(full.slice(i, i + 3));
      const one = await page(`?limit=1${cursor ? `&cursor=${cursor}` : ''}`, (i + 1) % 2);
      cursor = one.next_cursor;
    }
  });

  it('misses nothing and repeats nothing while 50 changes to different conversions land at once, read from two instances', async () => {
    const start = (await drain()).cursor;
    const pending = await a.models.Conversion.find({ publisher_id: account, source: 'v1', status: 'pending' }, { _id: 1 }).limit(50).lean();
    expect(pending.length).toBe(50);
    const collected: Event[] = [];
    let cursor = start;
    let done = false;
    const reader = (async () => {
      for (let i = 0; !done || i < 3; i++) {
        const p = await page(`?limit=7&cursor=${cursor}`, i % 2);
        collected.push(...p.data);
        cursor = p.next_cursor;
        if (done && !p.has_more && !p.data.length) i++;
      }
    })();
    await Promise.all(pending.map((c, i) => changeStatus(i % 2 ? a : b, String(c._id), i % 3 ? 'approved' : 'declined')));
    done = true;
    await reader;
    collected.push(...(await drain(cursor)).events);
    expect(collected.map((e) => e.id).length).toBe(new Set(collected.map((e) => e.id)).size);
    expect(collected.map((e) => e.conversion.id).sort()).toEqual(pending.map((c) => String(c._id)).sort());
    expect(collected.every((e) => e.type === 'sale.approved' || e.type === 'sale.declined')).toBe(true);
  });

  it("refuses a malformed cursor and another account's (400) and demo keys (403)", async () => {
    expectErrorShape(await request(servers[0]!).get('/api/v1/publisher/events/?cursor=nonsense').set('X-API-Key', key), 400, 'invalid_parameter');
    expectErrorShape(await request(servers[0]!).get('/api/v1/publisher/events/?limit=501').set('X-API-Key', key), 400, 'invalid_parameter');
    const other = a.demo!.publishers[1];
    const theirs = (await page('?limit=1', 0, other.keys.live)).next_cursor;
    const foreign = await request(servers[0]!).get(`/api/v1/publisher/events/?cursor=${theirs}`).set('X-API-Key', key);
    expectErrorShape(foreign, 400, 'invalid_parameter');
    expect(foreign.body.detail).toContain("another account's feed");
    expectErrorShape(
      await request(servers[0]!).get('/api/v1/publisher/events/').set('X-API-Key', a.demo!.publishers[0].keys.demo),
      403,
      'credential_not_allowed',
    );
  });
});

describe('GET /events/stream/', () => {
  let base: string;
  let listener: http.Server;
  beforeAll(async () => {
    listener = handlerServer(servers[0]!);
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/api/v1/publisher`;
  });
  afterAll(() => new Promise<void>((r) => listener.close(() => r())));

  interface Sse {
    events: Array<{ id: string; event: string; data: Event }>;
    comments: string[];
    status: number;
    ended: Promise<void>;
    close(): void;
  }

  async function open(headers: Record<string, string> = {}, query = ''): Promise<Sse> {
    const controller = new AbortController();
    const res = await fetch(`${base}/events/stream/${query}`, { headers: { 'X-API-Key': key, ...headers }, signal: controller.signal });
    const sse: Sse = { events: [], comments: [], status: res.status, ended: Promise.resolve(), close: () => controller.abort() };
    if (res.status !== 200) return sse;
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    sse.ended = readEventStream(res.body, (m) => {
      if (m.comment !== undefined) sse.comments.push(m.comment);
      else if (m.data) sse.events.push({ id: m.id!, event: m.event!, data: JSON.parse(m.data) as Event });
    }).catch(() => undefined);
    return sse;
  }

  const until = async (what: () => boolean, ms = 5000, label = '') => {
    for (const t = Date.now(); !what();) {
      if (Date.now() - t > ms) throw new Error(`timed out waiting ${label}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('sends the backlog, then each new change, resumes after Last-Event-ID, and heartbeats while idle', async () => {
    const all = await drain();
    const from = (await page('?limit=5')).next_cursor;
    const sse = await open({}, `?cursor=${from}`);
    expect(sse.status).toBe(200);
    await until(() => sse.events.length >= all.events.length - 5, 5000, `backlog ${sse.events.length}/${all.events.length - 5}`);
    expect(sse.events.map((e) => e.data.id)).toEqual(all.events.slice(5).map((e) => e.id));
    const pending = (await a.models.Conversion.findOne({ publisher_id: account, source: 'v1', status: 'pending' }, { _id: 1 }).lean())!;
    await changeStatus(a, String(pending._id), 'approved');
    // The backlog already holds this conversion's creation: wait for the approval itself, and find it last.
    await until(() => sse.events.some((e) => e.data.conversion.id === String(pending._id) && e.event === 'sale.approved'));
    expect(sse.events.at(-1)).toMatchObject({ event: 'sale.approved', data: { type: 'sale.approved', conversion: { id: String(pending._id) } } });
    await until(() => sse.comments.some((c) => c.includes('heartbeat')));
    sse.close();
    // Reconnecting with the id of an event received: exactly what followed it.
    const cut = sse.events.length - 3;
    const again = await open({ 'Last-Event-ID': sse.events[cut - 1]!.id });
    await until(() => again.events.length >= 3);
    expect(again.events.map((e) => e.data.id)).toEqual(sse.events.slice(cut).map((e) => e.data.id));
    again.close();
  });

  it('holds at most EVENT_STREAMS_PER_ACCOUNT open streams per account (429 beyond), freed when one closes', async () => {
    const one = await open();
    const two = await open();
    const three = await fetch(`${base}/events/stream/`, { headers: { 'X-API-Key': key } });
    expect(three.status).toBe(429);
    expect(((await three.json()) as { code: string }).code).toBe('too_many_streams');
    one.close();
    await new Promise((r) => setTimeout(r, 200));
    const four = await open();
    expect(four.status).toBe(200);
    two.close();
    four.close();
    await new Promise((r) => setTimeout(r, 200));
  });

  it('refuses a bad cursor with a plain 400 before streaming, and ends every stream cleanly on shutdown', async () => {
    const bad = await fetch(`${base}/events/stream/?cursor=nope`, { headers: { 'X-API-Key': key } });
    expect(bad.status).toBe(400);
    const sse = await open();
    await until(() => sse.events.length > 0);
    endEventStreams();
    await sse.ended;
    expect(sse.comments.at(-1)).toContain('shutting down');
  });
});

// Last: pruning removes every account's old events.
describe('pruned events', () => {
  it('answers 410 cursor_expired for a cursor whose following events are no longer kept', async () => {
    const other = a.demo!.publishers[1];
    // The other account's first event cursor, then everything logged so far pruned.
    const first = (await page('?limit=1', 0, other.keys.live)).next_cursor;
    // Only what every consumer of the log has read goes: the ledger and postbacks read first, as the worker's passes would.
    while ((await bookPendingSales(a)) > 0);
    while ((await deliverLoggedEvents(a)).accounts > 0);
    await pruneEvents(a, new Date(Date.now() + 1000));
    const gone = await request(servers[1]!).get(`/api/v1/publisher/events/?cursor=${first}`).set('X-API-Key', other.keys.live);
    expectErrorShape(gone, 410, 'cursor_expired');
  });
});
