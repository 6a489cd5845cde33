/** GET /conversions/ and GET /reports/ through HTTP on the seeded demo data (90 days, every status, ledger entries). */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDecimals, formatDecimal } from '@cw/money';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let server: ReturnType<ReturnType<typeof createApp>['callback']>;
const get = (path: string, key = deps.demo!.publishers[0].keys.live) => request(server).get(`/api/v1/publisher${path}`).set('X-API-Key', key);
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 50, env: { RATELIMIT_REPORTING_PER_MIN: '100000' } });
  server = createApp(deps).callback();
});
afterAll(async () => deps?.close());

type Conv = {
  id: string;
  status: string;
  subid: string | null;
  occurred_at: string;
  updated_at: string;
  source: string;
  commission: string;
  currency: string;
  sale_amount: string;
  merchant: unknown;
};

describe('GET /conversions/', () => {
  it("lists the caller's conversions newest first with exact money and no merchant order id", async () => {
    const res = await get('/conversions/?page_size=500');
    expect(res.status).toBe(200);
    const data = res.body.data as Conv[];
    expect(data.length).toBeGreaterThan(20);
    const times = data.map((c) => Date.parse(c.occurred_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    for (const c of data) {
      expect(c.commission).toMatch(/^-?\d+\.\d{2}$/);
      expect(c.sale_amount).toMatch(/^\d+\.\d{2}$/);
      expect(JSON.stringify(c)).not.toMatch(/ORD-|order_ref|order_id/);
    }
    expect(new Set(data.map((c) => c.status))).toEqual(new Set(['pending', 'approved', 'declined']));
    expect(res.body).toMatchObject({ page: 1, page_size: 500 });
  });

  it('filters by inclusive UTC days, sub-ID, status, source and updated_since', async () => {
    const from = day(-10);
    const to = day(-3);
    const res = await get(`/conversions/?date_from=${from}&date_to=${to}&page_size=500`);
    for (const c of res.body.data as Conv[]) {
      expect(c.occurred_at.slice(0, 10) >= from && c.occurred_at.slice(0, 10) <= to).toBe(true);
    }
    const sub = await get('/conversions/?subid=newsletter&status=approved&page_size=500');
    expect((sub.body.data as Conv[]).every((c) => c.subid === 'newsletter' && c.status === 'approved')).toBe(true);
    const ledger = await get('/conversions/?source=ledger');
    expect((ledger.body.data as Conv[]).map((c) => c.commission).sort()).toEqual(['-4.50', '25.00']);
    expect((ledger.body.data as Conv[]).every((c) => c.source === 'ledger')).toBe(true);
    const since = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const recent = await get(`/conversions/?updated_since=${encodeURIComponent(since)}&page_size=500`);
    expect((recent.body.data as Conv[]).every((c) => c.updated_at >= since)).toBe(true);
  });

  it('adds a sub-ID rollup over the whole filtered set, not only the page', async () => {
    const all = await get('/conversions/?status=approved&page_size=500');
    const one = await get('/conversions/?status=approved&page_size=1');
    expect(one.body.data).toHaveLength(1);
    expect(one.body.has_more).toBe(true);
    expect(one.body.subid_rollup).toEqual(all.body.subid_rollup);
    const total = (one.body.subid_rollup as Array<{ conversions: number }>).reduce((n, r) => n + r.conversions, 0);
    expect(total).toBe(all.body.data.length);
    const eur = formatDecimal(addDecimals((all.body.data as Conv[]).filter((c) => c.currency === 'EUR').map((c) => c.commission)));
    const rolled = formatDecimal(addDecimals((one.body.subid_rollup as Array<{ commission: Record<string, string> }>).map((r) => r.commission.EUR ?? '0')));
    expect(rolled).toBe(eur);
  });

  it('answers 400 for a reversed range, bad dates, page sizes over 500, unknown and repeated parameters', async () => {
    expectErrorShape(await get(`/conversions/?date_from=${day(-1)}&date_to=${day(-5)}`), 400, 'invalid_parameter');
    expectErrorShape(await get('/conversions/?date_from=2026-13-01'), 400, 'invalid_parameter');
    expectErrorShape(await get('/conversions/?updated_since=yesterday'), 400, 'invalid_parameter');
    expectErrorShape(await get('/conversions/?page_size=501'), 400, 'invalid_parameter');
    expectErrorShape(await get('/conversions/?status=paid'), 400, 'invalid_parameter');
    expectErrorShape(await get('/conversions/?source=manual'), 400, 'invalid_parameter');
    expectErrorShape(await get('/conversions/?order_id=1'), 400, 'unknown_parameter');
    expectErrorShape(await get('/conversions/?subid=a&subid=b'), 400, 'repeated_parameter');
  });

  it("refuses demo keys and shows no other account's conversions", async () => {
    expectErrorShape(await get('/conversions/', deps.demo!.publishers[0].keys.demo), 403, 'credential_not_allowed');
    const mine = new Set(((await get('/conversions/?page_size=500')).body.data as Conv[]).map((c) => c.id));
    const theirs = ((await get('/conversions/?page_size=500', deps.demo!.publishers[1].keys.live)).body.data as Conv[]).map((c) => c.id);
    expect(theirs.length).toBeGreaterThan(0);
    expect(theirs.filter((id) => mine.has(id))).toEqual([]);
    expectErrorShape(await get('/conversions/', deps.demo!.publishers[0].reporting_token), 401, 'not_authenticated');
  });
});

describe('GET /reports/', () => {
  it('groups the last 30 days by day by default: dense, in order, totals equal to the rows', async () => {
    const res = await get('/reports/');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ group_by: 'day', date_to: day(0), date_from: day(-29), timezone: 'UTC' });
    const keys = (res.body.rows as Array<{ key: string }>).map((r) => r.key);
    expect(keys).toHaveLength(30);
    expect(keys[0]).toBe(day(-29));
    expect(keys[29]).toBe(day(0));
    const rows = res.body.rows as Array<{ conversions: number; approved: number; pending: number; declined: number; commission: Record<string, string> }>;
    expect(rows.reduce((n, r) => n + r.conversions, 0)).toBe(res.body.totals.conversions);
    for (const r of rows) expect(r.approved + r.pending + r.declined).toBe(r.conversions);
    for (const cur of Object.keys(res.body.totals.commission)) {
      expect(formatDecimal(addDecimals(rows.map((r) => r.commission[cur] ?? '0')))).toBe(res.body.totals.commission[cur]);
    }
  });

  it('matches the conversions list for the same range and filters', async () => {
    const from = day(-60);
    const to = day(-1);
    const report = await get(`/reports/?group_by=status&date_from=${from}&date_to=${to}&subid=sidebar`);
    const list = await get(`/conversions/?date_from=${from}&date_to=${to}&subid=sidebar&page_size=500`);
    const byStatus = (s: string) => (list.body.data as Conv[]).filter((c) => c.status === s);
    for (const row of report.body.rows as Array<{ key: string; conversions: number; commission: Record<string, string> }>) {
      expect(row.conversions).toBe(byStatus(row.key).length);
      for (const [cur, amount] of Object.entries(row.commission)) {
        expect(amount).toBe(
          formatDecimal(
            addDecimals(
              byStatus(row.key)
                .filter((c) => c.currency === cur)
                .map((c) => c.commission),
            ),
          ),
        );
      }
    }
  });

  it('keys weeks by their Monday and months as YYYY-MM, densely', async () => {
    const weeks = await get(`/reports/?group_by=week&date_from=${day(-89)}&date_to=${day(0)}`);
    for (const r of weeks.body.rows as Array<{ key: string }>) expect(new Date(`${r.key}T00:00:00Z`).getUTCDay()).toBe(1);
    expect(weeks.body.rows.length).toBeGreaterThanOrEqual(13);
    const months = await get('/reports/?group_by=month&date_from=2026-01-15&date_to=2026-04-02');
    expect((months.body.rows as Array<{ key: string }>).map((r) => r.key)).toEqual(['2026-01', '2026-02', '2026-03', '2026-04']);
    const campaigns = await get(`/reports/?group_by=campaign&date_from=${day(-89)}`);
    const campaignKeys = (campaigns.body.rows as Array<{ key: string | null }>).map((r) => r.key);
    expect(campaignKeys.filter((k) => k !== null).every((k) => /^\d+$/.test(k!))).toBe(true);
    // The welcome bonus belongs to no campaign.
    expect(campaignKeys).toContain(null);
  });

  it('reads days in the asked IANA time zone (+05:45 and a daylight-saving zone) and echoes it', async () => {
    for (const zone of ['Asia/Kathmandu', 'America/New_York']) {
      const from = day(-20);
      const to = day(-12);
      const report = await get(`/reports/?group_by=day&date_from=${from}&date_to=${to}&timezone=${encodeURIComponent(zone)}`);
      expect(report.status).toBe(200);
      expect(report.body).toMatchObject({ timezone: zone, date_from: from, date_to: to });
      // The same conversions from the list (UTC days around the range), put in the zone's days here.
      const list = await get(`/conversions/?date_from=${day(-21)}&date_to=${day(-11)}&page_size=500`);
      const localDay = (t: string) =>
        new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(t));
      const rows = report.body.rows as Array<{ key: string; conversions: number }>;
      expect(rows.map((r) => r.key)[0]).toBe(from);
      for (const r of rows) expect(r.conversions, `${zone} ${r.key}`).toBe((list.body.data as Conv[]).filter((c) => localDay(c.occurred_at) === r.key).length);
    }
  });

  it('answers 400 naming timezone for a zone that does not exist', async () => {
    const res = await get('/reports/?timezone=Mars%2FOlympus_Mons');
    expectErrorShape(res, 400, 'invalid_parameter');
    expect(res.body.errors[0].param).toBe('timezone');
  });

  it('answers 400 for more than 366 days, a reversed range and an unknown grouping', async () => {
    expectErrorShape(await get('/reports/?date_from=2025-01-01&date_to=2026-01-02'), 400, 'invalid_parameter');
    expectErrorShape(await get(`/reports/?date_from=${day(0)}&date_to=${day(-1)}`), 400, 'invalid_parameter');
    expectErrorShape(await get('/reports/?group_by=hour'), 400, 'invalid_parameter');
    expect((await get('/reports/?date_from=2025-01-02&date_to=2026-01-02')).status).toBe(200);
  });
});
