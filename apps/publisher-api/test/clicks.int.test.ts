/** GET /clicks/ through HTTP, on the demo dataset's clicks (humans and bots over 90 days). */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let server: ReturnType<ReturnType<typeof createApp>['callback']>;
const B = '/api/v1/publisher';

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20, env: { RATELIMIT_REPORTING_PER_MIN: '100000' } });
  server = createApp(deps).callback();
});
afterAll(async () => deps?.close());

const keys = (i = 0) => deps.demo!.publishers[i].keys;
const get = (path: string, key = keys().live) => request(server).get(`${B}${path}`).set('X-API-Key', key);
type Click = { id: string; created_at: string; deeplink_id: string; campaign_id: number; sub_id: string | null; is_bot: boolean };

describe('GET /clicks/', () => {
  it("lists the caller's human clicks newest first, without addresses, in a page envelope", async () => {
    const res = await get('/clicks/?page_size=200');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, page_size: 200 });
    const data = res.body.data as Click[];
    expect(data.length).toBeGreaterThan(0);
    expect(data.every((c) => !c.is_bot)).toBe(true);
    const times = data.map((c) => Date.parse(c.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(Object.keys(data[0]).sort()).toEqual([
      'bot_reason',
      'campaign_id',
      'created_at',
      'deeplink_id',
      'id',
      'is_bot',
      'program_id',
      'referrer',
      'sub_id',
      'user_agent',
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/ip_hash|publisher_id/);
  });

  it('includes bot clicks only with include_bots=true', async () => {
    const total = await deps.models.Click.countDocuments({ publisher_id: 'pub_trailhead' });
    const bots = await deps.models.Click.countDocuments({ publisher_id: 'pub_trailhead', is_bot: true });
    expect(bots).toBeGreaterThan(0);
    const all: Click[] = [];
    for (let page = 1; ; page++) {
      const res = await get(`/clicks/?include_bots=true&page_size=200&page=${page}`);
      all.push(...res.body.data);
      if (!res.body.has_more) break;
    }
    expect(all).toHaveLength(total);
    expect(all.filter((c) => c.is_bot)).toHaveLength(bots);
  });

  it('filters by sub_id, campaign_id and deeplink_id exactly', async () => {
    const sample = await deps.models.Click.findOne({ publisher_id: 'pub_trailhead', is_bot: false, subid: { $ne: '' } }).lean();
    const bySub = (await get(`/clicks/?sub_id=${sample!.subid}&page_size=200`)).body.data as Click[];
    expect(bySub.length).toBeGreaterThan(0);
    expect(bySub.every((c) => c.sub_id === sample!.subid)).toBe(true);
    const byCampaign = (await get(`/clicks/?campaign_id=${sample!.campaign_id}&page_size=200`)).body.data as Click[];
    expect(byCampaign.every((c) => c.campaign_id === sample!.campaign_id)).toBe(true);
    const byLink = (await get(`/clicks/?deeplink_id=${sample!.link_id}&page_size=200`)).body.data as Click[];
    expect(byLink.length).toBeGreaterThan(0);
    expect(byLink.every((c) => c.deeplink_id === sample!.link_id)).toBe(true);
  });

  it('takes the sub-ID spelled subid as well as sub_id (the spec uses both), and refuses both at once', async () => {
    const sample = await deps.models.Click.findOne({ publisher_id: 'pub_trailhead', is_bot: false, subid: { $ne: '' } }).lean();
    const a = await get(`/clicks/?sub_id=${sample!.subid}&page_size=200`);
    const b = await get(`/clicks/?subid=${sample!.subid}&page_size=200`);
    expect(b.status).toBe(200);
    expect(b.body.data).toEqual(a.body.data);
    const conv = await get(`/conversions/?sub_id=${sample!.subid}&page_size=500`);
    expect(conv.status).toBe(200);
    expect(conv.body.data).toEqual((await get(`/conversions/?subid=${sample!.subid}&page_size=500`)).body.data);
    expect(conv.body.data.every((c: { subid: string }) => c.subid === sample!.subid)).toBe(true);
    expectErrorShape(await get(`/clicks/?sub_id=a&subid=a`), 400, 'invalid_parameter');
  });

  it("never shows another publisher's clicks, even for its link ids", async () => {
    const theirs = await deps.models.Click.findOne({ publisher_id: 'pub_dealradar' }).lean();
    expect(theirs).not.toBeNull();
    expect((await get(`/clicks/?deeplink_id=${theirs!.link_id}&include_bots=true`)).body.data).toEqual([]);
    const mine = (await get('/clicks/?include_bots=true&page_size=200', keys(1).live)).body.data as Click[];
    const ids = new Set((await deps.models.Click.find({ publisher_id: 'pub_dealradar' }, { _id: 1 }).lean()).map((c) => c._id));
    expect(mine.every((c) => ids.has(c.id))).toBe(true);
  });

  it('answers 400 for page_size over 200, bad booleans and unknown parameters; 403 for demo keys', async () => {
    expectErrorShape(await get('/clicks/?page_size=201'), 400, 'invalid_parameter');
    expectErrorShape(await get('/clicks/?include_bots=maybe'), 400, 'invalid_parameter');
    expectErrorShape(await get('/clicks/?subids=x'), 400, 'unknown_parameter');
    expectErrorShape(await get('/clicks/', keys().demo), 403, 'credential_not_allowed');
    expect((await get('/clicks/', keys().read_only)).status).toBe(200);
  });
});
