/**
 * The portal's Conversions, Clicks and conversion pages in a real headless Chromium on the local
 * platform (issue 43): the filters and the CSV the page links to equal the publisher API's answers
 * for the account's key; a merchant's sale appears live within 2 s; the live badge recovers after
 * the stream is cut (the server ends every stream, or refuses them for a while) without losing or
 * doubling an event; a conversion's page shows its history growing live; the table is paged with
 * the keyboard; axe-core finds no serious or critical violation on these pages.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axe from 'axe-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CONVERSION_COLUMNS } from '@cw/reports';
import { endEventStreams } from '@cw/http';
import { startPlatform, type Platform } from './support/test-platform';
import { CHROMIUM_ARGS, chromiumPath, portalEnv, settle, signIn, type PortalEnv } from '../src/portal-journeys';
import {
  apiList,
  apiPage,
  clickFiltersJourney,
  conversionFiltersJourney,
  conversionPageJourney,
  keyboardPagingJourney,
  liveRecoveryJourney,
  liveSaleJourney,
} from '../src/portal-activity-journeys';

let platform: Platform;
let env: PortalEnv;
let browser: Browser;
let mailDir: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  const problem = inject('chromiumProblem');
  if (problem) throw new Error(problem);
  mailDir = mkdtempSync(join(tmpdir(), 'portal-activity-mail-'));
  platform = await startPlatform({
    env: { PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'silent', RATELIMIT_PORTAL_PER_MIN: '100000', RATELIMIT_REPORTING_PER_MIN: '100000' },
    seedProducts: 200,
    credentialsPath: null,
    mailDir,
  });
  env = portalEnv(platform, mailDir);
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}, 180_000);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await platform?.stop();
  if (mailDir) rmSync(mailDir, { recursive: true, force: true });
});

async function ownerPage(options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  contexts.push(context);
  const page = await context.newPage();
  await signIn(page, env, env.credentials.publishers[0]!.portal_login);
  return page;
}

let shared: Page | undefined;
const owner = async () => (shared ??= await ownerPage());
const key = () => env.credentials.publishers[0]!.keys.live;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe('filters and CSV', () => {
  it('shows the conversions the API lists for the filters, and links a CSV of exactly them (every page)', async () => {
    const page = await owner();
    const cases = [
      { status: 'approved' },
      { subid: 'newsletter' },
      { status: 'pending', subid: 'blog-header' },
      { from: day(-30), to: day(0), status: 'declined' },
    ];
    for (const f of cases) {
      const r = await conversionFiltersJourney(page, env, f);
      const query: Record<string, string> = {
        ...(f.status ? { status: f.status } : {}),
        ...(f.subid ? { subid: f.subid } : {}),
        ...(f.from ? { date_from: f.from } : {}),
        ...(f.to ? { date_to: f.to } : {}),
      };
      const url = new URL(r.url);
      for (const [k, v] of Object.entries(query)) expect(url.searchParams.get(k), k).toBe(v);
      const first = await apiPage<{ id: string }>(env, key(), '/conversions/', { ...query, page_size: '50' });
      expect(r.ids, JSON.stringify(f)).toEqual(first.data.map((c) => c.id));
      expect(r.ids.length, JSON.stringify(f)).toBeGreaterThan(0);
      const all = await apiList<{ id: string }>(env, key(), '/conversions/', { ...query, page_size: '500' });
      expect(r.csv.header).toBe(CONVERSION_COLUMNS.join(','));
      expect(r.csv.ids, JSON.stringify(f)).toEqual(all.map((c) => c.id));
      expect(Object.fromEntries(new URLSearchParams(r.csv.href.split('?')[1]))).toEqual(query);
    }
    const none = await conversionFiltersJourney(page, env, { subid: 'no-such-subid' });
    expect(none.ids).toEqual([]);
    expect(none.empty).toContain('No conversions match these filters.');
    expect(none.csv.ids).toEqual([]);
  }, 120_000);

  it('shows the clicks the API lists for the filters, and links a CSV of exactly them (every page)', async () => {
    const page = await owner();
    const sample = (await apiPage<{ campaign_id: number; deeplink_id: string }>(env, key(), '/clicks/', { page_size: '1' })).data[0]!;
    const cases: Array<{ filters: Parameters<typeof clickFiltersJourney>[2]; query: Record<string, string> }> = [
      { filters: { subid: 'sidebar' }, query: { sub_id: 'sidebar' } },
      { filters: { bots: true, subid: 'newsletter' }, query: { sub_id: 'newsletter', include_bots: 'true' } },
      {
        filters: { merchant: String(sample.campaign_id), link: sample.deeplink_id },
        query: { campaign_id: String(sample.campaign_id), deeplink_id: sample.deeplink_id },
      },
    ];
    for (const c of cases) {
      const r = await clickFiltersJourney(page, env, c.filters);
      const first = await apiPage<{ id: string; is_bot: boolean }>(env, key(), '/clicks/', { ...c.query, page_size: '50' });
      expect(r.ids, JSON.stringify(c.query)).toEqual(first.data.map((x) => x.id));
      expect(r.ids.length).toBeGreaterThan(0);
      const all = await apiList<{ id: string; is_bot: boolean }>(env, key(), '/clicks/', { ...c.query, page_size: '200' });
      expect(r.csv.ids, JSON.stringify(c.query)).toEqual(all.map((x) => x.id));
      if (c.query.include_bots) expect(all.some((x) => x.is_bot)).toBe(true);
    }
  }, 180_000);
});

describe('a long export', () => {
  it('shows the rows exported so far in a live region, cancels from the keyboard, then saves exactly the filtered list', async () => {
    const page = await ownerPage();
    const all = await apiList<{ id: string }>(env, key(), '/conversions/', { status: 'approved', page_size: '500' });
    expect(all.length).toBeGreaterThan(20);
    await page.goto(`${env.url}/conversions?status=approved`);
    await page.getByRole('main').getByRole('heading', { level: 1, name: 'Conversions' }).waitFor();
    await page.getByRole('main').locator('tr[data-conversion]').first().waitFor();
    const link = page.getByRole('main').getByRole('link', { name: 'Download CSV' });
    const progress = page.getByRole('main').locator('.export-progress[role="status"][aria-live="polite"]');
    let downloads = 0;
    page.on('download', () => downloads++);

    // A slow line (1.5 kB/s: about ten rows a second), so the export is seen running.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: 1500, uploadThroughput: -1 });
    await link.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => progress.innerText(), { timeout: 15_000 }).toMatch(/^Exporting… [1-9][\d,]* rows?$/);
    const cancel = page.getByRole('main').getByRole('button', { name: 'Cancel export' });
    expect(await link.getAttribute('aria-busy')).toBe('true');
    await page.keyboard.press('Tab');
    expect(await cancel.evaluate((b) => b === b.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => progress.innerText(), { timeout: 5_000 }).toMatch(/^Export cancelled after [\d,]+ rows?\.$/);
    const stoppedAt = Number(/after ([\d,]+)/.exec(await progress.innerText())![1]!.replace(/,/g, ''));
    expect(stoppedAt).toBeLessThan(all.length);
    expect(await cancel.count()).toBe(0);
    expect(await link.evaluate((a) => a === a.ownerDocument.activeElement)).toBe(true);
    expect(downloads).toBe(0);

    // At full speed: the file saved holds exactly the API's pages walked to the end.
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 15_000 }), page.keyboard.press('Enter')]);
    expect(download.suggestedFilename()).toMatch(/^conversions-\d{4}-\d{2}-\d{2}\.csv$/);
    const lines = readFileSync((await download.path())!, 'utf8')
      .split('\r\n')
      .filter(Boolean);
    expect(lines[0]).toBe(CONVERSION_COLUMNS.join(','));
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(all.map((c) => c.id));
    await expect.poll(() => progress.innerText()).toBe(`Exported ${all.length.toLocaleString('en-US')} rows.`);
  }, 90_000);
});

describe('live', () => {
  let liveConversion = '';

  it("shows a merchant's new sale on the open conversions page within 2 s, without a reload", async () => {
    const r = await liveSaleJourney(await owner(), env);
    liveConversion = r.conversionId;
    expect(r.ms).toBeLessThan(2000);
    expect(r.badge).toBe('live');
    expect(r.row).toContain(r.conversionId);
    expect(r.row).toContain('Pending');
    expect(r.row).toContain('live-journey');
    expect(r.row).toMatch(/59[.,]90/);
    expect(r.navigations).toEqual([]);
  }, 60_000);

  it('recovers after the server ends every stream: reconnecting, then live, the sale made meanwhile shown once', async () => {
    const page = await owner();
    const r = await liveRecoveryJourney(
      page,
      env,
      () => endEventStreams(),
      () => undefined,
    );
    expect(r.states[0]).toBe('live');
    expect(r.states).toContain('reconnecting');
    expect(r.states.at(-1)).toBe('live');
    expect(r.rows).toBe(1);
    const ids = r.received.map((m) => m.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(r.received.filter((m) => m.conversionId === r.conversionId).map((m) => m.type)).toEqual(['sale.created']);
  }, 90_000);

  it('recovers after the stream is refused for a while (a restart): offline or reconnecting, then live again, nothing lost or doubled', async () => {
    const page = await owner();
    const stream = `${env.url}/portal/api/accounts/*/events/stream**`;
    const r = await liveRecoveryJourney(
      page,
      env,
      async () => {
        await page.route(stream, (route) =>
          route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({ detail: 'The platform is starting.', code: 'service_unavailable' }),
          }),
        );
        endEventStreams();
      },
      () => page.unroute(stream),
      { downMs: 4000 },
    );
    expect(r.states[0]).toBe('live');
    expect(r.states.some((s) => s === 'reconnecting' || s === 'offline')).toBe(true);
    expect(r.states.at(-1)).toBe('live');
    expect(r.rows).toBe(1);
    const ids = r.received.map((m) => m.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(r.received.filter((m) => m.conversionId === r.conversionId).map((m) => m.type)).toEqual(['sale.created']);
    // The stream resumed where it was cut: each SSE id is the feed's cursor, in order, none repeated.
    expect(new Set(r.received.map((m) => m.id)).size).toBe(r.received.length);
  }, 120_000);

  it("opens a conversion from the table with the keyboard; its history shows the merchant's approval live", async () => {
    expect(liveConversion).not.toBe('');
    const r = await conversionPageJourney(await owner(), env, liveConversion);
    expect(r.title).toBe(`Conversion ${liveConversion} · Portal`);
    expect(r.before).toHaveLength(1);
    expect(r.before[0]).toContain('Reported by the merchant');
    expect(r.before[0]).toContain('sale.created');
    expect(r.after).toHaveLength(2);
    expect(r.after[1]).toContain('Approved');
    expect(r.after[1]).toContain('sale.approved');
    expect(r.details).toContain('live-journey');
  }, 60_000);
});

describe('keyboard and accessibility', () => {
  it('pages the conversions table with the keyboard, forward and back, the focus staying on the button', async () => {
    const r = await keyboardPagingJourney(await owner(), env);
    const p1 = await apiPage<{ id: string }>(env, key(), '/conversions/', { page_size: '25' });
    const p2 = await apiPage<{ id: string }>(env, key(), '/conversions/', { page_size: '25', cursor: p1.next_cursor! });
    const p3 = await apiPage<{ id: string }>(env, key(), '/conversions/', { page_size: '25', cursor: p2.next_cursor! });
    expect(r.pages.map((p) => p.label)).toEqual(['Page 1', 'Page 2', 'Page 3', 'Page 2', 'Page 1']);
    expect(r.pages[0]!.ids).toEqual(p1.data.map((c) => c.id));
    expect(r.pages[1]!.ids).toEqual(p2.data.map((c) => c.id));
    expect(r.pages[2]!.ids).toEqual(p3.data.map((c) => c.id));
    expect(r.pages[3]!.ids).toEqual(r.pages[1]!.ids);
    expect(r.pages[4]!.ids).toEqual(r.pages[0]!.ids);
    expect(r.pages[4]!.cursor).toBeNull();
    expect(r.pages.slice(1, 3).map((p) => p.focused)).toEqual(['Next page', 'Next page']);
    expect(r.pages.slice(3).map((p) => p.focused)).toEqual(['Previous page', 'Previous page']);
  }, 60_000);

  it('has no serious or critical axe-core violation on the conversions, conversion and clicks pages', async () => {
    const page = await ownerPage({ bypassCSP: true });
    const some = (await apiPage<{ id: string }>(env, key(), '/conversions/', { page_size: '1', status: 'declined' })).data[0]!.id;
    const found: Record<string, unknown[]> = {};
    for (const path of [
      '/conversions',
      '/conversions?subid=no-such-subid',
      `/conversions/${some}`,
      '/conversions/cnv_nothing',
      '/clicks',
      '/clicks?include_bots=true',
    ]) {
      await page.goto(`${env.url}${path}`);
      await page.getByRole('main').getByRole('heading', { level: 1 }).waitFor();
      await settle(page);
      await page.getByRole('main').locator('.live-badge[data-state="connecting"]').waitFor({ state: 'detached' });
      await page.addScriptTag({ content: axe.source });
      const result = (await page
        .locator('html')
        .evaluate((html) => html.ownerDocument.defaultView.axe.run(html.ownerDocument, { resultTypes: ['violations'] }))) as {
        violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ html: string }> }>;
      };
      found[path] = result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => n.html.slice(0, 160)) }));
    }
    expect(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length))).toEqual({});
  }, 120_000);
});
