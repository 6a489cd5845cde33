/**
 * The dashboard's journeys in a real browser: a person picks a range in their account's time zone
 * and reads totals; a program reads the same range through the API with the account's keys. The
 * browser test (test/portal-dashboard.browser.test.ts) asserts that both say the same.
 */
import type { Page } from 'playwright-core';
import { newClick, reportSale, waitForLive } from './portal-activity-journeys';
import { settle, type PortalEnv } from './portal-journeys';

export interface ApiTotals {
  clicks: number;
  conversions: { pending: number; approved: number; declined: number; total: number };
  /** Per status and currency, decimal strings. */
  commission: { pending: Record<string, string>; approved: Record<string, string>; declined: Record<string, string> };
}

/** The same range read by a program: GET /reports (group_by=status) and the reporting API's /summary (clicks). */
export async function apiTotals(env: PortalEnv, zone: string, from: string, to: string): Promise<ApiTotals> {
  const p = env.credentials.publishers[0]!;
  const q = new URLSearchParams({ group_by: 'status', date_from: from, date_to: to, timezone: zone });
  const report = (await (await fetch(`${env.url}/api/v1/publisher/reports/?${q}`, { headers: { Authorization: `Bearer ${p.keys.live}` } })).json()) as {
    rows: Array<{ key: string; conversions: number; commission: Record<string, string> }>;
    totals: { conversions: number };
  };
  const s = new URLSearchParams({ group_by: 'day', date_from: from, date_to: to, timezone: zone });
  const summary = (await (
    await fetch(`${env.url}/api/v1/affiliate-reporting/summary/?${s}`, { headers: { Authorization: `Bearer ${p.reporting_token}` } })
  ).json()) as { data: Array<{ clicks: number }> };
  const row = (status: string) => report.rows.find((r) => r.key === status);
  return {
    clicks: summary.data.reduce((n, r) => n + r.clicks, 0),
    conversions: {
      pending: row('pending')?.conversions ?? 0,
      approved: row('approved')?.conversions ?? 0,
      declined: row('declined')?.conversions ?? 0,
      total: report.totals.conversions,
    },
    commission: { pending: row('pending')?.commission ?? {}, approved: row('approved')?.commission ?? {}, declined: row('declined')?.commission ?? {} },
  };
}

/** The signed-in person's call to the portal API from the page (its cookie, CSRF token and Origin). */
async function portalCall(page: Page, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const session = (await (await fetch('/portal/api/session')).json()) as { csrf_token: string };
      const res = await fetch(`/portal/api${path}`, {
        method,
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': session.csrf_token },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: res.status === 204 ? null : await res.json() };
    },
    { method, path, body },
  );
}

/** Sets the account's time zone as its owner does in Settings, Account. */
export async function setAccountZone(page: Page, accountId: string, zone: string): Promise<void> {
  const r = await portalCall(page, 'PATCH', `/accounts/${accountId}`, { timezone: zone });
  if (r.status !== 200) throw new Error(`PATCH timezone answered ${r.status}: ${JSON.stringify(r.body)}`);
}

export interface DashboardSeen {
  /** The overview the page received (what it drew). */
  overview: {
    timezone: string;
    bucket: string;
    totals: ApiTotals & { commission: ApiTotals['commission'] & { earned: Record<string, string> } };
    series: Array<{ period: string; clicks: number; conversions: number }>;
  };
  /** The totals as shown (the texts of the cards). */
  shown: { clicks: string; conversions: string; statuses: string; earned: string[] };
  /** The same numbers formatted by the page's Intl (the browser's locale). */
  expected: { clicks: string; conversions: string; earned: string[] };
  /** The rows of the table view. */
  tableRows: number;
  /** The chart is drawn (a canvas in a labelled image). */
  chartLabel: string | null;
}

/** Opens the dashboard for a custom range (typed in the date fields), reads what it shows, and its table view. */
export async function dashboardJourney(page: Page, env: PortalEnv, from: string, to: string): Promise<DashboardSeen> {
  await page.goto(`${env.url}/dashboard`);
  await settle(page);
  await page.getByLabel('From', { exact: true }).fill(from);
  await page.getByLabel('To', { exact: true }).fill(to);
  const answer = page.waitForResponse((r) => r.url().includes('/overview?') && r.url().includes(`date_from=${from}`) && r.status() === 200);
  await page.getByRole('button', { name: 'Show range' }).click();
  const overview = (await (await answer).json()) as DashboardSeen['overview'];
  await page.waitForURL((u) => u.searchParams.get('from') === from);
  const card = (kpi: string) => page.locator(`[data-kpi="${kpi}"]`);
  await page.locator('.overview:not([data-stale])').waitFor();
  const chart = page.getByRole('img', { name: /Clicks and conversions per/ });
  await chart.locator('canvas').first().waitFor();
  const shown = {
    clicks: (await card('clicks').innerText()).trim(),
    conversions: (await card('conversions').innerText()).trim(),
    statuses: (await card('conversion-statuses').innerText()).trim(),
    earned: (await card('earned').locator('li, p').allInnerTexts()).map((s) => s.trim()),
  };
  const expected = await page.evaluate((o) => {
    const n = new Intl.NumberFormat();
    const money = (v: string, c: string) => new Intl.NumberFormat(undefined, { style: 'currency', currency: c, currencyDisplay: 'symbol' }).format(v as never);
    return {
      clicks: n.format(o.totals.clicks),
      conversions: n.format(o.totals.conversions.total),
      earned: Object.entries(o.totals.commission.earned).map(([c, v]) => money(v, c)),
    };
  }, overview);
  const chartLabel = await chart.getAttribute('aria-label');
  await page.getByRole('button', { name: 'Table', exact: true }).click();
  const table = page.getByRole('region', { name: /^Per (day|week|month), as a table$/ });
  await table.waitFor();
  const tableRows = await table.locator('tbody tr').count();
  return { overview, shown, expected, tableRows, chartLabel };
}

export interface DashboardLiveJourney {
  /** From the intake's answer to the sale's row in "Latest conversions" (no reload). */
  rowMs: number;
  /** ... and to the conversions card counting it. */
  totalMs: number;
  before: { clicks: number; conversions: number };
  after: { clicks: number; conversions: number };
  badge: string | null;
}

const count = (s: string) => Number(s.replace(/\D/g, ''));

/** The dashboard open (last 7 days) and live; a visitor clicks a tracked link and the merchant reports the sale. */
export async function dashboardLiveJourney(page: Page, env: PortalEnv): Promise<DashboardLiveJourney> {
  await page.goto(`${env.url}/dashboard?range=7d`);
  await settle(page);
  await waitForLive(page);
  await page.locator('.overview:not([data-stale])').waitFor();
  const read = async () => ({
    clicks: count(await page.locator('[data-kpi="clicks"]').innerText()),
    conversions: count(await page.locator('[data-kpi="conversions"]').innerText()),
  });
  const before = await read();
  const clickId = await newClick(env, 'dashboard-live');
  const sale = await reportSale(env, clickId);
  const t = Date.now();
  await page.locator(`tr[data-conversion="${sale.id}"]`).waitFor({ timeout: 15_000 });
  const rowMs = Date.now() - t;
  for (const deadline = Date.now() + 15_000; (await read()).conversions !== before.conversions + 1;) {
    if (Date.now() > deadline) throw new Error('the conversions card never counted the sale');
    await page.waitForTimeout(25);
  }
  const totalMs = Date.now() - t;
  return { rowMs, totalMs, before, after: await read(), badge: await page.locator('.live-badge').getAttribute('data-state') };
}
