/**
 * Products, Programs, Links and Payments in a real headless Chromium (Debian's package) on the
 * local platform: search and copy a tracked link that the tracker then redirects, its QR code
 * (the library loaded only then), a GTIN lookup with a bad line named, applying to a program, a
 * batch of links with one bad line and the list showing them with a click and a sale, the payment
 * status equal to the API's; axe-core on each page; the link builder by keyboard only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axe from 'axe-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startPlatform, type Platform } from './support/test-platform';
import { CHROMIUM_ARGS, chromiumPath, portalEnv, settle, signIn, type PortalEnv } from '../src/portal-journeys';
import {
  applyJourney,
  batchLinksJourney,
  callApi,
  clickAndSale,
  gtinLookupJourney,
  linkNumbers,
  paymentsJourney,
  productSearchJourney,
} from '../src/portal-catalog-journeys';

let platform: Platform;
let env: PortalEnv;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let mailDir: string;

beforeAll(async () => {
  const problem = inject('chromiumProblem');
  if (problem) throw new Error(problem);
  mailDir = mkdtempSync(join(tmpdir(), 'portal-catalog-mail-'));
  platform = await startPlatform({ env: { PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'silent' }, seedProducts: 200, credentialsPath: null, mailDir });
  env = portalEnv(platform, mailDir);
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  // bypassCSP: only so the axe check can inject its script (the pages' own scripts are unaffected).
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', bypassCSP: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.url });
  page = await context.newPage();
  await signIn(page, env, owner().portal_login);
}, 180_000);
afterAll(async () => {
  await context?.close().catch(() => undefined);
  await browser?.close();
  await platform?.stop();
  if (mailDir) rmSync(mailDir, { recursive: true, force: true });
});

const owner = () => env.credentials.publishers[0]!;
const fx = () => env.credentials.fixtures;
const money = (amount: string, currency: string) => new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amount as Intl.StringNumericLiteral);

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown; html: string }>;
}

/** axe-core's serious and critical violations on the page as it is now. */
async function seriousViolations(p: Page) {
  await p.addScriptTag({ content: axe.source });
  const result = (await p.locator('html').evaluate((html) => html.ownerDocument.defaultView.axe.run(html.ownerDocument, { resultTypes: ['violations'] }))) as {
    violations: Violation[];
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, html: n.html.slice(0, 200) })) }));
}

const axeFound: Record<string, Awaited<ReturnType<typeof seriousViolations>>> = {};

describe('products', () => {
  it('searches a country, copies a tracked link the tracker redirects, and shows its QR code (the library loaded only then)', async () => {
    const r = await productSearchJourney(page, env, { country: fx().country });
    expect(new URL(r.url).searchParams.get('country')).toBe(fx().country);
    expect(r.rows).toBeGreaterThan(0);
    // The page shows the API's first page for the same search and account.
    const api = await callApi<{ products: Array<{ title: string; url: string }> }>(env, owner().keys.live, `/products/?country=${fx().country}&limit=20`);
    expect(api.status).toBe(200);
    expect(r.rows).toBe(api.body.products.length);
    expect(r.first).toEqual({ title: api.body.products[0]!.title, link: api.body.products[0]!.url });
    expect(r.copied.button).toMatch(/^Copied\s+for /);
    expect(r.copied.announced).toContain('Copied');
    expect(r.copied.clipboard).toBe(r.first.link);
    expect(r.followed.status).toBe(302);
    expect(r.followed.location).toMatch(/^https:\/\//);
    expect(new URL(r.followed.location!).searchParams.get('cw_click_id')).toBeTruthy();
    expect(r.qr.alt).toBe(`QR code of the tracked link for ${r.first.title}`);
    expect(r.qr.src).toMatch(/^data:image\/svg\+xml/);
    expect(decodeURIComponent(r.qr.src)).toContain('<svg');
    expect(r.qr.width).toBeGreaterThan(0);
    // The QR code's library is its own script, fetched when the first code is asked for.
    expect(r.qr.scriptsAfter.length).toBeGreaterThan(r.qr.scriptsBefore.length);
    axeFound['/products (results, QR code)'] = await seriousViolations(page);
  }, 90_000);

  it('looks up GTINs pasted in a box: a bad line is named, the rest found with a leading zero kept', async () => {
    const r = await gtinLookupJourney(page, { good: [fx().gtin_leading_zero, fx().gtin_out_of_stock], bad: '12345' });
    expect(r.problems).toContain('Line 2');
    expect(r.problems).toContain('“12345” has 5 digits');
    const gtins = r.rows.map((x) => x.gtin);
    expect(gtins).toContain(fx().gtin_leading_zero);
    expect(fx().gtin_leading_zero.startsWith('0')).toBe(true);
    expect(r.rows.find((x) => x.gtin === fx().gtin_out_of_stock)?.availability).toBe('Out of stock');
    const api = await callApi<{ products: Array<{ gtin: string }> }>(
      env,
      owner().keys.live,
      `/products/lookup/?gtins=${fx().gtin_leading_zero},${fx().gtin_out_of_stock}&limit=100`,
    );
    expect(gtins.sort()).toEqual(api.body.products.map((p) => p.gtin).sort());
    axeFound['/products (lookup, errors)'] = await seriousViolations(page);
  }, 60_000);
});

describe('programs', () => {
  it('applies to a joinable program and shows the resulting status, as the API then lists it', async () => {
    const r = await applyJourney(page, fx().joinable_program_id);
    expect(r.notice).toMatch(new RegExp(`^${r.name}: (Approved|Pending review)`));
    expect(r.stillJoinable).toBe(false);
    const api = await callApi<{ data: Array<{ id: number; relationship: string }> }>(env, owner().keys.live, '/programs/?page_size=1000');
    const relationship = api.body.data.find((p) => p.id === fx().joinable_program_id)?.relationship;
    expect(relationship).toBeDefined();
    expect(r.notice).toContain(relationship === 'approved' ? 'Approved' : 'Pending review');
    expect(r.mine).toContain(relationship === 'approved' ? 'Approved' : 'Pending review');
    axeFound['/programs'] = await seriousViolations(page);
  }, 60_000);
});

describe('links', () => {
  const run = Date.now().toString(36);
  const [one, two] = [`batch-one-${run}`, `batch-two-${run}`];

  it('creates a batch from pasted lines: the bad line gets its error, the others are created and listed', async () => {
    const landing = fx().approved_program_landing_url;
    const r = await batchLinksJourney(page, {
      programId: fx().approved_program_id,
      lines: [`${landing}, ${one}`, `https://elsewhere.example/page, bad-${run}`, two],
      subids: [one, two],
    });
    expect(r.summary).toBe('2 created, 0 existing, 1 with an error');
    expect(r.lines.map((l) => [l.line, l.outcome.split(' ')[0]])).toEqual([
      ['1', 'Created'],
      ['2', 'Error'],
      ['3', 'Created'],
    ]);
    expect(r.lines[1]!.outcome).toContain('domains');
    expect(r.listed.map((l) => l.subid)).toEqual([one, two]);
    expect(r.listed.map((l) => l.link)).toEqual([r.lines[0]!.link, r.lines[2]!.link]);
    // The API lists the same links.
    for (const l of r.listed) {
      const api = await callApi<{ data: Array<{ url: string; subid: string }> }>(env, owner().keys.live, `/links/?subid=${l.subid}`);
      expect(api.body.data.map((x) => x.url)).toEqual([l.link]);
    }
    axeFound['/links (batch outcome)'] = await seriousViolations(page);
  }, 90_000);

  it("shows a link's click and sale once a shopper follows it and the merchant reports the sale", async () => {
    const api = await callApi<{ data: Array<{ url: string }> }>(env, owner().keys.live, `/links/?subid=${one}`);
    const link = api.body.data[0]!.url;
    const r = await clickAndSale(env, link, { merchantToken: fx().merchant_token, amount: '100.00', currency: 'EUR' });
    expect(r.redirect).toBe(302);
    expect(r.sale.status, JSON.stringify(r.sale.body)).toBe(201);
    const n = await linkNumbers(page, one, (x) => x.clicks === '1' && x.sales.startsWith('1'));
    expect(n.clicks).toBe('1');
    expect(n.sales).toMatch(/^1/);
    expect(n.commission).toMatch(/€/);
    axeFound['/links (list with numbers)'] = await seriousViolations(page);
  }, 90_000);
});

describe('payments', () => {
  it("shows the API's payment status: threshold, estimate, per-currency amounts, payout method", async () => {
    const r = await paymentsJourney(page);
    const api = await callApi<{
      approved_unpaid: { by_currency: Array<{ currency: string; amount: string }>; total_usd: string };
      pending_review: { by_currency: Array<{ currency: string; amount: string }>; total_usd: string; window_days: number };
      next_payment: { estimated_amount: string; currency: string; threshold: string; threshold_reached: boolean };
    }>(env, owner().keys.live, '/payment-status/');
    expect(api.status).toBe(200);
    const next = api.body.next_payment;
    expect(r['Next payment']).toContain(`Threshold ${money(next.threshold, next.currency)}`);
    expect(r['Next payment']).toContain(next.threshold_reached ? 'Reached' : 'Not reached yet');
    expect(r['Next payment']).toContain(`Estimated amount ${money(next.estimated_amount, next.currency)}`);
    for (const m of api.body.approved_unpaid.by_currency) expect(r['Approved, not yet paid']).toContain(money(m.amount, m.currency));
    if (api.body.approved_unpaid.by_currency.length) expect(r['Approved, not yet paid']).toContain(money(api.body.approved_unpaid.total_usd, 'USD'));
    for (const m of api.body.pending_review.by_currency) expect(r['Pending review']).toContain(money(m.amount, m.currency));
    expect(r['Pending review']).toContain(`last ${api.body.pending_review.window_days} days`);
    axeFound['/payments'] = await seriousViolations(page);
  }, 60_000);
});

describe('accessibility', () => {
  it('has no serious or critical axe-core violation on the Products, Programs, Links and Payments pages', async () => {
    for (const path of ['/products', '/programs', '/links', '/payments']) {
      await page.goto(`${env.url}${path}`);
      await settle(page);
      axeFound[`${path} (opened)`] = await seriousViolations(page);
    }
    expect(Object.keys(axeFound).length).toBeGreaterThanOrEqual(4);
    expect(Object.fromEntries(Object.entries(axeFound).filter(([, v]) => v.length))).toEqual({});
  }, 90_000);

  it('builds a link with the keyboard only, the focus visible on each field, and copies it', async () => {
    await page.goto(`${env.url}/links`);
    await settle(page);
    const form = page.getByRole('main').getByRole('form', { name: 'Build a link' });
    const tabTo = async (label: string) => {
      const target = form.getByLabel(label, { exact: true });
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        if (await target.evaluate((el) => el === el.ownerDocument.activeElement)) return;
      }
      throw new Error(`Tab never reached ${label}`);
    };
    const ring = () =>
      page.locator('html').evaluate((html) => {
        const el = html.ownerDocument.activeElement!;
        const s = html.ownerDocument.defaultView.getComputedStyle(el);
        return {
          tag: el.tagName.toLowerCase(),
          focusVisible: el.matches(':focus-visible'),
          drawn: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0,
        };
      });
    await tabTo('Program');
    expect(await ring()).toEqual({ tag: 'select', focusVisible: true, drawn: true });
    await page.keyboard.press('Tab');
    expect(await ring()).toEqual({ tag: 'input', focusVisible: true, drawn: true });
    await page.keyboard.type(fx().approved_program_landing_url);
    await page.keyboard.press('Tab');
    const subid = `keyboard-${Date.now().toString(36)}`;
    await page.keyboard.type(subid);
    expect(await form.getByLabel('Sub-ID').inputValue()).toBe(subid);
    await page.keyboard.press('Enter');
    const made = page.getByRole('main').getByRole('region', { name: 'The new link' });
    await made.waitFor({ timeout: 15_000 });
    const link = (await made.locator('code').innerText()).trim();
    // On to its Copy button, by keyboard.
    const copy = made.getByRole('button', { name: /^Copy link/ });
    for (let i = 0; i < 20 && !(await copy.evaluate((el) => el === el.ownerDocument.activeElement)); i++) await page.keyboard.press('Tab');
    expect(await ring()).toEqual({ tag: 'button', focusVisible: true, drawn: true });
    await page.keyboard.press('Enter');
    await made.getByRole('button', { name: /^Copied/ }).waitFor({ timeout: 15_000 });
    expect(await page.locator('html').evaluate((html) => html.ownerDocument.defaultView.navigator.clipboard.readText())).toBe(link);
    const api = await callApi<{ data: Array<{ url: string; subid: string }> }>(env, owner().keys.live, `/links/?subid=${subid}`);
    expect(api.body.data.map((l) => l.url)).toEqual([link]);
  }, 60_000);
});
