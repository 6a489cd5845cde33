/**
 * Missing-sale inquiries through HTTP against the real engine: a publisher files one and gets the
 * platform's evidence (its real, signed click verified); the merchant accepts it and the sale
 * appears in the publisher's conversions with channel inquiry; an order already credited is a
 * conflict; rejections carry their reason; another merchant or publisher cannot see or decide
 * it; the publisher's POST is idempotent; the response window's job decides what nobody did.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueMerchantToken } from '@cw/auth';
import { ensureLinks } from '@cw/links';
import { decideOverdueInquiries, operatorDecideInquiry, operatorListInquiries } from '@cw/inquiries';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp, type TrackerApp } from '@cw/app-tracker';

let deps: TestDeps;
let app: TrackerApp;
let tracker: ReturnType<TrackerApp['callback']>;
let publisher: ReturnType<TrackerApp['callback']>;
let merchant: string;
let otherMerchant: string;
let key: string;
let otherKey: string;
let code: string;
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const DAY = 86_400_000;
let orders = 0;

beforeAll(async () => {
  deps = await createTestDeps({
    seedProducts: 20,
    env: { RATELIMIT_IP_PER_MIN: '100000', RATELIMIT_LINKS_PER_MIN: '100000', RATELIMIT_REPORTING_PER_MIN: '100000', CLICK_FLUSH_INTERVAL_MS: '60000' },
  });
  app = createApp(deps);
  tracker = app.callback();
  publisher = publisherApi(deps).callback();
  // Program 1001 (merchant 501, 8% of the sale) is approved for publishers[0] and publishers[1].
  merchant = (await issueMerchantToken(deps.data.auth, 501)).secret;
  otherMerchant = (await issueMerchantToken(deps.data.auth, 502)).secret;
  key = deps.demo!.publishers[0].keys.live;
  otherKey = deps.demo!.publishers[1].keys.live;
  [{ code }] = await ensureLinks(
    deps.data.links,
    deps.config.secretKey,
    [{ publisherId: deps.demo!.publishers[0].account_id, programId: 1001, merchantId: 501, landingUrl: 'https://www.example.com/', subid: 'inq-test' }],
    { source: 'api', listed: true },
  );
});
afterAll(async () => {
  await app?.clicks.close();
  await deps?.close();
});

/** A real click through the tracker, stored. */
async function newClick(): Promise<string> {
  const res = await request(tracker).get(`/c/${code}`).set('User-Agent', BROWSER);
  expect(res.status).toBe(302);
  await app.clicks.flush();
  return new URL(res.headers.location).searchParams.get('cw_click_id')!;
}

const file = (body: Record<string, unknown>, apiKey = key, idem?: string) => {
  const r = request(publisher).post('/api/v1/publisher/inquiries/').set('X-API-Key', apiKey);
  return (idem ? r.set('Idempotency-Key', idem) : r).send(body);
};
const inquiry = (extra: Record<string, unknown> = {}) => ({
  program_id: 1001,
  order_id: `INQ-${Date.now()}-${++orders}`,
  // Now: after the clicks the tests made before filing.
  occurred_at: new Date().toISOString(),
  amount: '250.00',
  currency: 'EUR',
  ...extra,
});
const track = (method: 'get' | 'post', path: string, bearer = merchant) =>
  request(tracker)[method](`/api/v1/track/inquiries/${path}`).set('Authorization', `Bearer ${bearer}`);

describe('POST /inquiries/', () => {
  it("attaches the publisher's click on the program before the order, its signature verified", async () => {
    const clickId = await newClick();
    const res = await file(inquiry({ note: 'Customer showed us the confirmation mail.' }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'open', program_id: 1001, amount: '250.00', currency: 'EUR', reason: null, conversion_id: null });
    expect(res.body.id).toMatch(/^inq_/);
    expect(new Date(res.body.respond_by).getTime()).toBeGreaterThan(Date.now() + 29 * DAY);
    expect(res.body.evidence.clicks).toContainEqual({ click_id: clickId, clicked_at: expect.any(String), verified: true });
  });

  it('answers the first inquiry again (200) when the same order is filed twice', async () => {
    const body = inquiry();
    const first = await file(body);
    const again = await file({ ...body, amount: '1.00' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.amount).toBe('250.00');
  });

  it('replays the stored answer for the same Idempotency-Key and refuses another body under it', async () => {
    const body = inquiry();
    const first = await file(body, key, `idem-${orders}`);
    const replay = await file(body, key, `idem-${orders}`);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    expectErrorShape(await file({ ...body, amount: '9.00' }, key, `idem-${orders}`), 409, 'idempotency_key_reused');
  });

  it('names the field of every bad input with a 4xx', async () => {
    const res = await file(inquiry({ occurred_at: new Date(Date.now() + DAY).toISOString() }));
    expectErrorShape(res, 400, 'invalid_parameter');
    expect(res.body.errors[0].param).toBe('occurred_at');
    const old = await file(inquiry({ occurred_at: new Date(Date.now() - 91 * DAY).toISOString() }));
    expectErrorShape(old, 400, 'invalid_parameter');
    expect(old.body.detail).toContain('90 days');
    expect((await file(inquiry({ amount: '0.00' }))).body.errors[0].param).toBe('amount');
    expect((await file(inquiry({ amount: '-5' }))).status).toBe(400);
    expect((await file(inquiry({ amount: '1.999' }))).body.errors[0].param).toBe('amount');
    expect((await file(inquiry({ currency: 'XXY' }))).status).toBe(400);
    expect((await file(inquiry({ note: 'line\nbreak' }))).status).toBe(400);
    expect((await file({ program_id: 1001 })).status).toBe(400);
    expectErrorShape(await file(inquiry({ program_id: deps.demo!.fixtures.joinable_program_id })), 403, 'program_not_approved');
    expectErrorShape(await file(inquiry({ program_id: 999_999 })), 404, 'not_found');
  });

  it('refuses an order already credited to this publisher with 409 order_already_credited', async () => {
    const order = `CREDITED-${++orders}`;
    const sale = await request(tracker)
      .post('/api/v1/track/conversions/')
      .set('Authorization', `Bearer ${merchant}`)
      .send({ click_id: await newClick(), order_id: order, amount: '10.00', currency: 'EUR' });
    expect(sale.status).toBe(201);
    expectErrorShape(await file(inquiry({ order_id: order })), 409, 'order_already_credited');
  });

  it('refuses test and read-only keys', async () => {
    expectErrorShape(await file(inquiry(), deps.demo!.publishers[0].keys.test), 403, 'credential_not_allowed');
    expectErrorShape(await file(inquiry(), deps.demo!.publishers[0].keys.read_only), 403, 'credential_not_allowed');
  });
});

describe('the merchant decides', () => {
  it('accepts: a pending conversion with channel inquiry appears in the publisher’s /conversions/', async () => {
    const clickId = await newClick();
    const filed = (await file(inquiry())).body;
    const open = await track('get', '?status=open');
    expect(open.status).toBe(200);
    expect(open.body.data.map((i: { id: string }) => i.id)).toContain(filed.id);
    expect(open.body.data.find((i: { id: string }) => i.id === filed.id)).not.toHaveProperty('publisher_id');

    const accepted = await track('post', `${filed.id}/accept`).send({});
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'accepted', decided_by: 'merchant' });
    expect(accepted.body.conversion_id).toMatch(/^cnv_/);

    const list = await request(publisher).get('/api/v1/publisher/conversions/?channel=inquiry').set('X-API-Key', key);
    expect(list.status).toBe(200);
    const conversion = list.body.data.find((c: { id: string }) => c.id === accepted.body.conversion_id);
    expect(conversion).toMatchObject({
      channel: 'inquiry',
      status: 'pending',
      sale_amount: '250.00',
      commission: '20.00',
      click_id: clickId,
      subid: 'inq-test',
    });
    const mine = await request(publisher).get(`/api/v1/publisher/inquiries/${filed.id}/`).set('X-API-Key', key);
    expect(mine.body).toMatchObject({ status: 'accepted', conversion_id: accepted.body.conversion_id });
    // A decision stands.
    expectErrorShape(await track('post', `${filed.id}/reject`).send({ reason: 'other' }), 409, 'invalid_transition');
    // The decision is an event of the account's log (the feed appends pending events as it is read).
    let events: Array<{ type: string; inquiry?: { id: string; conversion_id: string } }> = [];
    for (let cursor: string | null | undefined, more = true; more;) {
      const page = await request(publisher)
        .get(`/api/v1/publisher/events/?limit=500${cursor ? `&cursor=${cursor}` : ''}`)
        .set('X-API-Key', key);
      expect(page.status).toBe(200);
      events = events.concat(page.body.data ?? page.body.events);
      cursor = page.body.next_cursor;
      more = !!page.body.has_more;
    }
    expect(events.find((e) => e.type === 'inquiry.accepted' && e.inquiry?.id === filed.id)).toMatchObject({
      inquiry: { status: 'accepted', conversion_id: accepted.body.conversion_id },
    });
  });

  it('answers 409 order_already_credited when the order was credited since, and the inquiry shows the conflict', async () => {
    const body = inquiry();
    const filed = (await file(body)).body;
    const sale = await request(tracker)
      .post('/api/v1/track/conversions/')
      .set('Authorization', `Bearer ${merchant}`)
      .send({ click_id: await newClick(), order_id: body.order_id, amount: '250.00', currency: 'EUR' });
    expect(sale.status).toBe(201);
    expectErrorShape(await track('post', `${filed.id}/accept`).send({}), 409, 'order_already_credited');
    const mine = await request(publisher).get(`/api/v1/publisher/inquiries/${filed.id}/`).set('X-API-Key', key);
    expect(mine.body).toMatchObject({ status: 'open', conflict: 'order_already_credited', conversion_id: null });
    const rejected = await track('post', `${filed.id}/reject`).send({ reason: 'duplicate' });
    expect(rejected.body).toMatchObject({ status: 'rejected', reason: 'duplicate' });
  });

  it("shows a conflict with another publisher's sale without naming that publisher or its conversion anywhere", async () => {
    // The order was credited to publishers[1] through its own link: publishers[0] files it as missing.
    const other = deps.demo!.publishers[1];
    const [{ code: theirCode }] = await ensureLinks(
      deps.data.links,
      deps.config.secretKey,
      [{ publisherId: other.account_id, programId: 1001, merchantId: 501, landingUrl: 'https://www.example.com/', subid: 'rival' }],
      { source: 'api', listed: true },
    );
    const click = await request(tracker).get(`/c/${theirCode}`).set('User-Agent', BROWSER);
    await app.clicks.flush();
    const body = inquiry();
    const theirs = await request(tracker)
      .post('/api/v1/track/conversions/')
      .set('Authorization', `Bearer ${merchant}`)
      .send({ click_id: new URL(click.headers.location).searchParams.get('cw_click_id'), order_id: body.order_id, amount: '250.00', currency: 'EUR' });
    expect(theirs.status).toBe(201);
    const filed = await file(body);
    expect(filed.status).toBe(201);
    const refused = await track('post', `${filed.body.id}/accept`).send({});
    expectErrorShape(refused, 409, 'order_already_credited');

    const publisherRow = await deps.models.Publisher.findById(other.account_id).lean<{ name?: string }>();
    const secrets = [other.account_id, theirs.body.id, ...(publisherRow?.name ? [publisherRow.name] : [])];
    const seen = [
      refused.body,
      (await request(publisher).get(`/api/v1/publisher/inquiries/${filed.body.id}/`).set('X-API-Key', key)).body,
      (await request(publisher).get('/api/v1/publisher/inquiries/?page_size=100').set('X-API-Key', key)).body,
      (await track('get', `${filed.body.id}/`)).body,
      (await track('get', '?status=open')).body,
      await operatorListInquiries(deps, { type: 'operator', email: 'help@network.example', role: 'support' }, { status: 'open' }),
    ];
    expect(seen[1]).toMatchObject({ status: 'open', conflict: 'order_already_credited', conversion_id: null });
    for (const answer of seen) for (const secret of secrets) expect(JSON.stringify(answer)).not.toContain(secret);
  });

  it('rejects with a reason from the list, and refuses any other', async () => {
    const filed = (await file(inquiry())).body;
    expectErrorShape(await track('post', `${filed.id}/reject`).send({ reason: 'because' }), 400, 'invalid_parameter');
    expectErrorShape(await track('post', `${filed.id}/reject`).send({}), 400);
    const res = await track('post', `${filed.id}/reject`).send({ reason: 'returned' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'rejected', reason: 'returned', decided_by: 'merchant', conversion_id: null });
    const rejected = await request(publisher).get('/api/v1/publisher/inquiries/?status=rejected').set('X-API-Key', key);
    expect(rejected.body.data.map((i: { id: string }) => i.id)).toContain(filed.id);
    expect(rejected.body.data.every((i: { status: string }) => i.status === 'rejected')).toBe(true);
  });

  it('another merchant can neither see nor decide it, another publisher cannot read it (404 like an unknown one)', async () => {
    const filed = (await file(inquiry())).body;
    expectErrorShape(await track('get', `${filed.id}/`, otherMerchant), 404, 'not_found');
    expectErrorShape(await track('post', `${filed.id}/accept`, otherMerchant).send({}), 404, 'not_found');
    expectErrorShape(await track('post', `${filed.id}/reject`, otherMerchant).send({ reason: 'other' }), 404, 'not_found');
    const theirs = await track('get', '', otherMerchant);
    expect(theirs.body.data.map((i: { id: string }) => i.id)).not.toContain(filed.id);
    expectErrorShape(await request(publisher).get(`/api/v1/publisher/inquiries/${filed.id}/`).set('X-API-Key', otherKey), 404, 'not_found');
    expectErrorShape(await track('get', '', key), 401);
    expect((await track('get', `${filed.id}/`)).body.status).toBe('open');
  });
});

describe('the response window and operators', () => {
  it('decides unanswered inquiries after the window: accepted on a verified click, else rejected outside_window', async () => {
    await newClick();
    const withClick = (await file(inquiry())).body;
    // An order 60 days ago: no click of the publisher's in the 30 days before it.
    const without = (await file(inquiry({ occurred_at: new Date(Date.now() - 60 * DAY).toISOString() }))).body;
    expect(without.evidence.clicks.filter((c: { verified: boolean }) => c.verified)).toEqual([]);
    const r = await decideOverdueInquiries(deps, new Date(Date.now() + 31 * DAY));
    expect(r.accepted).toBeGreaterThanOrEqual(1);
    const a = (await request(publisher).get(`/api/v1/publisher/inquiries/${withClick.id}/`).set('X-API-Key', key)).body;
    const b = (await request(publisher).get(`/api/v1/publisher/inquiries/${without.id}/`).set('X-API-Key', key)).body;
    expect(a).toMatchObject({ status: 'accepted', decided_by: 'window' });
    expect(a.conversion_id).toMatch(/^cnv_/);
    expect(b).toMatchObject({ status: 'rejected', reason: 'outside_window', decided_by: 'window' });
  });

  it('lets an admin operator decide an open inquiry, audited on the publisher’s account; support may only list', async () => {
    const filed = (await file(inquiry())).body;
    const admin = { type: 'operator', email: 'ops@network.example', role: 'admin' } as const;
    const support = { type: 'operator', email: 'help@network.example', role: 'support' } as const;
    expect((await operatorListInquiries(deps, support, { status: 'open' })).map((i) => i.id)).toContain(filed.id);
    await expect(operatorDecideInquiry(deps, support, { id: filed.id, decision: 'accept' })).rejects.toMatchObject({ code: 'role_not_allowed' });
    const d = await operatorDecideInquiry(deps, admin, { id: filed.id, decision: 'reject', reason: 'no_order' });
    expect(d).toMatchObject({ status: 'rejected', reason: 'no_order', decided_by: 'operator' });
    const audit = await deps.models.SecurityEvent.findOne({ type: 'inquiry_decided', 'detail.inquiry_id': filed.id }).lean();
    expect(audit).toMatchObject({ account_id: deps.demo!.publishers[0].account_id, actor: { email: 'ops@network.example', operator_role: 'admin' } });
  });
});
