/**
 * The portal's conversions, clicks, a conversion's page, the CSV exports and the live events,
 * through HTTP against the real engine with the demo data: the portal answers what the publisher
 * API's use cases answer an API key of the same account, the CSV holds exactly the filtered list,
 * another account's data is 404, bad input 400 in the one error shape, and the stream delivers a
 * merchant's new sale.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCredential, type Principal } from '@cw/auth';
import { changeStatus, recordSale } from '@cw/conversions';
import { listConversions } from '@cw/reports';
import { ClickIds, ensureLinks, listClicks } from '@cw/links';
import { createTestDeps, expectErrorShape, handlerServer, readEventStream, type SseMessage, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';
import { bookLedgerEntry } from '@cw/conversions';

let deps: TestDeps;
let http: ReturnType<ReturnType<typeof createApp>['callback']>;
let server: Server;
let base: string;
let webDir: string;
let origin: string;
/** publishers[0]'s live key, as the publisher API authenticates it. */
let keyPrincipal: Principal;

beforeAll(async () => {
  webDir = mkdtempSync(join(tmpdir(), 'portal-web-'));
  writeFileSync(join(webDir, 'index.html'), '<!doctype html><title>Portal</title>');
  deps = await createTestDeps({
    seedProducts: 20,
    env: { RATELIMIT_IP_PER_MIN: '100000', RATELIMIT_PORTAL_PER_MIN: '100000', RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '100000', EVENTS_POLL_MS: '50' },
  });
  http = createApp(deps, { webDir }).callback();
  server = handlerServer(http);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  origin = new URL(deps.config.portalUrl).origin;
  keyPrincipal = await verifyCredential(deps.data.auth, deps.demo!.publishers[0]!.keys.live, ['api_key']);
}, 60_000);
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await deps?.close();
  rmSync(webDir, { recursive: true, force: true });
});

const API = '/portal/api';
const ACC = () => deps.demo!.publishers[0]!.account_id;
const OTHER = () => deps.demo!.publishers[1]!.account_id;

/** A signed-in browser: its cookie jar, and the cookie itself for a stream opened with fetch. */
async function signedIn(login = deps.demo!.publishers[0]!.portal_login) {
  const agent = request.agent(http);
  const res = await agent.post(`${API}/signin`).set('Origin', origin).send(login);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const cookie = (res.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]).join('; ');
  return { get: (path: string) => agent.get(`${API}${path}`), cookie };
}

let owner: Awaited<ReturnType<typeof signedIn>>;
beforeAll(async () => {
  owner = await signedIn();
});

/** Every row of a CSV answer, as records by column. */
function csvRows(text: string): Array<Record<string, string>> {
  return parse(text, { columns: true, skip_empty_lines: true }) as Array<Record<string, string>>;
}

/** Every page of a list, following next_cursor. */
async function everyPage<T>(path: string, query: Record<string, string>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await owner.get(path).query({ ...query, ...(cursor ? { cursor } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...(res.body.data as T[]));
    cursor = res.body.next_cursor ?? undefined;
    if (!cursor) return out;
  }
}

const json = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

describe('conversions', () => {
  it("answers each filter as the publisher API answers the account's key", async () => {
    const filters: Array<Record<string, string | number>> = [
      {},
      { status: 'approved' },
      { status: 'pending', page_size: 7 },
      { subid: 'newsletter' },
      { date_from: new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10), date_to: new Date().toISOString().slice(0, 10), status: 'declined' },
      { source: 'ledger' },
    ];
    for (const f of filters) {
      const portal = await owner.get(`/accounts/${ACC()}/conversions`).query(f);
      expect(portal.status, JSON.stringify(portal.body)).toBe(200);
      const input = { source: 'all' as const, page: 1, page_size: 50, ...f } as Parameters<typeof listConversions>[2];
      const apiAnswer = json(await listConversions(deps, keyPrincipal, input));
      expect(portal.body, JSON.stringify(f)).toEqual(apiAnswer);
      expect(portal.body.data.length, JSON.stringify(f)).toBeGreaterThan(0);
    }
  });

  it('pages by cursor through exactly the filtered rows, and refuses a cursor of another filter', async () => {
    const all = await everyPage<{ id: string; status: string }>(`/accounts/${ACC()}/conversions`, { status: 'approved', page_size: '10' });
    expect(all.length).toBeGreaterThan(10);
    expect(new Set(all.map((c) => c.id)).size).toBe(all.length);
    expect(all.every((c) => c.status === 'approved')).toBe(true);
    const first = await owner.get(`/accounts/${ACC()}/conversions`).query({ status: 'approved', page_size: 10 });
    expectErrorShape(await owner.get(`/accounts/${ACC()}/conversions`).query({ status: 'pending', cursor: first.body.next_cursor }), 400, 'invalid_parameter');
  });

  it('exports exactly the filtered list as CSV, money as decimal strings (a correction stays a negative number)', async () => {
    for (const f of [{}, { status: 'approved' }, { subid: 'sidebar', source: 'v1' }, { source: 'ledger' }] as Array<Record<string, string>>) {
      const res = await owner.get(`/accounts/${ACC()}/conversions/export`).query(f).buffer(true);
      expect(res.status, res.text).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="conversions-\d{4}-\d{2}-\d{2}\.csv"$/);
      const listed = await everyPage<Record<string, unknown>>(`/accounts/${ACC()}/conversions`, { ...f, page_size: '500' });
      const rows = csvRows(res.text);
      expect(rows.map((r) => r.id)).toEqual(listed.map((c) => c.id));
      for (const [i, c] of listed.entries()) {
        const r = rows[i]!;
        const merchant = c.merchant as { id: number; name: string } | null;
        expect(r).toEqual({
          id: c.id,
          status: c.status,
          subid: c.subid ?? '',
          sale_amount: c.sale_amount,
          commission: c.commission,
          currency: c.currency,
          merchant_id: merchant ? String(merchant.id) : '',
          merchant_name: merchant?.name ?? '',
          program_id: c.program_id === null ? '' : String(c.program_id),
          click_id: c.click_id ?? '',
          deeplink_id: c.deeplink_id ?? '',
          source: c.source,
          reason: (c.reason as string | null | undefined) ?? '',
          reversed: String(c.reversed),
          occurred_at: c.occurred_at,
          updated_at: c.updated_at,
        });
      }
    }
    const ledger = csvRows((await owner.get(`/accounts/${ACC()}/conversions/export`).query({ source: 'ledger' }).buffer(true)).text);
    expect(ledger.map((r) => r.commission)).toContain('-4.50');
  });

  it('neutralises a cell a spreadsheet would run, and refuses paging members and bad filters in the export', async () => {
    // A sub-ID cannot start with "=" (its pattern), a reason can: a correction booked with one.
    await bookLedgerEntry({ data: deps.data }, { publisherId: ACC(), amount: '1.00', currency: 'EUR', reason: '=HYPERLINK("http://x")', now: new Date() });
    const rows = csvRows((await owner.get(`/accounts/${ACC()}/conversions/export`).query({ source: 'ledger' }).buffer(true)).text);
    expect(rows.map((r) => r.reason)).toContain(`'=HYPERLINK("http://x")`);
    expectErrorShape(await owner.get(`/accounts/${ACC()}/conversions/export`).query({ page: 2 }), 400, 'unknown_parameter');
    expectErrorShape(await owner.get(`/accounts/${ACC()}/conversions/export`).query({ status: 'paid' }), 400, 'invalid_parameter');
    expectErrorShape(
      await owner.get(`/accounts/${ACC()}/conversions/export`).query({ date_from: '2030-02-01', date_to: '2030-01-01' }),
      400,
      'invalid_parameter',
    );
  });

  it('shows a conversion with its history, oldest first, each event as its postback and feed carry it', async () => {
    const list = await owner.get(`/accounts/${ACC()}/conversions`).query({ status: 'declined', page_size: 50 });
    const c = list.body.data[0];
    // The events feed first (reading it logs what was pending): the history carries the same ids.
    const feed: Array<{ id: string; conversion: { id: string } }> = [];
    for (let cursor: string | undefined, more = true; more;) {
      const page = await owner.get(`/accounts/${ACC()}/events`).query({ limit: 500, ...(cursor ? { cursor } : {}) });
      expect(page.status).toBe(200);
      feed.push(...page.body.data);
      cursor = page.body.next_cursor;
      more = page.body.has_more;
    }
    const res = await owner.get(`/accounts/${ACC()}/conversions/${c.id}`);
    expect(res.status).toBe(200);
    const { events, ...view } = res.body;
    expect(view).toEqual(c);
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events[0]).toMatchObject({ type: 'sale.created', event: 'created', status: 'pending' });
    expect(events.at(-1)).toMatchObject({ status: 'declined', event: expect.stringMatching(/^(declined|reversed)$/) });
    const times = events.map((e: { created_at: string }) => e.created_at);
    expect([...times].sort()).toEqual(times);
    const fromFeed = feed.filter((e) => e.conversion.id === c.id).map((e) => e.id);
    expect(events.map((e: { id: string }) => e.id)).toEqual(fromFeed);
    expect(events.every((e: { logged_at: string | null }) => e.logged_at !== null)).toBe(true);
  });

  it("answers 404 in the one error shape for another account's conversion, an unknown one, and another account", async () => {
    const theirs = await listConversions(deps, await verifyCredential(deps.data.auth, deps.demo!.publishers[1]!.keys.live, ['api_key']), {
      source: 'all',
      page: 1,
      page_size: 1,
    });
    const id = theirs.data[0]!.id;
    expectErrorShape(await owner.get(`/accounts/${ACC()}/conversions/${id}`), 404, 'not_found');
    expectErrorShape(await owner.get(`/accounts/${ACC()}/conversions/cnv_doesnotexist`), 404, 'not_found');
    expectErrorShape(await owner.get(`/accounts/${ACC()}/conversions/${'x'.repeat(300)}`), 404, 'not_found');
    for (const path of ['conversions', `conversions/${id}`, 'conversions/export', 'clicks', 'clicks/export', 'events', 'events/latest', 'events/stream'])
      expectErrorShape(await owner.get(`/accounts/${OTHER()}/${path}`), 404, 'not_found');
  });

  it('refuses bad input with 400 in the one error shape, naming the parameter', async () => {
    for (const [path, q, param, code] of [
      ['conversions', { status: 'paid' }, 'status'],
      ['conversions', { page_size: 501 }, 'page_size'],
      ['conversions', { date_from: 'yesterday' }, 'date_from'],
      ['conversions', { date_from: '2030-02-01', date_to: '2030-01-01' }, 'date_from'],
      ['conversions', { color: 'red' }, 'color', 'unknown_parameter'],
      ['clicks', { page_size: 201 }, 'page_size'],
      ['clicks', { campaign_id: 'abc' }, 'campaign_id'],
      ['clicks/export', { cursor: 'x' }, 'cursor', 'unknown_parameter'],
      ['events', { cursor: 'nope' }, 'cursor'],
    ] as Array<[string, Record<string, unknown>, string, string?]>) {
      const res = await owner.get(`/accounts/${ACC()}/${path}`).query(q);
      expectErrorShape(res, 400, code ?? 'invalid_parameter');
      expect(JSON.stringify(res.body.errors ?? res.body.detail), `${path} ${JSON.stringify(q)}`).toContain(param);
    }
  });

  it('takes no API key, only the session', async () => {
    const res = await request(http).get(`${API}/accounts/${ACC()}/conversions`).set('X-API-Key', deps.demo!.publishers[0]!.keys.live);
    expectErrorShape(res, 401, 'not_authenticated');
    expectErrorShape(await request(http).get(`${API}/accounts/${ACC()}/conversions/export`), 401, 'not_authenticated');
  });
});

describe('clicks', () => {
  it("answers each filter as the publisher API answers the account's key", async () => {
    const sample = (await listClicks(deps, keyPrincipal, { include_bots: false, page: 1, page_size: 1 })).data[0]!;
    const filters: Array<Record<string, string | number | boolean>> = [
      {},
      { include_bots: true, page_size: 200 },
      { sub_id: 'newsletter' },
      { campaign_id: String(sample.campaign_id) },
      { deeplink_id: sample.deeplink_id, include_bots: true },
    ];
    for (const f of filters) {
      const portal = await owner.get(`/accounts/${ACC()}/clicks`).query(f);
      expect(portal.status, JSON.stringify(portal.body)).toBe(200);
      const apiAnswer = json(await listClicks(deps, keyPrincipal, { include_bots: false, page: 1, page_size: 50, ...f } as Parameters<typeof listClicks>[2]));
      expect(portal.body, JSON.stringify(f)).toEqual(apiAnswer);
      expect(portal.body.data.length).toBeGreaterThan(0);
    }
  });

  it('exports exactly the filtered list as CSV, across many pages', async () => {
    for (const f of [{ include_bots: 'true' }, { sub_id: 'sidebar' }] as Array<Record<string, string>>) {
      const res = await owner.get(`/accounts/${ACC()}/clicks/export`).query(f).buffer(true);
      expect(res.status, res.text).toBe(200);
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="clicks-/);
      const listed = await everyPage<Record<string, unknown>>(`/accounts/${ACC()}/clicks`, { ...f, page_size: '200' });
      const rows = csvRows(res.text);
      expect(rows.length).toBe(listed.length);
      expect(rows.map((r) => r.id)).toEqual(listed.map((c) => c.id));
      for (const [i, c] of listed.entries())
        expect(rows[i]).toEqual({
          id: c.id,
          created_at: c.created_at,
          deeplink_id: c.deeplink_id,
          program_id: String(c.program_id),
          campaign_id: String(c.campaign_id),
          sub_id: c.sub_id ?? '',
          referrer: c.referrer ?? '',
          user_agent: c.user_agent ?? '',
          is_bot: String(c.is_bot),
          bot_reason: c.bot_reason ?? '',
        });
    }
    const all = csvRows((await owner.get(`/accounts/${ACC()}/clicks/export`).query({ include_bots: 'true' }).buffer(true)).text);
    expect(all.length).toBeGreaterThan(400);
    expect(all.some((r) => r.is_bot === 'true')).toBe(true);
  });
});

describe('live events', () => {
  it("streams a merchant's new sale and its approval to the account's page, from the latest cursor, once each", async () => {
    const latest = await owner.get(`/accounts/${ACC()}/events/latest`);
    expect(latest.status).toBe(200);
    expect(latest.body.cursor).toMatch(/^evc1_/);
    const got: SseMessage[] = [];
    const abort = new AbortController();
    const res = await fetch(`${base}${API}/accounts/${ACC()}/events/stream?cursor=${encodeURIComponent(latest.body.cursor)}`, {
      headers: { Cookie: owner.cookie, Accept: 'text/event-stream' },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reading = readEventStream(res.body, (m) => got.push(m));

    // A merchant reports a sale on a click of the account's link, then approves it.
    const [link] = await ensureLinks(
      deps.data.links,
      deps.config.secretKey,
      [{ publisherId: ACC(), programId: 1001, merchantId: 501, landingUrl: 'https://www.example.com/', subid: 'live-test' }],
      { source: 'api', listed: true },
    );
    const clickId = new ClickIds(deps.config.keys).next(link!.code, { isBot: false }, Date.now() - 1000);
    const sale = await recordSale(
      deps,
      { merchantId: 501, credentialId: 'test', prefix: 'test' },
      {
        click_id: clickId,
        order_id: `LIVE-${Date.now()}`,
        amount: '49.90',
        currency: 'EUR',
      },
    );
    expect(sale.created).toBe(true);
    await changeStatus(deps, sale.conversion._id, 'approved', { merchantId: 501 });

    const deadline = Date.now() + 5000;
    while (got.filter((m) => m.event).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    abort.abort();
    await reading;
    const events = got.filter((m) => m.event).map((m) => ({ id: m.id, event: m.event, body: JSON.parse(m.data!) }));
    expect(events.map((e) => e.event)).toEqual(['sale.created', 'sale.approved']);
    expect(events.map((e) => e.body.conversion.id)).toEqual([sale.conversion._id, sale.conversion._id]);
    expect(events[0]!.body.conversion).toMatchObject({ status: 'pending', sale_amount: '49.90', currency: 'EUR' });
    expect(events.every((e) => e.id?.startsWith('evc1_'))).toBe(true);

    // Resuming from the first event's id gives the second and nothing else.
    const page = await owner.get(`/accounts/${ACC()}/events`).query({ cursor: events[0]!.id });
    expect(page.body.data.map((e: { id: string }) => e.id)).toEqual([events[1]!.body.id]);
    // The conversion's page shows both.
    const detail = await owner.get(`/accounts/${ACC()}/conversions/${sale.conversion._id}`);
    expect(detail.body.events.map((e: { id: string }) => e.id)).toEqual(events.map((e) => e.body.id));
    expect(detail.body.status).toBe('approved');
  });

  it('refuses a stream without the session', async () => {
    const res = await fetch(`${base}${API}/accounts/${ACC()}/events/stream`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'not_authenticated', request_id: expect.any(String) });
  });
});
