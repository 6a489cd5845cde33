/**
 * The dashboard in a real headless Chromium on the local platform (demo data over the last 90
 * days): its totals for a range equal what a program reads through the API for the same range and
 * time zone (GET /reports by status, the reporting API's /summary for clicks), over the week the
 * clocks change in America/New_York and in Asia/Kathmandu (UTC+05:45); the chart is drawn and its
 * numbers are in the table view; the split by channel equals GET /reports/?group_by=channel; axe-core
 * finds nothing serious.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startPlatform, type Platform } from './support/test-platform';
import { axeViolations, serious } from '../src/axe-check';
import { clicksFromStats } from '@cw/app-postback-worker';
import { connectDatabase } from '@cw/db';
import { checkLinkHealth } from '@cw/links';
import { openPlatformData } from '@cw/runtime';
import { readFacts } from '@cw/stats';
import { CHROMIUM_ARGS, chromiumPath, portalEnv, signIn, type PortalEnv } from '../src/portal-journeys';
import { apiTotals, dashboardJourney, dashboardLiveJourney, setAccountZone } from '../src/portal-dashboard-journeys';

let platform: Platform;
let env: PortalEnv;
let browser: Browser;
let page: Page;
let mailDir: string;

beforeAll(async () => {
  const problem = inject('chromiumProblem');
  if (problem) throw new Error(problem);
  mailDir = mkdtempSync(join(tmpdir(), 'portal-dashboard-mail-'));
  platform = await startPlatform({ env: { PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'silent' }, seedProducts: 50, credentialsPath: null, mailDir });
  env = portalEnv(platform, mailDir);
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  // bypassCSP: the axe check injects its script (the pages' own scripts are unaffected).
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true, locale: 'en-US' });
  page = await context.newPage();
  await signIn(page, env, env.credentials.publishers[0]!.portal_login);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  if (mailDir) rmSync(mailDir, { recursive: true, force: true });
});

/** The Monday-to-Tuesday span around the first Sunday of November, within the demo data's 90 days. */
function dstWeek(): { from: string; to: string } {
  const now = new Date();
  let year = now.getUTCFullYear();
  const firstSunday = (y: number) => {
    const d = new Date(Date.UTC(y, 10, 1));
    return new Date(Date.UTC(y, 10, 1 + ((7 - d.getUTCDay()) % 7)));
  };
  if (firstSunday(year).getTime() > now.getTime() - 3 * 86_400_000) year--;
  const sunday = firstSunday(year).getTime();
  const iso = (t: number) => new Date(t).toISOString().slice(0, 10);
  return { from: iso(sunday - 6 * 86_400_000), to: iso(sunday + 2 * 86_400_000) };
}

describe('dashboard', () => {
  for (const zone of ['America/New_York', 'Asia/Kathmandu']) {
    it(`shows the API's totals for a range of days in ${zone}`, async () => {
      const { from, to } = dstWeek();
      await setAccountZone(page, env.credentials.publishers[0]!.account_id, zone);
      const seen = await dashboardJourney(page, env, from, to);
      const api = await apiTotals(env, zone, from, to);
      expect(seen.overview.timezone).toBe(zone);
      // The demo data has traffic on these days: the comparison is not of zeros.
      expect(api.clicks).toBeGreaterThan(0);
      expect(api.conversions.total).toBeGreaterThan(0);
      expect(seen.overview.totals.clicks).toBe(api.clicks);
      expect(seen.overview.totals.conversions).toEqual(api.conversions);
      expect(seen.overview.totals.commission).toMatchObject(api.commission);
      // What the cards show is those numbers, formatted by Intl.
      expect(seen.shown.clicks).toBe(seen.expected.clicks);
      expect(seen.shown.conversions).toBe(seen.expected.conversions);
      expect(seen.shown.statuses).toContain(`${api.conversions.approved} approved`);
      expect(seen.shown.earned.slice(0, seen.expected.earned.length)).toEqual(seen.expected.earned);
      // A day per row (a nine-day range is charted by day), and the chart says what it shows.
      expect(seen.overview.bucket).toBe('day');
      expect(seen.tableRows).toBe(9);
      expect(seen.overview.series.reduce((n, p) => n + p.clicks, 0)).toBe(api.clicks);
      expect(seen.chartLabel).toContain(`${seen.expected.clicks} clicks`);
    }, 90_000);
  }

  it("updates live: a merchant's sale is on the open dashboard within 2 s, counted in its totals", async () => {
    const r = await dashboardLiveJourney(page, env);
    expect(r.badge).toBe('live');
    expect(r.rowMs).toBeLessThan(2_000);
    expect(r.totalMs).toBeLessThan(2_000);
    expect(r.after.conversions).toBe(r.before.conversions + 1);
    // The click that led to it counts too (the tracker's batch is counted within its flush).
    expect(r.after.clicks).toBeGreaterThanOrEqual(r.before.clicks);
  }, 60_000);

  it('splits the range by channel as GET /reports/?group_by=channel does, a coupon code sale on its own row', async () => {
    const p = env.credentials.publishers[0]!;
    const code = `DASH${Date.now().toString(36).toUpperCase()}`;
    const asked = await fetch(`${env.url}/api/v1/publisher/codes/`, {
      method: 'POST',
      headers: { 'X-API-Key': p.keys.live, 'Content-Type': 'application/json' },
      body: JSON.stringify({ program_id: 1001, code }),
    });
    expect(asked.status).toBe(201);
    const sale = await fetch(`${env.url}/api/v1/track/conversions/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${env.credentials.fixtures.merchant_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ coupon_code: code.toLowerCase(), order_id: `DASH-${code}`, amount: '50.00', currency: 'EUR' }),
    });
    expect(sale.status).toBe(201);
    const answered = page.waitForResponse((r) => r.url().includes('/overview/channels?') && r.status() === 200);
    await page.goto(`${env.url}/dashboard?range=30d`);
    const split = (await (await answered).json()) as { timezone: string; date_from: string; date_to: string };
    const table = page.getByRole('region', { name: 'Conversions by channel' });
    await table.getByRole('table').waitFor();
    expect(await table.locator('caption').innerText()).toMatch(/^Conversions and commission by channel, /);
    const q = new URLSearchParams({ group_by: 'channel', date_from: split.date_from, date_to: split.date_to, timezone: split.timezone });
    const report = (await (await fetch(`${env.url}/api/v1/publisher/reports/?${q}`, { headers: { Authorization: `Bearer ${p.keys.live}` } })).json()) as {
      rows: Array<{ key: string; conversions: number }>;
    };
    const shown: Record<string, string> = {};
    for (const channel of ['link', 'code', 'agent', 'inquiry']) {
      const cells = await table.locator(`tr[data-channel="${channel}"] td`).allInnerTexts();
      shown[channel] = cells[0]!;
    }
    const nf = new Intl.NumberFormat('en-US');
    expect(shown).toEqual(
      Object.fromEntries(['link', 'code', 'agent', 'inquiry'].map((c) => [c, nf.format(report.rows.find((r) => r.key === c)?.conversions ?? 0)])),
    );
    expect(Number(shown.code)).toBeGreaterThanOrEqual(1);
    expect(await table.locator('tr[data-channel="code"] td').last().innerText()).toMatch(/€\d/);
  }, 60_000);

  it('charts a quarter by week and a year by month', async () => {
    await page.goto(`${env.url}/dashboard?range=90d`);
    const quarter = await page.waitForResponse((r) => r.url().includes('/overview?') && r.status() === 200);
    expect(((await quarter.json()) as { bucket: string }).bucket).toBe('week');
    // The year's own request (a live refetch of the quarter may answer in between).
    const spansAYear = (url: string): boolean => {
      const q = new URL(url).searchParams;
      const days = (Date.parse(q.get('date_to') ?? '') - Date.parse(q.get('date_from') ?? '')) / 86_400_000;
      return days >= 300;
    };
    const yearResponse = page.waitForResponse((r) => r.url().includes('/overview?') && spansAYear(r.url()) && r.status() === 200);
    await page.getByRole('button', { name: 'Last 12 months' }).click();
    const year = await yearResponse;
    const body = (await year.json()) as { bucket: string; series: unknown[] };
    expect(body.bucket).toBe('month');
    expect(body.series.length).toBeGreaterThanOrEqual(12);
    expect(await page.getByRole('button', { name: 'Last 12 months' }).getAttribute('aria-pressed')).toBe('true');
  }, 60_000);

  it('says what is wrong with a custom range instead of asking for it', async () => {
    await page.goto(`${env.url}/dashboard`);
    await page.getByLabel('From', { exact: true }).fill('2026-05-10');
    await page.getByLabel('To', { exact: true }).fill('2026-05-01');
    await page.getByRole('button', { name: 'Show range' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'The first day must not be after the last.' }).innerText()).resolves.toContain('first day');
  }, 30_000);

  it('has no serious or critical axe-core violation, with the chart and with the table', async () => {
    await page.goto(`${env.url}/dashboard?range=30d`);
    await page
      .getByRole('img', { name: /Clicks and conversions per/ })
      .locator('canvas')
      .first()
      .waitFor();
    expect(serious(await axeViolations(page))).toEqual([]);
    await page.getByRole('button', { name: 'Table', exact: true }).click();
    await page.getByRole('region', { name: 'Per day, as a table' }).waitFor();
    expect(serious(await axeViolations(page))).toEqual([]);
  }, 60_000);
});

describe('links needing attention', () => {
  it('lists a link whose program paused with its state and the clicks it lost since, as the health pass counted them', async () => {
    const db = await connectDatabase(env.mongoUri);
    const deps = { data: openPlatformData(db.connection).data, config: platform.config };
    const pub = env.credentials.publishers[0]!;
    // The link with the most human clicks in the last 20 days; its program paused, found so 20 days ago.
    const since = new Date(Math.floor((Date.now() - 20 * 86_400_000) / 900_000) * 900_000);
    const facts = await readFacts(deps, { publisherId: pub.account_id, from: since.getTime(), byLink: true });
    const top = facts.filter((f) => f.link_id && f.clicks > 0).sort((a, b) => b.clicks - a.clicks)[0]!;
    const link = (await deps.data.links.byCode(top.link_id!))!;
    await deps.data.programs.setStatus(link.program_id, 'paused');
    try {
      await deps.data.links.setHealth([{ code: link._id, health: { state: 'program_paused', since } }]);
      await checkLinkHealth(deps, { clicksSince: clicksFromStats(deps) });
      const lost = (await deps.data.links.byCode(link._id))!.health!.clicks_lost!;
      expect(lost).toBeGreaterThan(0);

      await page.goto(`${env.url}/dashboard`);
      const table = page.getByRole('region', { name: 'Links needing attention, as a table' });
      await table.waitFor();
      const row = table.locator(`tr[data-link="${link._id}"]`);
      await expect(row.locator('td').nth(0).innerText()).resolves.toBe('Program paused');
      await expect(row.locator('td').nth(2).innerText()).resolves.toBe(new Intl.NumberFormat('en-US').format(lost));
      await expect(row.locator('th').innerText()).resolves.toContain(link.landing_url.slice(0, 60));
    } finally {
      await deps.data.programs.setStatus(link.program_id, 'active');
      await checkLinkHealth(deps);
      await db.close();
    }
  }, 90_000);
});
