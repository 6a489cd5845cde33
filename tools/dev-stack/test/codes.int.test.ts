/**
 * Personal coupon codes end to end: a publisher asks for a code (publisher API), a merchant's
 * shopper uses it (tracker intake), the sale is credited to that publisher with channel `code`
 * and the publisher finds it with /conversions/?channel=code; codes are unique at a merchant
 * whatever their case and a taken code names nobody; a click beside a code wins.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueMerchantToken } from '@cw/auth';
import { ensureLinks } from '@cw/links';
import { operatorListCodes, operatorReviewCode } from '@cw/codes';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp, type TrackerApp } from '@cw/app-tracker';

let deps: TestDeps;
let app: TrackerApp;
let tracker: ReturnType<TrackerApp['callback']>;
let publisher: ReturnType<TrackerApp['callback']>;
let merchant: string;
let otherMerchant: string;
let linkCode: string;
let orders = 0;
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const admin = { type: 'operator', email: 'admin@network.example', role: 'admin' } as const;

beforeAll(async () => {
  deps = await createTestDeps({
    seedProducts: 20,
    env: { RATELIMIT_IP_PER_MIN: '100000', RATELIMIT_LINKS_PER_MIN: '100000', RATELIMIT_REPORTING_PER_MIN: '100000', CLICK_FLUSH_INTERVAL_MS: '60000' },
  });
  app = createApp(deps);
  tracker = app.callback();
  publisher = publisherApi(deps).callback();
  merchant = (await issueMerchantToken(deps.data.auth, 501)).secret;
  otherMerchant = (await issueMerchantToken(deps.data.auth, 502)).secret;
  [{ code: linkCode }] = await ensureLinks(
    deps.data.links,
    deps.config.secretKey,
    [{ publisherId: deps.demo!.publishers[1].account_id, programId: 1001, merchantId: 501, landingUrl: 'https://www.example.com/', subid: 'codes-test' }],
    { source: 'api', listed: true },
  );
});
afterAll(async () => {
  await app?.clicks.close();
  await deps?.close();
});

const key = (i = 0) => deps.demo!.publishers[i]!.keys.live;
const ask = (body: Record<string, unknown>, i = 0) => request(publisher).post('/api/v1/publisher/codes/').set('X-API-Key', key(i)).send(body);
const report = (body: Record<string, unknown>, bearer = merchant) =>
  request(tracker).post('/api/v1/track/conversions/').set('Authorization', `Bearer ${bearer}`).send(body);
const sale = (extra: Record<string, unknown>) => ({ order_id: `CODE-ORD-${++orders}`, amount: '50.00', currency: 'EUR', ...extra });

describe('personal coupon codes', () => {
  it('are active at once at the approved demo program, and a sale by the code is credited to their publisher with channel code', async () => {
    const asked = await ask({ program_id: deps.demo!.fixtures.approved_program_id, code: 'trailhead10' });
    expect(asked.status).toBe(201);
    expect(asked.body).toEqual({ id: expect.stringMatching(/^cod_/), code: 'TRAILHEAD10', program_id: 1001, status: 'active', created_at: expect.any(String) });

    const credited = await report(sale({ coupon_code: 'TrailHead10' }));
    expect(credited.status).toBe(201);
    expect(credited.body).toMatchObject({ program_id: 1001, channel: 'code', click_id: null, commission: '4.00' });
    expect(JSON.stringify(credited.body)).not.toContain('TRAILHEAD10');
    const stored = await deps.models.Conversion.findById(credited.body.id).lean();
    expect(stored).toMatchObject({ publisher_id: deps.demo!.publishers[0].account_id, channel: 'code', code_id: asked.body.id });

    const listed = await request(publisher).get('/api/v1/publisher/conversions/?channel=code').set('X-API-Key', key());
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((c: { id: string }) => c.id)).toContain(credited.body.id);
    expect(listed.body.data.every((c: { channel: string }) => c.channel === 'code')).toBe(true);
    const links = await request(publisher).get('/api/v1/publisher/conversions/?channel=link').set('X-API-Key', key());
    expect(links.body.data.map((c: { id: string }) => c.id)).not.toContain(credited.body.id);

    const byChannel = await request(publisher).get('/api/v1/publisher/reports/?group_by=channel').set('X-API-Key', key());
    expect(byChannel.status).toBe(200);
    expect(byChannel.body.rows.find((r: { key: string }) => r.key === 'code')).toMatchObject({ conversions: 1, pending: 1, commission: { EUR: '4.00' } });
    expect(byChannel.body.rows.map((r: { key: string }) => r.key)).toContain('link');

    const mine = await request(publisher).get('/api/v1/publisher/codes/?program_id=1001').set('X-API-Key', key());
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((c: { id: string }) => c.id)).toContain(asked.body.id);
  });

  it('answer the same code again with 200 to its holder, and 409 code_taken to anyone else whatever the case, naming nobody', async () => {
    await ask({ program_id: 1001, code: 'summit2026' });
    const again = await ask({ program_id: 1001, code: 'SUMMIT2026' });
    expect(again.status).toBe(200);
    const taken = await ask({ program_id: 1001, code: 'Summit2026' }, 1);
    expectErrorShape(taken, 409, 'code_taken');
    expect(JSON.stringify(taken.body)).not.toContain(deps.demo!.publishers[0].account_id);
    expect(JSON.stringify(taken.body)).not.toMatch(/trailhead/i);
  });

  it('make one under the rules when none is asked for, and refuse one that breaks them naming the field', async () => {
    const made = await ask({ program_id: 1001 });
    expect(made.status).toBe(201);
    expect(made.body.code).toMatch(/^[A-Z0-9]{6,20}$/);
    expectErrorShape(await ask({ program_id: 1001, code: 'ab' }), 400, 'invalid_parameter');
    expect((await ask({ program_id: 1001, code: 'spring sale' })).body.errors[0].param).toBe('code');
    expectErrorShape(await ask({ program_id: 1001, code: 5 }), 400, 'invalid_parameter');
    expectErrorShape(await ask({}), 400, 'invalid_parameter');
  });

  it('are refused at a program the publisher is not approved for', async () => {
    expectErrorShape(await ask({ program_id: deps.demo!.fixtures.joinable_program_id }), 403, 'program_not_approved');
    expectErrorShape(await ask({ program_id: 999999 }), 404, 'not_found');
  });

  it('wait for an operator at programs that review them, and credit nothing until approved', async () => {
    // Program 1003 (merchant 502) is approved for publishers[1] and has no code rules: operator review.
    const asked = await ask({ program_id: 1003, code: 'REVIEWME1' }, 1);
    expect(asked.status).toBe(201);
    expect(asked.body.status).toBe('pending_review');
    expectErrorShape(await report(sale({ coupon_code: 'REVIEWME1' }), otherMerchant), 404, 'code_not_found');
    const queue = await operatorListCodes({ data: deps.data, config: deps.config } as never, admin, { status: 'pending_review' });
    expect(queue.map((c) => c.id)).toContain(asked.body.id);
    await operatorReviewCode({ data: deps.data, config: deps.config } as never, admin, { id: asked.body.id, decision: 'approve' });
    const credited = await report(sale({ coupon_code: 'reviewme1' }), otherMerchant);
    expect(credited.status).toBe(201);
    expect(credited.body.channel).toBe('code');
    const audit = await deps.models.SecurityEvent.findOne({ type: 'code_reviewed', account_id: deps.demo!.publishers[1].account_id }).lean();
    expect(audit?.detail).toMatchObject({ code_id: asked.body.id, decision: 'approve' });
  });

  it('free a rejected code for someone else', async () => {
    const asked = await ask({ program_id: 1003, code: 'FREEAGAIN1' }, 1);
    await operatorReviewCode({ data: deps.data, config: deps.config } as never, admin, { id: asked.body.id, decision: 'reject' });
    expect((await ask({ program_id: 1003, code: 'FREEAGAIN1' }, 1)).status).toBe(201);
  });

  it("answer 404 code_not_found for an unknown code and for another merchant's code", async () => {
    expectErrorShape(await report(sale({ coupon_code: 'NOSUCHCODE' })), 404, 'code_not_found');
    expectErrorShape(await report(sale({ coupon_code: 'TRAILHEAD10' }), otherMerchant), 404, 'code_not_found');
    expectErrorShape(await report(sale({ coupon_code: '' })), 400, 'invalid_parameter');
    expectErrorShape(await report(sale({})), 400, 'invalid_parameter');
  });

  it('credit the click, not the code, when a sale names both', async () => {
    const res = await request(tracker).get(`/c/${linkCode}`).set('User-Agent', BROWSER);
    await app.clicks.flush();
    const clickId = new URL(res.headers.location).searchParams.get('cw_click_id')!;
    const both = await report(sale({ click_id: clickId, coupon_code: 'TRAILHEAD10' }));
    expect(both.status).toBe(201);
    expect(both.body).toMatchObject({ click_id: clickId, channel: 'link' });
    const stored = await deps.models.Conversion.findById(both.body.id).lean();
    expect(stored?.publisher_id).toBe(deps.demo!.publishers[1].account_id);
  });
});
