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
const humanWithSubid = async () => (await deps.data.links.storedClicks({ publisherId: 'pub_trailhead' })).find((c) => !c.is_bot && c.subid !== '');

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
      'fallback',
      'id',
      'is_bot',
      'program_id',
      'referrer',
      'route',
      'sub_id',
      'user_agent',
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/ip_hash|publisher_id/);
  });

  it('includes bot clicks only with include_bots=true', async () => {
    const stored = await deps.data.links.storedClicks({ publisherId: 'pub_trailhead' });
    const total = stored.length;
    const bots = stored.filter((c) => c.is_bot).length;
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
    const sample = await humanWithSubid();
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
    const sample = await humanWithSubid();
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
    const [theirs] = await deps.data.links.storedClicks({ publisherId: 'pub_dealradar' });
    expect(theirs).not.toBeNull();
    expect((await get(`/clicks/?deeplink_id=${theirs!.link_id}&include_bots=true`)).body.data).toEqual([]);
    const mine = (await get('/clicks/?include_bots=true&page_size=200', keys(1).live)).body.data as Click[];
    const ids = new Set((await deps.data.links.storedClicks({ publisherId: 'pub_dealradar' })).map((c) => c._id));
    expect(mine.every((c) => ids.has(c.id))).toBe(true);
  });

  it('answers 400 for page_size over 200, bad booleans and unknown parameters; 403 for demo keys', async () => {
    expectErrorShape(await get('/clicks/?page_size=201'), 400, 'invalid_parameter');
    expectErrorShape(await get('/clicks/?include_bots=maybe'), 400, 'invalid_parameter');
    expectErrorShape(await get('/clicks/?subids=x'), 400, 'unknown_parameter');
    expectErrorShape(await get('/clicks/', keys().demo), 403, 'credential_not_allowed');
    expect((await get('/clicks/', keys().read_only)).status).toBe(200);
  });

  it('lists exactly the stored clicks, newest first then by id, the same by page number and by cursor, for every filter', { timeout: 120_000 }, async () => {
    const stored = await deps.data.links.storedClicks({ publisherId: 'pub_trailhead' });
    const sample = (await humanWithSubid())!;
    const order = (a: { created_at: Date; _id: string }, b: { created_at: Date; _id: string }) =>
      b.created_at.getTime() - a.created_at.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
    const cases: Array<[string, (c: (typeof stored)[number]) => boolean]> = [
      ['', (c) => !c.is_bot],
      ['include_bots=true', () => true],
      [`sub_id=${sample.subid}`, (c) => !c.is_bot && c.subid === sample.subid],
      [`campaign_id=${sample.campaign_id}&include_bots=true`, (c) => c.campaign_id === sample.campaign_id],
      [`deeplink_id=${sample.link_id}`, (c) => !c.is_bot && c.link_id === sample.link_id],
      [`sub_id=${sample.subid}&campaign_id=${sample.campaign_id}`, (c) => !c.is_bot && c.subid === sample.subid && c.campaign_id === sample.campaign_id],
    ];
    for (const [filter, keep] of cases) {
      const want = stored
        .filter(keep)
        .sort(order)
        .map((c) => c._id);
      expect(want.length, filter).toBeGreaterThan(0);
      const byCursor: string[] = [];
      for (let cursor: string | null = null, n = 0; n === 0 || cursor; n++) {
        const res = await get(`/clicks/?${filter}&page_size=37${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(res.status).toBe(200);
        byCursor.push(...(res.body.data as Click[]).map((c) => c.id));
        cursor = res.body.next_cursor;
      }
      expect(byCursor, filter).toEqual(want);
      const byPage: string[] = [];
      for (let page = 1; ; page++) {
        const res = await get(`/clicks/?${filter}&page_size=150&page=${page}`);
        byPage.push(...(res.body.data as Click[]).map((c) => c.id));
        if (!res.body.has_more) break;
      }
      expect(byPage, filter).toEqual(want);
    }
  });

  it('keeps a cursor stable across clicks written after it was given (older and newer than its position)', async () => {
    const first = await get('/clicks/?include_bots=true&page_size=50');
    const rest = async (cursor: string) => {
      const ids: string[] = [];
      for (let c: string | null = cursor; c;) {
        const res = await get(`/clicks/?include_bots=true&page_size=50&cursor=${encodeURIComponent(c)}`);
        ids.push(...(res.body.data as Click[]).map((x) => x.id));
        c = res.body.next_cursor;
      }
      return ids;
    };
    const before = await rest(first.body.next_cursor);
    const [template] = await deps.data.links.storedClicks({ publisherId: 'pub_trailhead' });
    const at = Date.parse((first.body.data as Click[]).at(-1)!.created_at);
    await deps.data.links.insertClickRows([
      { ...template!, _id: 'clk_cursor_newer', created_at: new Date(Date.now() + 1000), is_bot: false },
      { ...template!, _id: 'clk_cursor_older', created_at: new Date(at - 1), is_bot: false },
    ]);
    const after = await rest(first.body.next_cursor);
    expect(after.filter((id) => id !== 'clk_cursor_older')).toEqual(before);
    expect(after).toContain('clk_cursor_older');
    expect(after).not.toContain('clk_cursor_newer');
  });
});
