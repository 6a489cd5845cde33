/**
 * Merchant conversion intake and status changes through HTTP, against the real engine: a real
 * click, a merchant's sale on it, approval and reversal, each visible to the publisher with exact
 * money; duplicate and concurrent intake; every transition's event recorded exactly once.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueMerchantToken } from '@cw/auth';
import { keyRing } from '@cw/config';
import { ClickIds, ensureLinks } from '@cw/links';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp, type TrackerApp } from '@cw/app-tracker';

let deps: TestDeps;
let app: TrackerApp;
let tracker: ReturnType<TrackerApp['callback']>;
let publisher: ReturnType<TrackerApp['callback']>;
let token: string;
let otherMerchantToken: string;
let code: string;
/** A second link, so the tests of signed click ids stay under the per-link click rate that flags bots. */
let code2: string;
let key: string;
let otherKey: string;
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
let orders = 0;

beforeAll(async () => {
  deps = await createTestDeps({
    seedProducts: 20,
    env: { RATELIMIT_IP_PER_MIN: '100000', RATELIMIT_REPORTING_PER_MIN: '100000', RATELIMIT_ACCOUNT_PER_MIN: '100000', CLICK_FLUSH_INTERVAL_MS: '60000' },
  });
  app = createApp(deps);
  tracker = app.callback();
  publisher = publisherApi(deps).callback();
  // Program 1001 (merchant 501, 8% of the sale) is approved for publishers[0].
  token = (await issueMerchantToken(deps.data.auth, 501)).secret;
  otherMerchantToken = (await issueMerchantToken(deps.data.auth, 502)).secret;
  key = deps.demo!.publishers[0].keys.live;
  otherKey = deps.demo!.publishers[1].keys.live;
  [{ code }, { code: code2 }] = await ensureLinks(
    deps.data.links,
    deps.config.secretKey,
    ['conv-test', 'conv-test-2'].map((subid) => ({
      publisherId: deps.demo!.publishers[0].account_id,
      programId: 1001,
      merchantId: 501,
      landingUrl: 'https://www.example.com/',
      subid,
    })),
    { source: 'api', listed: true },
  );
});
afterAll(async () => {
  await app?.clicks.close();
  await deps?.close();
});

async function newClick(ua = BROWSER, link = code): Promise<string> {
  const res = await request(tracker).get(`/c/${link}`).set('User-Agent', ua);
  expect(res.status).toBe(302);
  await app.clicks.flush();
  return new URL(res.headers.location).searchParams.get('cw_click_id')!;
}

const report = (body: Record<string, unknown>, bearer = token) =>
  request(tracker).post('/api/v1/track/conversions/').set('Authorization', `Bearer ${bearer}`).send(body);
const patch = (id: string, status: string, bearer = token) =>
  request(tracker).patch(`/api/v1/track/conversions/${id}/`).set('Authorization', `Bearer ${bearer}`).send({ status });
const sale = (clickId: string, extra: Record<string, unknown> = {}) => ({
  click_id: clickId,
  order_id: `ORD-${++orders}`,
  amount: '123.45',
  currency: 'EUR',
  ...extra,
});
const eventsOf = async (id: string) => ((await deps.models.Conversion.findById(id).lean())!.events ?? []).map((e) => e.type);

describe('POST /api/v1/track/conversions/', () => {
  it('turns a click into a pending conversion with the exact commission, then answers 200 with the same conversion for the same order', async () => {
    const clickId = await newClick();
    const body = sale(clickId);
    const first = await report(body);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      order_id: body.order_id,
      click_id: clickId,
      program_id: 1001,
      status: 'pending',
      sale_amount: '123.45',
      commission: '9.88',
      currency: 'EUR',
    });
    const again = await report({ ...body, amount: '999.00' });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.sale_amount).toBe('123.45');
    expect(await eventsOf(first.body.id)).toEqual(['sale.created']);
    const stored = await deps.models.Conversion.findById(first.body.id).lean();
    expect(stored).toMatchObject({ publisher_id: deps.demo!.publishers[0].account_id, subid: 'conv-test', link_id: code });
  });

  it('makes exactly one conversion from concurrent reports of one order', async () => {
    const body = sale(await newClick());
    const answers = await Promise.all(Array.from({ length: 12 }, () => report(body)));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    expect(answers.every((r) => r.status === 201 || r.status === 200)).toBe(true);
    expect(new Set(answers.map((r) => r.body.id)).size).toBe(1);
    expect(await deps.models.Conversion.countDocuments({ order_ref: body.order_id })).toBe(1);
    expect(await eventsOf(answers[0].body.id)).toEqual(['sale.created']);
  });

  it("refuses a click that is not on the merchant's programs, unknown, a bot's, or older than the cookie window", async () => {
    const clickId = await newClick();
    expectErrorShape(await report(sale(clickId), otherMerchantToken), 404, 'click_not_found');
    expectErrorShape(await report(sale('clk_doesnotexist0000')), 404, 'click_not_found');
    expectErrorShape(await report(sale(await newClick('curl/8.5.0'))), 422, 'click_is_bot');
    // The click's time is signed into its id: a click id minted 31 days ago is past the 30-day window.
    const old = new ClickIds(deps.config.keys).next(code, { isBot: false }, Date.now() - 31 * 86_400_000);
    expectErrorShape(await report(sale(old)), 422, 'click_expired');
    expect(await deps.models.Conversion.countDocuments({ click_id: { $in: [old] } })).toBe(0);
  });

  it('converts a click the moment its redirect answered, on another tracker instance, before the click row is written', async () => {
    const other = createApp(deps);
    try {
      const before = (await deps.data.links.storedClicks({})).length;
      const redirect = await request(tracker).get(`/c/${code2}`).set('User-Agent', BROWSER);
      const clickId = new URL(redirect.headers.location).searchParams.get('cw_click_id')!;
      const res = await request(other.callback()).post('/api/v1/track/conversions/').set('Authorization', `Bearer ${token}`).send(sale(clickId));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ click_id: clickId, program_id: 1001, status: 'pending' });
      expect((await deps.data.links.storedClicks({})).length).toBe(before);
      expect(await deps.models.Conversion.findById(res.body.id).lean()).toMatchObject({
        publisher_id: deps.demo!.publishers[0].account_id,
        subid: 'conv-test-2',
        link_id: code2,
        campaign_id: 501,
      });
    } finally {
      await other.clicks.close();
    }
  });

  it("refuses a tampered click id, another platform's, and a link preview's (HEAD records no click)", async () => {
    const clickId = await newClick(BROWSER, code2);
    const flipped = clickId.slice(0, 10) + (clickId[10] === 'A' ? 'B' : 'A') + clickId.slice(11);
    expectErrorShape(await report(sale(flipped)), 404, 'click_not_found');
    expectErrorShape(await report(sale(new ClickIds(keyRing(Buffer.alloc(32, 9))).next(code2, { isBot: false }))), 404, 'click_not_found');
    const preview = await request(tracker).head(`/c/${code2}`).set('User-Agent', BROWSER);
    expectErrorShape(await report(sale(new URL(preview.headers.location).searchParams.get('cw_click_id')!)), 404, 'click_not_found');
  });

  it('still converts clicks stored under ids from before click ids were signed', async () => {
    await deps.models.Click.create({
      _id: 'clk_legacy0000000001',
      link_id: code2,
      publisher_id: deps.demo!.publishers[0].account_id,
      program_id: 1001,
      campaign_id: 501,
      subid: 'conv-test-2',
      created_at: new Date(),
      user_agent: BROWSER,
      ip_hash: '0'.repeat(32),
      referrer: '',
      is_bot: false,
    });
    const res = await report(sale('clk_legacy0000000001'));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ click_id: 'clk_legacy0000000001', status: 'pending' });
  });

  it('answers 400 naming the member for bad amounts, currencies, order ids, dates and unknown members', async () => {
    const clickId = await newClick();
    for (const [body, param] of [
      [sale(clickId, { amount: '-1.00' }), 'amount'],
      [sale(clickId, { amount: '1.2.3' }), 'amount'],
      [sale(clickId, { amount: 12.5 }), 'amount'],
      [sale(clickId, { currency: 'XYZ' }), 'currency'],
      [sale(clickId, { currency: 'eur' }), 'currency'],
      [sale(clickId, { amount: '1.999' }), 'amount'],
      [sale(clickId, { order_id: 'x'.repeat(129) }), 'order_id'],
      [sale(clickId, { order_id: '' }), 'order_id'],
      [sale(clickId, { occurred_at: 'yesterday' }), 'occurred_at'],
      [sale(clickId, { occurred_at: new Date(Date.now() + 86_400_000).toISOString() }), 'occurred_at'],
      [sale(clickId, { coupon: 'X' }), 'coupon'],
      [{ order_id: 'A', amount: '1.00', currency: 'EUR' }, 'click_id'],
    ] as const) {
      const res = await report(body);
      expectErrorShape(res, 400);
      expect(res.body.errors.map((e: { param: string }) => e.param)).toContain(param);
    }
    expect(await deps.models.Conversion.countDocuments({ click_id: clickId })).toBe(0);
  });

  it('accepts only a merchant token: API keys, other credentials and none are 401', async () => {
    const body = sale(await newClick());
    for (const bearer of [
      key,
      deps.demo!.publishers[0].reporting_token,
      deps.demo!.publishers[0].portal_token,
      'mrc_notarealtoken000000000000000000000000000',
    ]) {
      expectErrorShape(await report(body, bearer), 401, 'not_authenticated');
    }
    expectErrorShape(await request(tracker).post('/api/v1/track/conversions/').send(body), 401, 'not_authenticated');
    expectErrorShape(await request(tracker).post('/api/v1/track/conversions/').set('X-API-Key', token).send(body), 401, 'not_authenticated');
  });

  it('does not let a merchant token authenticate on the publisher API', async () => {
    expectErrorShape(await request(publisher).get('/api/v1/publisher/me/').set('Authorization', `Bearer ${token}`), 401, 'not_authenticated');
  });
});

describe('PATCH /api/v1/track/conversions/{id}/', () => {
  it('approves, then reverses; each change shows in conversions, reports and payment status with exact money, and records one event', async () => {
    const before = await request(publisher).get('/api/v1/publisher/payment-status/').set('X-API-Key', key);
    const approvedBefore = before.body.approved_unpaid.by_currency.find((b: { currency: string }) => b.currency === 'EUR')?.amount ?? '0.00';
    const created = (await report(sale(await newClick(), { amount: '250.00' }))).body;
    expect(created.commission).toBe('20.00');

    const approved = await patch(created.id, 'approved');
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ id: created.id, status: 'approved', reversed: false });
    const listed = await request(publisher).get(`/api/v1/publisher/conversions/?subid=conv-test&status=approved&page_size=500`).set('X-API-Key', key);
    expect(listed.status).toBe(200);
    const mine = listed.body.data.find((c: { id: string }) => c.id === created.id);
    expect(mine).toMatchObject({
      status: 'approved',
      subid: 'conv-test',
      sale_amount: '250.00',
      commission: '20.00',
      currency: 'EUR',
      program_id: 1001,
      campaign_id: 501,
      click_id: created.click_id,
      deeplink_id: code,
      source: 'v1',
    });
    expect(mine.merchant).toEqual({ id: 501, name: expect.any(String) });
    expect(JSON.stringify(mine)).not.toContain(created.order_id);
    const after = await request(publisher).get('/api/v1/publisher/payment-status/').set('X-API-Key', key);
    const approvedAfter = after.body.approved_unpaid.by_currency.find((b: { currency: string }) => b.currency === 'EUR').amount;
    expect(Number(approvedAfter) * 100 - Number(approvedBefore) * 100).toBeCloseTo(2000, 6);
    const today = new Date().toISOString().slice(0, 10);
    const day = await request(publisher)
      .get(`/api/v1/publisher/reports/?group_by=status&date_from=${today}&date_to=${today}&subid=conv-test`)
      .set('X-API-Key', key);
    expect(day.body.rows.find((r: { key: string }) => r.key === 'approved').commission.EUR).toBe('20.00');

    const reversed = await patch(created.id, 'declined');
    expect(reversed.body).toMatchObject({ status: 'declined', reversed: true });
    expectErrorShape(await patch(created.id, 'approved'), 409, 'invalid_transition');
    expectErrorShape(await patch(created.id, 'declined'), 409, 'invalid_transition');
    expect(await eventsOf(created.id)).toEqual(['sale.created', 'sale.approved', 'sale.reversed']);
    const final = await request(publisher).get('/api/v1/publisher/payment-status/').set('X-API-Key', key);
    expect(final.body.approved_unpaid.by_currency.find((b: { currency: string }) => b.currency === 'EUR')?.amount ?? '0.00').toBe(approvedBefore);
  });

  it('declines a pending conversion once; concurrent approvals make one change and one event', async () => {
    const a = (await report(sale(await newClick()))).body;
    expect((await patch(a.id, 'declined')).body).toMatchObject({ status: 'declined', reversed: false });
    expect(await eventsOf(a.id)).toEqual(['sale.created', 'sale.declined']);
    const b = (await report(sale(await newClick()))).body;
    const answers = await Promise.all(Array.from({ length: 8 }, () => patch(b.id, 'approved')));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 409)).toHaveLength(7);
    expect(await eventsOf(b.id)).toEqual(['sale.created', 'sale.approved']);
  });

  it("finds only the merchant's own conversions and validates the body", async () => {
    const c = (await report(sale(await newClick()))).body;
    expectErrorShape(await patch(c.id, 'approved', otherMerchantToken), 404, 'not_found');
    expectErrorShape(await patch('cnv_unknown', 'approved'), 404, 'not_found');
    expectErrorShape(await patch(c.id, 'paid'), 400, 'invalid_parameter');
    expectErrorShape(await patch(c.id, 'approved', key), 401, 'not_authenticated');
    expect((await deps.models.Conversion.findById(c.id).lean())!.status).toBe('pending');
  });

  it("keeps the other publisher's conversions out of this publisher's views", async () => {
    const res = await request(publisher).get('/api/v1/publisher/conversions/?subid=conv-test&page_size=500').set('X-API-Key', otherKey);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });
});
