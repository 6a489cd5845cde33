/**
 * GET /trending-opportunities/ through HTTP: feature flag and subscription (404 otherwise),
 * released plans of subscribed channels only, available items with the caller's tracked link and
 * unavailable ones with a reason and no url, CSV, its own budget, bad parameters.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
const PATH = '/api/v1/publisher/trending-opportunities/';
const pub = (i = 0) => deps.demo!.publishers[i];
const get = (q = '', key = pub().keys.live, d: TestDeps = deps) => request(createApp(d).callback()).get(`${PATH}?${q}`).set('X-API-Key', key);
const ids = (res: request.Response) => res.body.data.map((i: { id: string }) => i.id);

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20 });
});
afterAll(() => deps?.close());

describe('GET /trending-opportunities/', () => {
  it('lists items of released plans in the subscribed channels, best first; unavailable items carry a reason and no url', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(['trd_demo_shoes', 'trd_demo_gb_running', 'trd_demo_headphones', 'trd_demo_smarthome', 'trd_demo_stoves']);
    const [shoes, gb, headphones, smarthome, stoves] = res.body.data;
    expect(shoes).toMatchObject({
      plan_id: 'tpl_demo_de_content',
      title: 'Trail running shoes',
      country: 'DE',
      channel: 'content',
      program_id: 1001,
      merchant: { id: 501, name: expect.any(String) },
      score: 0.94,
      status: 'available',
    });
    expect(shoes.url).toMatch(new RegExp(`^${deps.config.trackingUrl}/c/[A-Za-z0-9]+$`));
    expect(shoes).not.toHaveProperty('reason');
    expect(gb).toMatchObject({ channel: 'coupon', status: 'available', url: expect.any(String) });
    expect(headphones).toMatchObject({ status: 'unavailable', reason: 'eligibility_stale' });
    expect(smarthome).toMatchObject({ status: 'unavailable', reason: 'not_approved' });
    expect(stoves).toMatchObject({ status: 'unavailable', reason: 'program_paused' });
    for (const i of [headphones, smarthome, stoves]) expect(i).not.toHaveProperty('url');
    expect(res.body).toMatchObject({ count: 5, channels: ['content', 'coupon'] });
    // The link is the caller's own and is stable.
    expect((await get()).body.data[0].url).toBe(shoes.url);
  });

  it('filters by country (UK is GB), channel and limit', async () => {
    expect(ids(await get('country=DE&channel=content'))).toEqual(['trd_demo_shoes', 'trd_demo_headphones', 'trd_demo_smarthome', 'trd_demo_stoves']);
    expect(ids(await get('country=UK'))).toEqual(['trd_demo_gb_running']);
    expect(ids(await get('channel=coupon&country=DE'))).toEqual([]);
    expect(ids(await get('limit=2'))).toEqual(['trd_demo_shoes', 'trd_demo_gb_running']);
  });

  it('streams the same items as CSV', async () => {
    const res = await get('format=csv&country=DE');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.text.trim().split('\r\n');
    expect(lines[0]).toBe('id,plan_id,title,country,channel,program_id,merchant_id,merchant_name,score,status,reason,url');
    expect(lines).toHaveLength(5);
    expect(lines[1]).toMatch(/^trd_demo_shoes,tpl_demo_de_content,Trail running shoes,DE,content,1001,501,[^,]+,0\.94,available,,http/);
    expect(lines[4]).toMatch(/^trd_demo_stoves,.*,unavailable,program_paused,$/);
  });

  it('is 404 unless the feature is on and the account subscribed; a channel not subscribed is 400', async () => {
    expectErrorShape(await get('', pub(1).keys.live), 404, 'not_found');
    expectErrorShape(await get('', pub().keys.live, { ...deps, config: { ...deps.config, trendingEnabled: false } }), 404, 'not_found');
    expectErrorShape(await get('channel=social'), 400, 'invalid_parameter');
  });

  it('takes API keys only (demo keys 403, none 401), has its own budget, and answers 400 for bad parameters', async () => {
    expectErrorShape(await get('', pub().keys.demo), 403, 'credential_not_allowed');
    expectErrorShape(await request(createApp(deps).callback()).get(PATH), 401, 'not_authenticated');
    expectErrorShape(await request(createApp(deps).callback()).get(PATH).set('Authorization', `Bearer ${pub().offers_credential}`), 401, 'not_authenticated');
    const tight = { ...deps, config: { ...deps.config, rateLimits: { ...deps.config.rateLimits, trending: 2 } } };
    const first = await get('', pub().keys.live, tight);
    expect(first.headers['ratelimit-limit']).toBe('2');
    await get('', pub().keys.live, tight);
    expectErrorShape(await get('', pub().keys.live, tight), 429, 'rate_limited');
    expect((await get('limit=1')).status).toBe(200); // the regular 60/min budget still has room
    for (const q of ['limit=0', 'limit=51', 'format=xml', 'country=de', 'channel=tv', 'page=2', 'limit=1&limit=2']) expectErrorShape(await get(q), 400);
  });
});
