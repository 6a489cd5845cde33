/** GET /offers/ through HTTP: the offers credential only, running offers of approved programs in the credential's markets. */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let market: string;
let outside: string;
let approved: number;
let unapproved: number;
const pub = () => deps.demo!.publishers[0];
const get = (q: string, secret = pub().offers_credential) =>
  request(createApp(deps).callback()).get(`/api/v1/publisher/offers/?${q}`).set('Authorization', `Bearer ${secret}`);
const DAY = 86_400_000;

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20 });
  const me = await deps.models.Publisher.findById(pub().account_id).lean();
  market = me!.markets[0];
  outside = ['ZA', 'NZ', 'JP', 'BR'].find((c) => !me!.markets.includes(c))!;
  approved = (await deps.data.programs.activeApprovedIds(pub().account_id))[0];
  const mine = await deps.data.programs.assignments(pub().account_id);
  unapproved = (await deps.models.Program.find({}, { _id: 1 }).lean()).map((p) => p._id as number).find((id) => mine.get(id) !== 'approved')!;
  const program = await deps.models.Program.findById(approved).lean();
  const now = Date.now();
  const offer = (id: string, over: Record<string, unknown>) => ({
    _id: id,
    program_id: approved,
    type: 'voucher',
    title: `Offer ${id}`,
    code: 'SAVE10',
    landing_url: program!.default_landing_url,
    country: market,
    starts_at: new Date(now - DAY),
    ends_at: new Date(now + DAY),
    terms: 'Min. order 50',
    ...over,
  });
  await deps.models.Offer.insertMany([
    offer('ofr_running', {}),
    offer('ofr_deal', { type: 'deal', code: null }),
    offer('ofr_future', { starts_at: new Date(now + DAY), ends_at: new Date(now + 2 * DAY) }),
    offer('ofr_expired', { starts_at: new Date(now - 3 * DAY), ends_at: new Date(now - DAY) }),
    offer('ofr_ended', { ended_at: new Date(now - 1000) }),
    offer('ofr_unapproved', { program_id: unapproved }),
    offer('ofr_elsewhere', { country: outside }),
  ]);
});
afterAll(() => deps?.close());

describe('GET /offers/', () => {
  it("answers the running offers of approved programs in the country, each url the caller's tracked link", async () => {
    const res = await get(`country=${market}`);
    expect(res.status).toBe(200);
    // This test's offers and the demo data's running ones; future, expired, ended and unapproved ones never list.
    expect(res.body.data.map((o: { id: string }) => o.id)).toEqual(
      market === 'DE' ? ['ofr_deal', 'ofr_demo_deal', 'ofr_demo_running', 'ofr_running'] : ['ofr_deal', 'ofr_running'],
    );
    expect(res.body).toMatchObject({ page: 1, limit: 100, has_more: false });
    const byId = (id: string) => res.body.data.find((o: { id: string }) => o.id === id);
    expect(byId('ofr_running')).toMatchObject({
      program_id: approved,
      type: 'voucher',
      code: 'SAVE10',
      country: market,
      terms: 'Min. order 50',
      merchant: { id: expect.any(Number) },
    });
    expect(byId('ofr_deal').code).toBeNull();
    expect(byId('ofr_running').url).toMatch(new RegExp(`^${deps.config.trackingUrl}/c/[A-Za-z0-9_-]+$`));
    const page2 = await get(`country=${market}&limit=1&page=2`);
    expect(page2.body).toMatchObject({ page: 2, limit: 1, has_more: true });
    expect(page2.body.data.map((o: { id: string }) => o.id)).toEqual([res.body.data[1].id]);
  });

  it('takes only the offers credential; the regular keys are refused and the offers credential works nowhere else', async () => {
    for (const k of [pub().keys.live, pub().reporting_token, pub().portal_token]) expectErrorShape(await get(`country=${market}`, k), 401, 'not_authenticated');
    expectErrorShape(
      await request(createApp(deps).callback()).get(`/api/v1/publisher/offers/?country=${market}`).set('X-API-Key', pub().offers_credential),
      401,
      'not_authenticated',
    );
    expectErrorShape(
      await request(createApp(deps).callback()).get('/api/v1/publisher/me/').set('Authorization', `Bearer ${pub().offers_credential}`),
      401,
      'not_authenticated',
    );
  });

  it('refuses a country outside the credential scope (403) and bad parameters (400)', async () => {
    expectErrorShape(await get(`country=${outside}`), 403, 'forbidden');
    expectErrorShape(await get(''), 400);
    expectErrorShape(await get(`country=${market}&limit=101`), 400);
    expectErrorShape(await get(`country=${market}&program_id=1`), 400);
    expectErrorShape(await get('country=germany'), 400);
  });
});
