/**
 * /Apiv3/json through HTTP as HasOffers tools call it: GET and form POST, the reporting token as
 * api_key, HasOffers' envelope for answers and errors (HTTP 200, real status in the body).
 */
import request from 'supertest';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '@cw/auth';
import { rebuildStats } from '@cw/stats';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
const pub = () => deps.demo!.publishers[0];
const app = () => createApp(deps).callback();
const call = (q: string) => request(app()).get(`/Apiv3/json?api_key=${encodeURIComponent(pub().reporting_token)}&${q}`);
const at = (d: string, h = 12) => new Date(`${d}T${String(h).padStart(2, '0')}:00:00.000Z`);
let approvedProgram: number;

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20, env: { RATELIMIT_REPORTING_TOKEN_PER_MIN: '100000' } });
  const p = pub().account_id;
  approvedProgram = [...(await deps.data.programs.assignments(p))].find(([, s]) => s === 'approved')![0];
  const sale = (id: string, subid: string, status: string, commission: string, at: Date) => ({
    _id: id,
    publisher_id: p,
    program_id: approvedProgram,
    campaign_id: 501,
    click_id: `clk_${id}`,
    subid,
    status,
    sale_amount: Types.Decimal128.fromString('100.00'),
    commission: Types.Decimal128.fromString(commission),
    currency: 'EUR',
    occurred_at: at,
    source: 'v1',
    created_at: at,
    updated_at: at,
  });
  await deps.models.Conversion.insertMany([
    sale('cnv_h1', 'fb', 'approved', '8.00', at('2032-05-01')),
    sale('cnv_h2', 'fb', 'pending', '4.00', at('2032-05-02')),
    sale('cnv_h3', 'ig', 'declined', '2.50', at('2032-05-02', 15)),
  ]);
  await deps.models.Click.insertMany(
    Array.from({ length: 8 }, (_, i) => ({
      _id: `clk_h_${i}`,
      link_id: 'lnk_h',
      publisher_id: p,
      program_id: approvedProgram,
      campaign_id: 501,
      subid: i < 6 ? 'fb' : 'ig',
      created_at: at(i < 4 ? '2032-05-01' : '2032-05-02'),
      is_bot: i === 7,
    })),
  );
  // History written as rows (an import): the stats read model is rebuilt from them, as an operator would.
  await rebuildStats(deps, { publisherId: p });
});
afterAll(() => deps?.close());

const range = 'data_start=2032-05-01&data_end=2032-05-31';

function ok(res: request.Response) {
  expect(res.status).toBe(200);
  expect(res.body.response).toMatchObject({ status: 1, httpStatus: 200, errors: [], errorMessage: null });
  return res.body.response.data;
}
function failed(res: request.Response, httpStatus: number, message: RegExp) {
  expect(res.status).toBe(200);
  expect(res.body.response).toMatchObject({ status: -1, httpStatus });
  expect(res.body.response.errors[0].publicMessage).toMatch(message);
  expect(JSON.stringify(res.body)).not.toContain(pub().reporting_token);
}

describe('/Apiv3/json', () => {
  it('takes the reporting token as api_key; anything else is 401 in the envelope', async () => {
    failed(await request(app()).get('/Apiv3/json?Target=Affiliate_Offer&Method=findAll'), 401, /API key/);
    failed(await request(app()).get(`/Apiv3/json?Target=Affiliate_Offer&Method=findAll&api_key=${pub().keys.live}`), 401, /API key/);
    const res = await call('Target=Affiliate_AffiliateUser&Method=findAll&NetworkId=demo');
    expect(ok(res)).toEqual({ [pub().account_id]: { AffiliateUser: expect.objectContaining({ id: pub().account_id }) } });
    expect(res.headers['ratelimit-limit']).toBeDefined();
    expect(res.body.request).toMatchObject({ Target: 'Affiliate_AffiliateUser', Method: 'findAll', NetworkId: 'demo' });
    expect(res.body.request.api_key).toBeUndefined();
  });

  it('names unknown targets, methods, fields and conditionals', async () => {
    failed(await call('Target=Affiliate_Nope&Method=findAll'), 404, /Unknown Target: Affiliate_Nope/);
    failed(await call('Target=Affiliate_Offer&Method=delete'), 404, /Unknown Method of Affiliate_Offer: delete/);
    failed(await call(`Target=Affiliate_Report&Method=getStats&${range}&fields[]=Stat.clicks&fields[]=Stat.bogus`), 400, /Unknown field: Stat.bogus/);
    failed(
      await call(`Target=Affiliate_Report&Method=getConversions&${range}&filters[Stat.payout][conditional]=ROUGHLY&filters[Stat.payout][values]=1`),
      400,
      /Unknown conditional/,
    );
    failed(await call('Target=Affiliate_Report&Method=getStats&data_start=2032-13-01'), 400, /data_start/);
    failed(await request(app()).put('/Apiv3/json'), 405, /GET or POST/);
  });

  it('getConversions: fields, filters, sort, paging and totals as HasOffers answers them', async () => {
    const all = ok(
      await call(
        `Target=Affiliate_Report&Method=getConversions&${range}&fields[]=Stat.id&fields[]=Stat.payout&fields[]=Stat.affiliate_info1&fields[]=Stat.conversion_status&sort[Stat.payout]=asc&totals=1`,
      ),
    );
    expect(all).toMatchObject({ page: 1, current: 3, count: 3, pageCount: 1 });
    expect(all.data).toEqual([
      { Stat: { id: 'cnv_h3', payout: '2.50', affiliate_info1: 'ig', conversion_status: 'rejected' } },
      { Stat: { id: 'cnv_h2', payout: '4.00', affiliate_info1: 'fb', conversion_status: 'pending' } },
      { Stat: { id: 'cnv_h1', payout: '8.00', affiliate_info1: 'fb', conversion_status: 'approved' } },
    ]);
    expect(all.totals).toEqual({ Stat: { id: null, payout: '14.50', affiliate_info1: null, conversion_status: null } });
    const filtered = ok(
      await call(
        `Target=Affiliate_Report&Method=getConversions&${range}&fields[]=Stat.id&filters[Stat.affiliate_info1][conditional]=EQUAL_TO&filters[Stat.affiliate_info1][values][]=fb&filters[Stat.payout][conditional]=BETWEEN&filters[Stat.payout][values][]=3&filters[Stat.payout][values][]=5`,
      ),
    );
    expect(filtered.data).toEqual([{ Stat: { id: 'cnv_h2' } }]);
    const paged = ok(
      await call(`Target=Affiliate_Report&Method=getConversions&${range}&fields[]=Stat.id&limit=2&page=2&filters[Offer.name][conditional]=NOT_NULL`),
    );
    expect(paged).toMatchObject({ page: 2, current: 1, count: 3, pageCount: 2 });
  });

  it('getConversions filters, sorts and pages in the database with the answers of filtering and sorting every row', async () => {
    // The demo account's history: every sale of the last 200 days, unfiltered, is the reference.
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const span = `data_start=${day(Date.now() - 200 * 86_400_000)}&data_end=${day(Date.now())}&hour_offset=5.75`;
    const fields = [
      'Stat.id',
      'Stat.date',
      'Stat.datetime',
      'Stat.payout',
      'Stat.approved_payout',
      'Stat.affiliate_info1',
      'Stat.conversion_status',
      'Offer.name',
      'Stat.offer_id',
    ]
      .map((f) => `fields[]=${f}`)
      .join('&');
    type R = { Stat: Record<string, string | number>; Offer: { name: string } };
    const get = async (extra: string) =>
      ok(await call(`Target=Affiliate_Report&Method=getConversions&${span}&${fields}&limit=10000&${extra}`)) as { data: R[]; count: number };
    const all = (await get('')).data;
    expect(all.length).toBeGreaterThan(50);
    const ids = (rows: R[]) => rows.map((r) => r.Stat.id);
    const same = async (extra: string, keep: (r: R) => boolean) => {
      const got = await get(extra);
      expect(ids(got.data), extra).toEqual(ids(all.filter(keep)));
      expect(got.count).toBe(got.data.length);
      return got.data;
    };
    const dates = [...new Set(all.map((r) => String(r.Stat.date)))].sort();
    const [d1, d2] = [dates[Math.floor(dates.length / 4)], dates[Math.floor(dates.length / 2)]];
    expect(
      (
        await same(
          `filters[Stat.date][conditional]=BETWEEN&filters[Stat.date][values][]=${d1}&filters[Stat.date][values][]=${d2}`,
          (r) => r.Stat.date >= d1 && r.Stat.date <= d2,
        )
      ).length,
    ).toBeGreaterThan(0);
    await same(`filters[Stat.date]=${d2}`, (r) => r.Stat.date === d2);
    // A sale early in its local day: its UTC day is the day before, so only the offset finds it.
    const early = all.find((r) => String(r.Stat.datetime).slice(11) < '05:45:00')!;
    expect(await same(`filters[Stat.date]=${early.Stat.date}`, (r) => r.Stat.date === early.Stat.date)).toContainEqual(early);
    expect(await same(`filters[Stat.datetime]=${early.Stat.datetime}`, (r) => r.Stat.datetime === early.Stat.datetime)).toEqual([early]);
    await same(
      `filters[Stat.datetime][conditional]=LESS_THAN&filters[Stat.datetime][values][]=${d2} 12:00:00`,
      (r) => String(r.Stat.datetime) < `${d2} 12:00:00`,
    );
    await same(
      'filters[Stat.conversion_status][conditional]=LIKE&filters[Stat.conversion_status][values][]=rej%',
      (r) => r.Stat.conversion_status === 'rejected',
    );
    await same(
      'filters[Stat.conversion_status][conditional]=NOT_EQUAL_TO&filters[Stat.conversion_status][values][]=pending',
      (r) => r.Stat.conversion_status !== 'pending',
    );
    await same('filters[Stat.approved_payout][conditional]=GREATER_THAN&filters[Stat.approved_payout][values][]=0', (r) => Number(r.Stat.approved_payout) > 0);
    await same(
      'filters[Stat.approved_payout][conditional]=LESS_THAN_OR_EQUAL_TO&filters[Stat.approved_payout][values][]=5',
      (r) => Number(r.Stat.approved_payout) <= 5,
    );
    await same('filters[Stat.payout][conditional]=GREATER_THAN_OR_EQUAL_TO&filters[Stat.payout][values][]=10', (r) => Number(r.Stat.payout) >= 10);
    const subid = String(all.find((r) => r.Stat.affiliate_info1)!.Stat.affiliate_info1);
    await same(
      `filters[Stat.affiliate_info1][conditional]=NOT_LIKE&filters[Stat.affiliate_info1][values][]=${subid.slice(0, 2)}%`,
      (r) => !String(r.Stat.affiliate_info1).toLowerCase().startsWith(subid.slice(0, 2).toLowerCase()),
    );
    await same('filters[Stat.affiliate_info1][conditional]=NULL', (r) => r.Stat.affiliate_info1 === '');
    const name = all[0].Offer.name;
    await same(`filters[Offer.name]=${encodeURIComponent(name)}`, (r) => r.Offer.name === name);
    await same('filters[Stat.affiliate_info2][conditional]=NOT_NULL', () => false);
    // Sorts: the stored fields and the computed ones, then newest first as before any sort.
    const sorted = async (extra: string, key: (r: R) => string | number, dir: 1 | -1) => {
      const got = (await get(extra)).data;
      expect([...ids(got)].sort(), extra).toEqual([...ids(all)].sort());
      for (let i = 1; i < got.length; i++) {
        const [a, b] = [key(got[i - 1]), key(got[i])];
        const c = typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
        expect(dir * c, `${extra} at ${i}`).toBeLessThanOrEqual(0);
        if (c === 0) expect(String(got[i - 1].Stat.datetime) >= String(got[i].Stat.datetime)).toBe(true);
      }
      return got;
    };
    await sorted('sort[Offer.name]=desc', (r) => r.Offer.name, -1);
    await sorted('sort[Stat.conversion_status]=asc', (r) => r.Stat.conversion_status, 1);
    await sorted('sort[Stat.approved_payout]=desc', (r) => Number(r.Stat.approved_payout), -1);
    const byPayout = await sorted('sort[Stat.payout]=asc', (r) => Number(r.Stat.payout), 1);
    // A page is the slice of the sorted whole.
    const page = ok(await call(`Target=Affiliate_Report&Method=getConversions&${span}&${fields}&sort[Stat.payout]=asc&limit=7&page=3`));
    expect(page).toMatchObject({ page: 3, count: all.length, pageCount: Math.ceil(all.length / 7) });
    expect(ids(page.data)).toEqual(ids(byPayout.slice(14, 21)));
    // Bad values for the field's kind are HasOffers' 400.
    failed(
      await call(`Target=Affiliate_Report&Method=getConversions&${span}&filters[Stat.payout][conditional]=LIKE&filters[Stat.payout][values][]=1%`),
      400,
      /text fields/,
    );
    failed(await call(`Target=Affiliate_Report&Method=getConversions&${span}&filters[Stat.payout]=cheap`), 400, /must be numbers/);
    failed(await call(`Target=Affiliate_Report&Method=getConversions&${span}&filters[Stat.date]=2026-02-30`), 400, /YYYY-MM-DD/);
  });

  it('getStats grouped by date and sub-ID: clicks without bots, conversions, payout; untracked fields answer 0', async () => {
    const data = ok(
      await call(
        `Target=Affiliate_Report&Method=getStats&${range}&fields[]=Stat.clicks&fields[]=Stat.conversions&fields[]=Stat.payout&fields[]=Stat.impressions&groups[]=Stat.date&groups[]=Stat.affiliate_info1&sort[Stat.date]=asc&sort[Stat.affiliate_info1]=asc`,
      ),
    );
    expect(data.data.map((r: { Stat: Record<string, unknown> }) => r.Stat)).toEqual([
      { date: '2032-05-01', affiliate_info1: 'fb', clicks: 4, conversions: 1, payout: '8.00', impressions: 0 },
      { date: '2032-05-02', affiliate_info1: 'fb', clicks: 2, conversions: 1, payout: '4.00', impressions: 0 },
      { date: '2032-05-02', affiliate_info1: 'ig', clicks: 1, conversions: 1, payout: '2.50', impressions: 0 },
    ]);
    const byOffer = ok(
      await call(
        `Target=Affiliate_Report&Method=getStats&${range}&fields[]=Stat.offer_id&fields[]=Offer.name&fields[]=Stat.clicks&fields[]=Stat.conversions&fields[]=Stat.approved_payout&totals=1`,
      ),
    );
    expect(byOffer.data).toHaveLength(1);
    expect(byOffer.data[0]).toMatchObject({
      Stat: { offer_id: approvedProgram, clicks: 7, conversions: 3, approved_payout: '8.00' },
      Offer: { name: expect.any(String) },
    });
    expect(byOffer.totals.Stat).toMatchObject({ clicks: 7, conversions: 3 });
  });

  it("reads days in the caller's zone with hour_offset", async () => {
    const conv = ok(
      await call(
        `Target=Affiliate_Report&Method=getConversions&${range}&hour_offset=10&fields[]=Stat.id&fields[]=Stat.date&fields[]=Stat.datetime&filters[Stat.id]=cnv_h3`,
      ),
    );
    expect(conv.data).toEqual([{ Stat: { id: 'cnv_h3', date: '2032-05-03', datetime: '2032-05-03 01:00:00' } }]);
    const stats = ok(
      await call(
        `Target=Affiliate_Report&Method=getStats&${range}&hour_offset=10&fields[]=Stat.conversions&groups[]=Stat.date&filters[Stat.conversions][conditional]=GREATER_THAN&filters[Stat.conversions][values]=0&sort[Stat.date]=asc`,
      ),
    );
    expect(stats.data.map((r: { Stat: { date: string; conversions: number } }) => [r.Stat.date, r.Stat.conversions])).toEqual([
      ['2032-05-01', 1],
      ['2032-05-02', 1],
      ['2032-05-03', 1],
    ]);
    // The last hours of data_end in UTC+10 are outside 2032-05-02's local day.
    const narrow = ok(await call(`Target=Affiliate_Report&Method=getConversions&data_start=2032-05-02&data_end=2032-05-02&hour_offset=10&fields[]=Stat.id`));
    expect(narrow.data).toEqual([{ Stat: { id: 'cnv_h2' } }]);
    failed(await call('Target=Affiliate_Report&Method=getStats&hour_offset=-13'), 400, /hour_offset/);
  });

  it("offers are programs; generateTrackingLink answers the caller's own tracked link; POST form bodies work", async () => {
    const mine = ok(await call('Target=Affiliate_Offer&Method=findMyApprovedOffers'));
    expect(mine[String(approvedProgram)].Offer).toMatchObject({ id: String(approvedProgram), status: 'active' });
    expect(ok(await call(`Target=Affiliate_Offer&Method=findById&id=${approvedProgram}`)).Offer.id).toBe(String(approvedProgram));
    failed(await call('Target=Affiliate_Offer&Method=findById&id=999999'), 404, /Offer 999999 not found/);
    const link = await request(app())
      .post('/Apiv3/json')
      .type('form')
      .send(
        `api_key=${encodeURIComponent(pub().reporting_token)}&Target=Affiliate_Offer&Method=generateTrackingLink&offer_id=${approvedProgram}&params[aff_sub]=yt-42`,
      );
    expect(ok(link).click_url).toMatch(new RegExp(`^${deps.config.trackingUrl}/c/[A-Za-z0-9_-]+$`));
    const again = ok(await call(`Target=Affiliate_Offer&Method=generateTrackingLink&offer_id=${approvedProgram}&params[aff_sub]=yt-42`));
    expect(again.click_url).toBe(ok(link).click_url);
    failed(await call(`Target=Affiliate_Offer&Method=generateTrackingLink&offer_id=${approvedProgram}&params[aff_sub]=has spaces`), 400, /aff_sub/);
    failed(await request(app()).post('/Apiv3/json').set('Content-Type', 'application/json').send('{}'), 415, /form-urlencoded/);
  });

  it('generateTrackingLink keeps the links policy: a demo account gets 403 and no link', async () => {
    // A demo account approved for the program: only the policy stands between it and a link.
    await deps.models.Publisher.create({ _id: 'pub_apiv3_demo', name: 'Demo', status: 'active', is_demo: true });
    await deps.models.Membership.create({ publisher_id: 'pub_apiv3_demo', program_id: approvedProgram, status: 'approved' });
    const token = (await issueCredential(deps.data.auth, 'pub_apiv3_demo', 'reporting_token')).secret;
    const res = await request(app()).get(
      `/Apiv3/json?api_key=${encodeURIComponent(token)}&Target=Affiliate_Offer&Method=generateTrackingLink&offer_id=${approvedProgram}`,
    );
    expect(res.body.response).toMatchObject({ status: -1, httpStatus: 403 });
    expect(res.body.response.errorMessage).toMatch(/Demo accounts/);
    expect(await deps.models.Link.countDocuments({ publisher_id: 'pub_apiv3_demo' })).toBe(0);
  });

  it('never answers 500 to odd nesting, repeated keys, huge arrays or wrong types', async () => {
    const huge = Array.from({ length: 2000 }, (_, i) => `fields[]=S.c${i}`).join('&');
    for (const q of [
      'Target[]=a&Method=b',
      'Target=Affiliate_Report&Target=Affiliate_Offer&Method=findAll',
      `Target=Affiliate_Report&Method=getStats&${range}&filters[a][b][c][d][e][f]=1`,
      `Target=Affiliate_Report&Method=getStats&${range}&filters=1`,
      `Target=Affiliate_Report&Method=getStats&${range}&sort=1`,
      `Target=Affiliate_Report&Method=getStats&${range}&fields=Stat.clicks&limit=-1`,
      `Target=Affiliate_Report&Method=getConversions&${range}&filters[Stat.id][values][x][y]=1`,
      'Target=__proto__&Method=constructor',
      'Target=Affiliate_Offer&Method=hasOwnProperty',
      `Target=Affiliate_Offer&Method=generateTrackingLink&offer_id[]=1`,
      `Target=Affiliate_Report&Method=getStats&data_start=2020-01-01&data_end=2032-01-01`,
    ]) {
      const res = await call(q);
      expect(res.status, q.slice(0, 200)).toBe(200);
      expect(res.body.response.status, q).toBe(-1);
      expect(res.body.response.httpStatus, q).toBeGreaterThanOrEqual(400);
      expect(res.body.response.httpStatus, q).toBeLessThan(500);
    }
    // Huge arrays come in bodies (a URL that long is refused by Node itself, 431).
    const big = await request(app())
      .post('/Apiv3/json')
      .type('form')
      .send(`api_key=${encodeURIComponent(pub().reporting_token)}&Target=Affiliate_Report&Method=getStats&${range}&${huge}`);
    expect(big.status).toBe(200);
    expect(big.body.response).toMatchObject({ status: -1, httpStatus: 400 });
    const tooBig = await request(app())
      .post('/Apiv3/json')
      .type('form')
      .send(`api_key=x&pad=${'a'.repeat(70_000)}`);
    expect(tooBig.body.response).toMatchObject({ status: -1, httpStatus: 413 });
  });
});
