/**
 * The reporting-token API through HTTP: only the reporting token works here; sales, sub-ID sales,
 * the summary (clicks without bots, conversion rate, EPC per currency) and the streamed CSV.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Types } from 'mongoose';
import { rotateCredential } from '@cw/auth';
import { rebuildStats } from '@cw/stats';
import { createTestDeps, expectErrorShape, type TestDeps, handlerServer } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
const BASE = '/api/v1/affiliate-reporting';
const pub = () => deps.demo!.publishers[0];
const app = () => createApp(deps).callback();
const token = () => `Bearer ${pub().reporting_token}`;

const day = (d: string, h = 12) => new Date(`${d}T${String(h).padStart(2, '0')}:00:00.000Z`);

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20, env: { RATELIMIT_REPORTING_TOKEN_PER_MIN: '100000' } });
  const p = pub().account_id;
  const sale = (id: string, subid: string, status: string, amount: string, commission: string, currency: string, at: Date, campaign = 501) => ({
    _id: id,
    publisher_id: p,
    program_id: 1001,
    campaign_id: campaign,
    click_id: `clk_${id}`,
    subid,
    order_ref: `secret-order-${id}`,
    status,
    sale_amount: Types.Decimal128.fromString(amount),
    commission: Types.Decimal128.fromString(commission),
    currency,
    occurred_at: at,
    source: 'v1',
    created_at: at,
    updated_at: at,
  });
  await deps.models.Conversion.insertMany([
    sale('cnv_rt1', 'rt-a', 'approved', '100.00', '8.00', 'EUR', day('2031-03-01')),
    sale('cnv_rt2', 'rt-a', 'pending', '50.00', '4.00', 'EUR', day('2031-03-02')),
    sale('cnv_rt3', 'rt-a', 'approved', '20.00', '1.60', 'GBP', day('2031-03-02', 18)),
    sale('cnv_rt4', '=HYPERLINK("http://x")', 'declined', '10.00', '0.80', 'EUR', day('2031-03-03')),
    { ...sale('cnv_rt5', 'rt-a', 'approved', '0', '-3.00', 'EUR', day('2031-03-02')), source: 'ledger', reason: 'correction' },
  ]);
  const click = (n: number, subid: string, at: Date, bot = false) => ({
    _id: `clk_rt_${subid}_${n}_${bot}`,
    link_id: 'lnk_rt',
    publisher_id: p,
    program_id: 1001,
    campaign_id: 501,
    subid,
    created_at: at,
    is_bot: bot,
  });
  await deps.models.Click.insertMany([
    ...Array.from({ length: 10 }, (_, i) => click(i, 'rt-a', day('2031-03-01'))),
    ...Array.from({ length: 5 }, (_, i) => click(i, 'rt-a', day('2031-03-02'), true)),
    ...Array.from({ length: 4 }, (_, i) => click(i, 'rt-b', day('2031-03-02'))),
  ]);
  // History written as rows (an import): the stats read model is rebuilt from them, as an operator would.
  await rebuildStats(deps, { publisherId: p });
});
afterAll(() => deps?.close());

const range = 'date_from=2031-03-01&date_to=2031-03-31';

describe('reporting-token API', () => {
  it('accepts only the reporting token: API keys, portal token and offers credential get 401; so does a rotated token at once', async () => {
    for (const secret of [pub().keys.live, pub().portal_token, pub().keys.read_only, pub().offers_credential]) {
      expectErrorShape(await request(app()).get(`${BASE}/sales/`).set('Authorization', `Bearer ${secret}`), 401, 'not_authenticated');
    }
    expectErrorShape(await request(app()).get(`${BASE}/sales/`).set('X-API-Key', pub().reporting_token), 401, 'not_authenticated');
    const ok = await request(app()).get(`${BASE}/sales/?${range}`).set('Authorization', token());
    expect(ok.status).toBe(200);
    expect(ok.headers['ratelimit-limit']).toBeDefined();

    // Rotation: a second app instance (another process would read the same database) refuses the old token on its next request.
    const other = createApp(deps).callback();
    const cred = await deps.models.Credential.findOne({ publisher_id: pub().account_id, type: 'reporting_token', status: 'active' }).lean();
    const rotated = await rotateCredential(deps.data.auth, String(cred!._id));
    expectErrorShape(await request(other).get(`${BASE}/sales/`).set('Authorization', token()), 401, 'not_authenticated');
    expectErrorShape(await request(app()).get(`${BASE}/sales/`).set('Authorization', token()), 401, 'not_authenticated');
    expect((await request(other).get(`${BASE}/sales/?${range}`).set('Authorization', `Bearer ${rotated.secret}`)).status).toBe(200);
    pub().reporting_token = rotated.secret;
  });

  it('lists sales newest first with sub_id, money as decimal strings, never the order id or ledger entries', async () => {
    const res = await request(app()).get(`${BASE}/sales/?${range}&page_size=2`).set('Authorization', token());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, page_size: 2, has_more: true, next_page: 2 });
    expect(res.body.data.map((s: { id: string }) => s.id)).toEqual(['cnv_rt4', 'cnv_rt3']);
    expect(res.body.data[1]).toMatchObject({
      sub_id: 'rt-a',
      status: 'approved',
      sale_amount: '20.00',
      commission: '1.60',
      currency: 'GBP',
      merchant: { id: 501 },
      program_id: 1001,
      click_id: 'clk_cnv_rt3',
    });
    expect(JSON.stringify(res.body)).not.toContain('secret-order');
    const all = await request(app()).get(`${BASE}/sales/?${range}&sub_id=rt-a`).set('Authorization', token());
    expect(all.body.data.map((s: { id: string }) => s.id)).toEqual(['cnv_rt3', 'cnv_rt2', 'cnv_rt1']);
    const approved = await request(app()).get(`${BASE}/sales/?${range}&status=approved&merchant=501`).set('Authorization', token());
    expect(approved.body.data.map((s: { id: string }) => s.id)).toEqual(['cnv_rt3', 'cnv_rt1']);
    const subids = await request(app()).get(`${BASE}/subid-sales/?${range}&sub_id=rt-a`).set('Authorization', token());
    expect(subids.body.data[0]).toEqual({
      sale_id: 'cnv_rt3',
      sub_id: 'rt-a',
      status: 'approved',
      commission: '1.60',
      currency: 'GBP',
      occurred_at: '2031-03-02T18:00:00.000Z',
    });
  });

  it('summarises per channel: every sale by how it was attributed, the clicks on the link row, at most 366 days', async () => {
    const p = pub().account_id;
    const at = day('2031-05-10');
    const row = (id: string, channel: string | undefined, status: string, commission: string, source = 'v1') => ({
      _id: id,
      publisher_id: p,
      program_id: 1001,
      campaign_id: 501,
      subid: '',
      status,
      sale_amount: Types.Decimal128.fromString('50.00'),
      commission: Types.Decimal128.fromString(commission),
      currency: 'EUR',
      occurred_at: at,
      source,
      ...(channel ? { channel } : {}),
      created_at: at,
      updated_at: at,
    });
    await deps.models.Conversion.insertMany([
      row('cnv_ch1', 'code', 'approved', '5.00'),
      row('cnv_ch2', 'code', 'pending', '2.50'),
      row('cnv_ch3', 'agent', 'pending', '4.00'),
      row('cnv_ch4', 'inquiry', 'declined', '1.00'),
      row('cnv_ch5', 'link', 'approved', '3.00'),
      row('cnv_ch6', undefined, 'approved', '0.50'),
      row('cnv_ch7', undefined, 'approved', '-2.00', 'ledger'),
    ]);
    const may = await request(app()).get(`${BASE}/summary/?date_from=2031-05-01&date_to=2031-05-31&group_by=channel`).set('Authorization', token());
    expect(may.status).toBe(200);
    expect(may.body).toMatchObject({ group_by: 'channel', date_from: '2031-05-01', date_to: '2031-05-31', timezone: 'UTC' });
    // Rows from before channels existed are links; ledger corrections are not sales.
    expect(may.body.data).toEqual([
      { channel: 'link', clicks: 0, sales: 2, conversion_rate: '0.0000', earnings: { EUR: '3.50' }, epc: { EUR: '0.0000' } },
      { channel: 'code', clicks: 0, sales: 2, conversion_rate: '0.0000', earnings: { EUR: '7.50' }, epc: { EUR: '0.0000' } },
      { channel: 'agent', clicks: 0, sales: 1, conversion_rate: '0.0000', earnings: { EUR: '4.00' }, epc: { EUR: '0.0000' } },
      { channel: 'inquiry', clicks: 0, sales: 1, conversion_rate: '0.0000', earnings: { EUR: '1.00' }, epc: { EUR: '0.0000' } },
    ]);
    const pending = await request(app())
      .get(`${BASE}/summary/?date_from=2031-05-01&date_to=2031-05-31&group_by=channel&status=pending`)
      .set('Authorization', token());
    expect(pending.body.data.map((r: { channel: string; sales: number }) => [r.channel, r.sales])).toEqual([
      ['code', 1],
      ['agent', 1],
    ]);

    // March: the clicks (bots excluded) are the link row's, with its conversion rate and EPC, and equal the sub-ID summary's.
    const march = await request(app()).get(`${BASE}/summary/?${range}&group_by=channel`).set('Authorization', token());
    const bySubid = await request(app()).get(`${BASE}/summary/?${range}&group_by=subid`).set('Authorization', token());
    const clicks = bySubid.body.data.reduce((n: number, r: { clicks: number }) => n + r.clicks, 0);
    const sales = bySubid.body.data.reduce((n: number, r: { sales: number }) => n + r.sales, 0);
    expect(march.body.data).toEqual([
      {
        channel: 'link',
        clicks,
        sales,
        conversion_rate: (sales / clicks).toFixed(4),
        earnings: { EUR: '12.80', GBP: '1.60' },
        epc: { EUR: '0.9143', GBP: '0.1143' },
      },
    ]);

    // Without date_from: the 366 days to date_to; a longer range is 400 naming date_from.
    const year = await request(app()).get(`${BASE}/summary/?date_to=2031-05-31&group_by=channel`).set('Authorization', token());
    expect(year.body).toMatchObject({ date_from: '2030-05-31', date_to: '2031-05-31' });
    expect(year.body.data.find((r: { channel: string }) => r.channel === 'code').sales).toBe(2);
    const long = await request(app()).get(`${BASE}/summary/?date_from=2030-01-01&date_to=2031-05-31&group_by=channel`).set('Authorization', token());
    expectErrorShape(long, 400, 'invalid_parameter');
    expect(long.body.errors).toEqual([{ param: 'date_from', detail: 'the range exceeds 366 days' }]);
    // A range that starts after today (date_to's default) is 400 too.
    expectErrorShape(
      await request(app()).get(`${BASE}/summary/?date_from=2099-01-01&group_by=channel`).set('Authorization', token()),
      400,
      'invalid_parameter',
    );
  });

  it('summarises per sub-ID and per day: clicks without bots, conversion rate, earnings and EPC per currency', async () => {
    const res = await request(app()).get(`${BASE}/summary/?${range}&group_by=subid`).set('Authorization', token());
    expect(res.status).toBe(200);
    const a = res.body.data.find((r: { sub_id: string }) => r.sub_id === 'rt-a');
    expect(a).toEqual({
      sub_id: 'rt-a',
      clicks: 10,
      sales: 3,
      conversion_rate: '0.3000',
      earnings: { EUR: '12.00', GBP: '1.60' },
      epc: { EUR: '1.2000', GBP: '0.1600' },
    });
    expect(res.body.data.find((r: { sub_id: string }) => r.sub_id === 'rt-b')).toMatchObject({ clicks: 4, sales: 0, conversion_rate: '0.0000', earnings: {} });
    const days = await request(app()).get(`${BASE}/summary/?${range}&group_by=day&sub_id=rt-a`).set('Authorization', token());
    expect(days.body.data.map((r: { day: string; clicks: number; sales: number }) => [r.day, r.clicks, r.sales])).toEqual([
      ['2031-03-01', 10, 1],
      ['2031-03-02', 0, 2],
    ]);
  });

  it('summarises by the calendar days of the asked time zone, and answers 400 naming an unknown one', async () => {
    // 18:00 UTC on March 2 is 03:00 on March 3 in Tokyo.
    const tokyo = await request(app()).get(`${BASE}/summary/?${range}&group_by=day&timezone=Asia/Tokyo`).set('Authorization', token());
    expect(tokyo.status).toBe(200);
    expect(tokyo.body.timezone).toBe('Asia/Tokyo');
    expect(
      tokyo.body.data.map((r: { day: string; clicks: number; sales: number; earnings: Record<string, string> }) => [r.day, r.clicks, r.sales, r.earnings]),
    ).toEqual([
      ['2031-03-01', 10, 1, { EUR: '8.00' }],
      ['2031-03-02', 4, 1, { EUR: '4.00' }],
      ['2031-03-03', 0, 2, { EUR: '0.80', GBP: '1.60' }],
    ]);
    const utc = await request(app()).get(`${BASE}/summary/?${range}&group_by=day`).set('Authorization', token());
    expect(utc.body.timezone).toBe('UTC');
    expect(utc.body.data.map((r: { day: string; sales: number }) => [r.day, r.sales])).toEqual([
      ['2031-03-01', 1],
      ['2031-03-02', 2],
      ['2031-03-03', 1],
    ]);
    // An open-ended range (only date_from) in a zone: the same days.
    const open = await request(app()).get(`${BASE}/summary/?date_from=2031-03-01&group_by=day&sub_id=rt-a&timezone=Asia/Tokyo`).set('Authorization', token());
    expect(open.body.data.map((r: { day: string; sales: number }) => [r.day, r.sales])).toEqual([
      ['2031-03-01', 1],
      ['2031-03-02', 1],
      ['2031-03-03', 1],
    ]);
    const bad = await request(app()).get(`${BASE}/summary/?${range}&timezone=Europe/Atlantis`).set('Authorization', token());
    expectErrorShape(bad, 400, 'invalid_parameter');
    expect(bad.body.errors[0].param).toBe('timezone');
  });

  it('exports every sale of the filter as CSV with a dated attachment name and formulas neutralised', async () => {
    const res = await request(app())
      .get(`${BASE}/sales/export/?${range}`)
      .set('Authorization', token())
      .buffer(true)
      .parse((r, cb) => {
        let s = '';
        r.on('data', (c: Buffer) => (s += c));
        r.on('end', () => cb(null, s));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="sales-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = parse(res.body as string, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => r.id)).toEqual(['cnv_rt4', 'cnv_rt3', 'cnv_rt2', 'cnv_rt1']);
    expect(rows[1]).toMatchObject({ sub_id: 'rt-a', commission: '1.60', currency: 'GBP', merchant_id: '501', occurred_at: '2031-03-02T18:00:00.000Z' });
    expect(rows[0].sub_id).toBe(`'=HYPERLINK("http://x")`);
    expect((res.body as string).split('\r\n')[0]).toBe(
      'id,sub_id,status,sale_amount,commission,currency,merchant_id,merchant_name,program_id,click_id,occurred_at,updated_at',
    );
  });

  it("exports exactly the rows of the list's pages walked to the end, for a filtered export across many batches", async () => {
    // Two merchants, three statuses, times that tie: the export's order and filter are the list's.
    const at = day('2031-08-10');
    await deps.models.Conversion.insertMany(
      Array.from({ length: 1300 }, (_, i) => ({
        _id: `cnv_walk${String(i).padStart(4, '0')}`,
        publisher_id: pub().account_id,
        program_id: 1001,
        campaign_id: i % 4 === 0 ? 502 : 501,
        click_id: `clk_walk${i}`,
        subid: 'walk',
        status: ['approved', 'pending', 'declined'][i % 3],
        sale_amount: Types.Decimal128.fromString(`${(i % 90) + 1}.25`),
        commission: Types.Decimal128.fromString(`${i % 7}.10`),
        currency: i % 5 === 0 ? 'GBP' : 'EUR',
        occurred_at: new Date(at.getTime() - (i % 40) * 3_600_000),
        source: 'v1',
        created_at: at,
        updated_at: at,
      })),
    );
    const filter = 'sub_id=walk&status=approved&date_from=2031-08-08&date_to=2031-08-10';
    const listed: Array<Record<string, unknown>> = [];
    for (let cursor: string | null = null; ;) {
      const page: { status: number; body: { data: Array<Record<string, unknown>>; next_cursor: string | null } } = await request(app())
        .get(`${BASE}/sales/?${filter}&page_size=97${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
        .set('Authorization', token());
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      listed.push(...page.body.data);
      cursor = page.body.next_cursor;
      if (!cursor) break;
    }
    expect(listed.length).toBeGreaterThan(400);
    const res = await request(app()).get(`${BASE}/sales/export/?${filter}`).set('Authorization', token()).buffer(true);
    expect(res.status).toBe(200);
    const rows = parse(res.text, { columns: true }) as Array<Record<string, string>>;
    expect(rows).toEqual(
      listed.map((s) => {
        const merchant = s.merchant as { id: number; name: string } | null;
        return {
          id: s.id,
          sub_id: s.sub_id ?? '',
          status: s.status,
          sale_amount: s.sale_amount,
          commission: s.commission,
          currency: s.currency,
          merchant_id: merchant ? String(merchant.id) : '',
          merchant_name: merchant?.name ?? '',
          program_id: s.program_id === null ? '' : String(s.program_id),
          click_id: s.click_id ?? '',
          occurred_at: s.occurred_at,
          updated_at: s.updated_at,
        };
      }),
    );
    expect(new Set(rows.map((r) => r.merchant_id))).toEqual(new Set(['501', '502']));
  });

  it('closes its database cursor when the client goes away in the middle of an export', async () => {
    // Enough sales for several batches, so the export's cursor stays open while it streams.
    const at = day('2031-06-01');
    await deps.models.Conversion.insertMany(
      Array.from({ length: 5000 }, (_, i) => ({
        _id: `cnv_bulk${i}`,
        publisher_id: pub().account_id,
        program_id: 1001,
        campaign_id: 501,
        subid: 'bulk',
        status: 'pending',
        sale_amount: Types.Decimal128.fromString('1.00'),
        commission: Types.Decimal128.fromString('0.10'),
        currency: 'EUR',
        occurred_at: at,
        source: 'v1',
        created_at: at,
        updated_at: at,
      })),
    );
    const openCursors = async () => Number((await deps.db.connection.db!.admin().command({ serverStatus: 1 })).metrics.cursor.open.total);
    const before = await openCursors();
    const server = handlerServer(app());
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      await new Promise<void>((ok, no) => {
        const req = http.get(
          { port: (server.address() as AddressInfo).port, path: `${BASE}/sales/export/?sub_id=bulk`, headers: { Authorization: token() } },
          (res) => {
            res.once('data', () => {
              req.destroy();
              ok();
            });
          },
        );
        req.on('error', (e) => (e.message.includes('socket hang up') ? ok() : no(e)));
      });
      let open = await openCursors();
      for (let i = 0; i < 50 && open > before; i++) {
        await new Promise((r) => setTimeout(r, 20));
        open = await openCursors();
      }
      expect(open).toBe(before);
      // And the server stays healthy for the next request.
      expect((await request(server).get(`${BASE}/sales/?${range}`).set('Authorization', token())).status).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    }
  });

  it('answers bad input with 400 naming the parameter', async () => {
    for (const [q, param] of [
      ['date_from=2031-13-01', 'date_from'],
      ['page_size=1001', 'page_size'],
      ['page_size=0', 'page_size'],
      ['foo=1', 'foo'],
      ['status=paid', 'status'],
      ['date_from=2031-03-05&date_to=2031-03-01', 'date_from'],
      ['merchant=abc', 'merchant'],
    ]) {
      const res = await request(app()).get(`${BASE}/sales/?${q}`).set('Authorization', token());
      expectErrorShape(res, 400);
      expect(JSON.stringify(res.body)).toContain(param);
    }
    expectErrorShape(await request(app()).get(`${BASE}/summary/?group_by=week`).set('Authorization', token()), 400);
  });
});
