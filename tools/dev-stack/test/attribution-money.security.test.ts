/**
 * An outsider's probe of the attribution and money-out features through HTTP and MCP: dates
 * JavaScript cannot read (a leap second) at the inquiries and the intake, an agent token sent with
 * many orders at once, inquiry fields a merchant reads, an Idempotency-Key replayed with another
 * body, one real click behind many made-up orders left for the response window, and another
 * account's payout statement and inquiry asked for over MCP. Every refusal is the one error shape,
 * never a 500.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { issueMerchantToken } from '@cw/auth';
import { decideOverdueInquiries } from '@cw/inquiries';
import { ensureLinks, signAttributionToken } from '@cw/links';
import { createTestDeps, expectErrorShape, handlerServer, type TestDeps } from '@cw-tools/testing';
import { createApp as mcpServer } from '@cw/app-mcp-server';
import { createApp as portalApp } from '@cw/app-portal';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp, type TrackerApp } from '@cw/app-tracker';

let deps: TestDeps;
let app: TrackerApp;
let tracker: ReturnType<TrackerApp['callback']>;
let publisher: ReturnType<TrackerApp['callback']>;
let merchant: string;
let linkCode: string;
let mcpUrl: string;
let portal: ReturnType<ReturnType<typeof portalApp>['callback']>;
const webDir = mkdtempSync(join(tmpdir(), 'h10-web-'));
const servers: http.Server[] = [];
const clients: Client[] = [];
let orders = 0;
let attacks = 0;
let held = 0;
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const DAY = 86_400_000;
const API = '/api/v1/publisher';

beforeAll(async () => {
  deps = await createTestDeps({
    seedProducts: 20,
    env: { RATELIMIT_IP_PER_MIN: '100000', RATELIMIT_LINKS_PER_MIN: '100000', RATELIMIT_REPORTING_PER_MIN: '100000', CLICK_FLUSH_INTERVAL_MS: '60000' },
  });
  app = createApp(deps);
  tracker = app.callback();
  publisher = publisherApi(deps).callback();
  merchant = (await issueMerchantToken(deps.data.auth, 501)).secret;
  [{ code: linkCode }] = await ensureLinks(
    deps.data.links,
    deps.config.secretKey,
    [{ publisherId: deps.demo!.publishers[0].account_id, programId: 1001, merchantId: 501, landingUrl: 'https://www.example.com/', subid: 'h10' }],
    { source: 'api', listed: true },
  );
  writeFileSync(join(webDir, 'index.html'), '<!doctype html><title>Portal</title>');
  portal = portalApp(deps, { webDir }).callback();
  const server = handlerServer(mcpServer(deps).callback());
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  mcpUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/mcp/`;
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
  await app?.clicks.close();
  await deps?.close();
  rmSync(webDir, { recursive: true, force: true });
  console.log(`security: ${attacks} attacks tried, ${held} held`);
});

/** Counts an attack, and that it held once its assertions pass. */
const attack = async (run: () => Promise<void>) => {
  attacks++;
  await run();
  held++;
};

const key = (i = 0) => deps.demo!.publishers[i]!.keys.live;
const file = (body: Record<string, unknown>, i = 0, idem?: string) => {
  const r = request(publisher).post(`${API}/inquiries/`).set('X-API-Key', key(i));
  return (idem ? r.set('Idempotency-Key', idem) : r).send(body);
};
const inquiry = (extra: Record<string, unknown> = {}) => ({
  program_id: 1001,
  order_id: `H10-INQ-${++orders}`,
  occurred_at: new Date().toISOString(),
  amount: '25.00',
  currency: 'EUR',
  ...extra,
});
const report = (body: Record<string, unknown>) => request(tracker).post('/api/v1/track/conversions/').set('Authorization', `Bearer ${merchant}`).send(body);
const sale = (extra: Record<string, unknown>) => ({ order_id: `H10-ORD-${++orders}`, amount: '10.00', currency: 'EUR', ...extra });
const token = () =>
  signAttributionToken(deps.config.keys, { merchantId: 501, programId: 1001, publisherId: deps.demo!.publishers[0].account_id, productId: 'p_h10', subid: '' });
const verify = (t: string) => request(tracker).post('/api/v1/track/attributions/verify').set('Authorization', `Bearer ${merchant}`).send({ token: t });

async function mcpAs(i: number) {
  const client = new Client({ name: 'h10-probe', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { 'X-API-Key': key(i) } } }));
  clients.push(client);
  return (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
}
const mcpError = (r: CallToolResult) => (r._meta as { error?: { code: string } } | undefined)?.error?.code;

describe('dates JavaScript cannot read', () => {
  it('refuses a leap second (23:59:60) with 400 naming occurred_at at the inquiries and the intake, and the token sent with it stays unspent', async () => {
    await attack(async () => {
      const day = new Date().toISOString().slice(0, 10);
      for (const at of [`${day}T00:00:60Z`, `${new Date(Date.now() - DAY).toISOString().slice(0, 10)}T23:59:60Z`]) {
        const filed = await file(inquiry({ occurred_at: at }));
        expectErrorShape(filed, 400, 'invalid_parameter');
        expect(filed.body.errors[0].param).toBe('occurred_at');
        const t = token();
        const reported = await report(sale({ attribution_token: t, occurred_at: at }));
        expectErrorShape(reported, 400, 'invalid_parameter');
        expect(reported.body.errors[0].param).toBe('occurred_at');
        expect((await verify(t)).body).toMatchObject({ valid: true, spent: false });
        expect((await report(sale({ attribution_token: t }))).status).toBe(201);
      }
    });
  });
});

describe('agent attribution tokens', () => {
  it('credit exactly one of six different orders sent at the same moment with the same token', async () => {
    await attack(async () => {
      const t = token();
      const answers = await Promise.all(Array.from({ length: 6 }, () => report(sale({ attribution_token: t }))));
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 201)) expectErrorShape(a, 422, 'attribution_invalid');
      expect(await deps.models.Conversion.countDocuments({ channel: 'agent', order_ref: { $in: answers.map((a) => a.body.order_id).filter(Boolean) } })).toBe(
        1,
      );
    });
  });
});

describe('inquiries a merchant reads', () => {
  it.each([
    ['a negative amount', { amount: '-25.00' }, 'amount'],
    ['an amount as a number', { amount: 25.5 }, 'amount'],
    ['an amount in exponent form', { amount: '1e9' }, 'amount'],
    ['an amount beyond twelve digits', { amount: '9'.repeat(40) }, 'amount'],
    ['more decimals than the currency has', { amount: '25.001' }, 'amount'],
    ['decimals in a currency without minor units', { amount: '25.5', currency: 'JPY' }, 'amount'],
    ['a zero amount', { amount: '0.00' }, 'amount'],
    ['an order dated in the future', { occurred_at: new Date(Date.now() + 2 * DAY).toISOString() }, 'occurred_at'],
    ['an order older than 90 days', { occurred_at: '2000-01-01T00:00:00Z' }, 'occurred_at'],
    ['a note with a right-to-left override', { note: 'Order 4471 \u202Egnp.exe' }, 'note'],
    ['a note with a line break', { note: 'first\r\nX-Injected: yes' }, 'note'],
    ['a note with NUL', { note: 'a\u0000b' }, 'note'],
    ['a note of 1,001 characters', { note: 'n'.repeat(1001) }, 'note'],
    ['an order id with a bidi override', { order_id: 'ORD-1\u202E0001' }, 'order_id'],
    ['an order id with a control character', { order_id: 'ORD-\u0007-2' }, 'order_id'],
    ['a field the form does not have', { publisher_id: 'pub_someone_else' }, 'publisher_id'],
  ])('refuse %s with 400 naming the field', async (_what, extra, param) => {
    await attack(async () => {
      const res = await file(inquiry(extra));
      expect([400]).toContain(res.status);
      expect(res.body.code).toMatch(/^(invalid|unknown)_parameter$/);
      expect(res.body.errors[0].param).toBe(param);
      expect(res.body.request_id).toMatch(/^req_/);
    });
  });

  it('replays the first answer for the same Idempotency-Key and body, and refuses another body under it (409), filing nothing', async () => {
    await attack(async () => {
      const body = inquiry();
      const first = await file(body, 0, 'h10-inquiry-key');
      expect(first.status).toBe(201);
      const again = await file(body, 0, 'h10-inquiry-key');
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      const other = inquiry();
      expectErrorShape(await file(other, 0, 'h10-inquiry-key'), 409, 'idempotency_key_reused');
      expect(await deps.models.Inquiry.countDocuments({ order_id: other.order_id })).toBe(0);
      // Codes: the same.
      const ask = (code: string) =>
        request(publisher).post(`${API}/codes/`).set('X-API-Key', key()).set('Idempotency-Key', 'h10-code-key').send({ program_id: 1001, code });
      expect((await ask('HTENFIRST1')).status).toBe(201);
      expectErrorShape(await ask('HTENOTHER2'), 409, 'idempotency_key_reused');
      expect(
        (await request(publisher).get(`${API}/codes/?program_id=1001`).set('X-API-Key', key())).body.data.map((c: { code: string }) => c.code),
      ).not.toContain('HTENOTHER2');
    });
  });

  it('one real click behind many made-up orders: the response window accepts one of them, not all', async () => {
    await attack(async () => {
      const res = await request(tracker).get(`/c/${linkCode}`).set('User-Agent', BROWSER);
      expect(res.status).toBe(302);
      await app.clicks.flush();
      const clickId = new URL(res.headers.location).searchParams.get('cw_click_id')!;
      const made = [];
      for (let i = 0; i < 4; i++) {
        const r = await file(inquiry({ click_id: clickId, amount: '999999999999.00' }));
        expect(r.status).toBe(201);
        expect(r.body.evidence.clicks).toContainEqual(expect.objectContaining({ click_id: clickId, verified: true }));
        made.push(r.body.id as string);
      }
      // Nobody answers; the window passes (earlier open inquiries of this file are decided too).
      await decideOverdueInquiries(deps, new Date(Date.now() + 31 * DAY), 1000);
      const decided = await Promise.all(made.map(async (id) => (await request(publisher).get(`${API}/inquiries/${id}/`).set('X-API-Key', key())).body));
      expect(decided.filter((d) => d.status === 'accepted')).toHaveLength(1);
      expect(decided.filter((d) => d.status === 'rejected')).toHaveLength(3);
      for (const d of decided.filter((x) => x.status === 'rejected')) expect(d).toMatchObject({ reason: 'other', decided_by: 'window', conversion_id: null });
    });
  });
});

describe('evidence and credentials', () => {
  it("leave out another publisher's click named as evidence, and the window rejects on it alone", async () => {
    await attack(async () => {
      // publishers[1]'s own link and click on the same program.
      const [{ code: theirs }] = await ensureLinks(
        deps.data.links,
        deps.config.secretKey,
        [{ publisherId: deps.demo!.publishers[1].account_id, programId: 1001, merchantId: 501, landingUrl: 'https://www.example.com/', subid: 'h10-other' }],
        { source: 'api', listed: true },
      );
      const res = await request(tracker).get(`/c/${theirs}`).set('User-Agent', BROWSER);
      await app.clicks.flush();
      const stolenClick = new URL(res.headers.location).searchParams.get('cw_click_id')!;
      // Filed by publishers[0] at a time its own clicks are outside the window.
      const filed = await file(inquiry({ click_id: stolenClick, occurred_at: new Date(Date.now() - 80 * DAY).toISOString() }));
      expect(filed.status).toBe(201);
      expect(JSON.stringify(filed.body.evidence)).not.toContain(stolenClick);
      await decideOverdueInquiries(deps, new Date(Date.now() + 31 * DAY), 1000);
      const decided = (await request(publisher).get(`${API}/inquiries/${filed.body.id}/`).set('X-API-Key', key())).body;
      expect(decided).toMatchObject({ status: 'rejected', reason: 'outside_window', conversion_id: null });
    });
  });

  it("refuse a publisher's key on the merchant's endpoints and a merchant's token on the publisher's, 401 in the one shape", async () => {
    await attack(async () => {
      const asMerchant = (path: string, method: 'get' | 'post' = 'get') =>
        request(tracker)
          [method](`/api/v1/track/${path}`)
          .set('Authorization', `Bearer ${key()}`)
          .send(method === 'post' ? { token: token() } : undefined);
      for (const r of [
        await asMerchant('inquiries/'),
        await asMerchant('attributions/verify', 'post'),
        await asMerchant('inquiries/inq_0000000000000000000000/accept', 'post'),
      ])
        expectErrorShape(r, 401);
      for (const path of ['/inquiries/', '/codes/', '/payouts/', '/balance/transactions/'])
        expectErrorShape(await request(publisher).get(`${API}${path}`).set('X-API-Key', merchant), 401);
      expectErrorShape(await request(publisher).get(`${API}/inquiries/`).set('Authorization', `Bearer ${merchant}`), 401);
    });
  });
});

describe("the portal's tax and operator routes", () => {
  it("take no API key or merchant token: the tax profile, the year-end files and a statement's download are 401 to them", async () => {
    await attack(async () => {
      const acc = deps.demo!.publishers[0].account_id;
      const origin = new URL(deps.config.portalUrl).origin;
      const year = new Date().getUTCFullYear();
      const paths = [
        `/accounts/${acc}/tax-profile`,
        `/operator/tax/year-end/${year}`,
        `/operator/tax/year-end/${year}/files/1099-nec-${year}.csv`,
        `/accounts/${acc}/payouts/po_000000000000000000000000/statement`,
      ];
      for (const path of paths)
        for (const [header, value] of [
          ['X-API-Key', key()],
          ['Authorization', `Bearer ${key()}`],
          ['Authorization', `Bearer ${merchant}`],
        ] as const) {
          const res = await request(portal).get(`/portal/api${path}`).set(header, value);
          expect(res.status, `${path} with ${header}`).toBe(401);
          expect(res.body.code).toBe('not_authenticated');
          expect(res.text).not.toMatch(/tin|1099-nec,|legal_name/i);
        }
      const put = await request(portal)
        .put(`/portal/api/accounts/${acc}/tax-profile`)
        .set('X-API-Key', key())
        .set('Origin', origin)
        .send({ kind: 'individual' });
      expectErrorShape(put, 401, 'not_authenticated');
    });
  });
});

describe('over MCP', () => {
  it("answers another account's payout statement and inquiry as not found, like unknown ones", async () => {
    await attack(async () => {
      const requested = await request(publisher).post(`${API}/payouts/`).set('X-API-Key', key()).send({});
      expect(requested.status, requested.text).toBe(201);
      const mine = await mcpAs(0);
      const theirs = await mcpAs(1);
      expect(mcpError(await mine('get_payout_statement', { id: requested.body.id }))).toBe('statement_not_issued');
      const stolen = await theirs('get_payout_statement', { id: requested.body.id });
      expect(stolen.isError).toBe(true);
      expect(mcpError(stolen)).toBe('not_found');
      expect(mcpError(await theirs('get_payout_statement', { id: 'po_000000000000000000000000' }))).toBe('not_found');
      expect(JSON.stringify(stolen)).not.toContain(deps.demo!.publishers[0].account_id);

      const filed = await file(inquiry());
      expect(filed.status).toBe(201);
      const listed = await theirs('list_inquiries', {});
      expect(JSON.stringify(listed.structuredContent)).not.toContain(filed.body.id);
      expect((await request(publisher).get(`${API}/inquiries/${filed.body.id}/`).set('X-API-Key', key(1))).status).toBe(404);
      // A leap second over MCP is refused naming the field (the SDK's own check), never an internal error.
      const leap = await mine('file_inquiry', inquiry({ occurred_at: '2025-12-31T23:59:60Z' }));
      expect(leap.isError).toBe(true);
      expect(JSON.stringify(leap)).toContain('occurred_at');
      expect(mcpError(leap)).not.toBe('internal_error');
    });
  });
});
