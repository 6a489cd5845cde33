/**
 * The portal's Products, Programs, Links and Payments pages driven in a real browser as a person
 * would (their labels and buttons: apps/portal/web/README.md "Stable names"), beside what a
 * program reads through the publisher API with the account's key for the same account. Each
 * journey returns what it saw; tools/dev-stack/test/portal-catalog.browser.test.ts asserts on it.
 */
import type { Page, Request } from 'playwright-core';
import { settle, type PortalEnv } from './portal-journeys';

const STEP_MS = 15_000;
const SHOPPER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const main = (page: Page) => page.getByRole('main');

/**
 * A tracked link at the platform's own address: a platform started on port 0 (tests) writes links
 * with its configured TRACKING_URL, not the port it then listens on; the path is the link.
 */
export const atPlatform = (env: PortalEnv, link: string): string => {
  const u = new URL(link);
  return new URL(`${u.pathname}${u.search}`, env.url).toString();
};

/** The publisher API with a key, as a publisher's program calls it. */
export async function callApi<T = Record<string, unknown>>(env: PortalEnv, key: string, path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${env.url}/api/v1/publisher${path}`, { headers: { 'X-API-Key': key } });
  return { status: res.status, body: (await res.json()) as T };
}

/** A page of the main navigation ("Products", "Programs", "Links", "Payments"). */
export async function openPage(page: Page, label: 'Products' | 'Programs' | 'Links' | 'Payments'): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
  await main(page).getByRole('heading', { level: 1, name: label }).waitFor({ timeout: STEP_MS });
  await settle(page);
}

/** What the one live region says now (or soon). */
async function announced(page: Page, text: RegExp): Promise<string> {
  const region = page.locator('[role="status"][aria-live="polite"]');
  await region.filter({ hasText: text }).waitFor({ state: 'attached', timeout: STEP_MS });
  return (await region.innerText()).trim();
}

// ---------------------------------------------------------------------------------------------
// Products: search, copy, follow, QR code

export interface ProductSearchJourney {
  /** The page's URL after the search (the filters are in it). */
  url: string;
  heading: string;
  rows: number;
  first: { title: string; link: string };
  /** The Copy button after a click, the live region, and the clipboard. */
  copied: { button: string; announced: string; clipboard: string };
  /** The tracked link followed without the browser: the tracker's answer. */
  followed: { status: number; location: string | null };
  qr: { alt: string; src: string; width: number; scriptsBefore: string[]; scriptsAfter: string[] };
}

/**
 * Products: searches a country's products, copies the first result's tracked link (the context
 * must grant clipboard-read and clipboard-write), follows it at the tracker, shows its QR code.
 */
export async function productSearchJourney(page: Page, env: PortalEnv, input: { country: string; q?: string }): Promise<ProductSearchJourney> {
  await openPage(page, 'Products');
  const scripts: string[] = [];
  const onRequest = (r: Request) => {
    if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
  };
  page.on('request', onRequest);
  try {
    const form = main(page).getByRole('form', { name: 'Product search' });
    if (input.q) await form.getByLabel('Search', { exact: true }).fill(input.q);
    await form.getByLabel('Country').selectOption(input.country);
    await form.getByRole('button', { name: 'Search' }).click();
    const table = main(page).getByRole('region', { name: 'Table of search results' });
    await table.waitFor({ timeout: STEP_MS });
    await settle(page);
    const heading = (await main(page).getByRole('heading', { level: 3 }).first().innerText()).trim();
    const row = table.getByRole('row').nth(1);
    const title = (await row.locator('td').first().locator('.strong').innerText()).trim();
    const link = (await row.locator('code').innerText()).trim();

    const copy = row.getByRole('button', { name: /^Copy link/ });
    await copy.click();
    await row.getByRole('button', { name: /^Copied/ }).waitFor({ timeout: STEP_MS });
    const button = (await row.getByRole('button', { name: /^Copied/ }).innerText()).trim();
    const said = await announced(page, /Copied/);
    const clipboard = await page.locator('html').evaluate((html) => html.ownerDocument.defaultView.navigator.clipboard.readText());
    const res = await fetch(atPlatform(env, clipboard), { redirect: 'manual', headers: { 'User-Agent': SHOPPER_UA } });

    const scriptsBefore = [...scripts];
    await row.getByRole('button', { name: /^QR code/ }).click();
    const img = row.getByRole('img', { name: /^QR code of the tracked link/ });
    await img.waitFor({ timeout: STEP_MS });
    const qr = {
      alt: (await img.getAttribute('alt')) ?? '',
      src: (await img.getAttribute('src')) ?? '',
      width: await img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth),
      scriptsBefore,
      scriptsAfter: [...scripts],
    };
    return {
      url: page.url(),
      heading,
      rows: (await table.getByRole('row').count()) - 1,
      first: { title, link },
      copied: { button, announced: said, clipboard },
      followed: { status: res.status, location: res.headers.get('location') },
      qr,
    };
  } finally {
    page.off('request', onRequest);
  }
}

export interface GtinLookupJourney {
  /** The error summary for the pasted box with a bad line. */
  problems: string;
  /** The lookup once the bad line is gone: the results' GTIN and availability cells. */
  rows: Array<{ gtin: string; availability: string }>;
  heading: string;
}

/** Products, "Look up by GTIN": a box with a bad line is refused line by line; without it, the products. */
export async function gtinLookupJourney(page: Page, input: { good: string[]; bad: string }): Promise<GtinLookupJourney> {
  const form = main(page).getByRole('form', { name: 'GTIN lookup' });
  const box = form.getByLabel('GTINs');
  await box.fill([input.good[0], input.bad, ...input.good.slice(1)].join('\n'));
  await form.getByRole('button', { name: 'Look up' }).click();
  const summary = form.getByRole('alert').filter({ hasText: 'problem' });
  await summary.waitFor({ timeout: STEP_MS });
  const problems = (await summary.innerText()).trim();
  await box.fill(input.good.join(', '));
  await form.getByRole('button', { name: 'Look up' }).click();
  const table = main(page).getByRole('region', { name: 'Table of lookup results' });
  await table.waitFor({ timeout: STEP_MS });
  const rows: GtinLookupJourney['rows'] = [];
  for (const row of await table.getByRole('row').all()) {
    const cells = row.locator('td');
    if (!(await cells.count())) continue;
    const text = await cells.first().innerText();
    rows.push({ gtin: /GTIN (\d+)/.exec(text)?.[1] ?? '', availability: (await cells.nth(2).innerText()).trim() });
  }
  const heading = (await table.locator('xpath=preceding-sibling::h3[1]').innerText()).trim();
  return { problems, rows, heading };
}

// ---------------------------------------------------------------------------------------------
// Programs: apply

export interface ApplyJourney {
  name: string;
  /** The notice after Apply: "<name>: Approved" and what it says. */
  notice: string;
  /** The program's row under "Your programs" afterwards. */
  mine: string;
  /** Still offered under "Programs you can join"? */
  stillJoinable: boolean;
}

/** Programs: Apply to the joinable program `programId`; the resulting status and where it lists it. */
export async function applyJourney(page: Page, programId: number): Promise<ApplyJourney> {
  await openPage(page, 'Programs');
  const joinable = main(page).getByRole('region', { name: 'Table of programs you can join' });
  await joinable.waitFor({ timeout: STEP_MS });
  const row = joinable.getByRole('row').filter({ hasText: `program ${programId}` });
  const name = (await row.locator('.strong').innerText()).trim();
  await row.getByRole('button', { name: `Apply to ${name}` }).click();
  const notice = main(page)
    .getByRole('status')
    .filter({ hasText: `${name}:` });
  await notice.waitFor({ timeout: STEP_MS });
  const mineRow = main(page)
    .getByRole('region', { name: 'Table of your programs' })
    .getByRole('row')
    .filter({ hasText: `program ${programId}` });
  await mineRow.waitFor({ timeout: STEP_MS });
  await settle(page);
  return {
    name,
    notice: (await notice.innerText()).trim(),
    mine: (await mineRow.innerText()).replace(/\s+/g, ' ').trim(),
    stillJoinable:
      (await joinable
        .getByRole('row')
        .filter({ hasText: `program ${programId}` })
        .count()) > 0,
  };
}

// ---------------------------------------------------------------------------------------------
// Links: a batch, the list, clicks

export interface BatchJourney {
  summary: string;
  /** Per line: its number, outcome and message or link. */
  lines: Array<{ line: string; outcome: string; link: string }>;
  /** The list filtered by each created sub-ID: its rows' sub-ID and link. */
  listed: Array<{ subid: string; link: string }>;
}

/** Links, "Create several links": pasted lines for `programId`; then the list, filtered by each sub-ID created. */
export async function batchLinksJourney(page: Page, input: { programId: number; lines: string[]; subids: string[] }): Promise<BatchJourney> {
  await openPage(page, 'Links');
  const form = main(page).getByRole('form', { name: 'Create several links' });
  await form.getByLabel('Program for these links').selectOption(String(input.programId));
  await form.getByLabel('Links, one per line').fill(input.lines.join('\n'));
  await form.getByRole('button', { name: 'Create links' }).click();
  const outcome = main(page).getByRole('region', { name: 'Table of the outcome per line' });
  await outcome.waitFor({ timeout: STEP_MS });
  const summary = (await outcome.locator('xpath=preceding-sibling::h3[1]').innerText()).trim();
  const lines: BatchJourney['lines'] = [];
  for (const row of await outcome.getByRole('row').all()) {
    const cells = row.locator('td');
    if (!(await cells.count())) continue;
    lines.push({
      line: (await cells.nth(0).innerText()).trim(),
      outcome: (await cells.nth(2).innerText()).replace(/\s+/g, ' ').trim(),
      link: (await cells.nth(3).locator('code').count()) ? (await cells.nth(3).locator('code').innerText()).trim() : '',
    });
  }
  const listed: BatchJourney['listed'] = [];
  const filters = main(page).getByRole('form', { name: 'Filter links' });
  for (const subid of input.subids) {
    await filters.getByLabel('Sub-ID').fill(subid);
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.get('subid') === subid, { timeout: STEP_MS });
    listed.push(...(await filteredRows(page, subid)));
  }
  return { summary, lines, listed };
}

/** The rows of the links table once it shows only `subid`'s links (the filtered list replaces the previous one). */
async function filteredRows(page: Page, subid: string): Promise<Array<{ subid: string; link: string }>> {
  const table = main(page).getByRole('region', { name: 'Table of your links' });
  const deadline = Date.now() + STEP_MS;
  for (;;) {
    const rows = await table
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => ({ subid: (tr.children[2]?.textContent ?? '').trim(), link: (tr.querySelector('code')?.textContent ?? '').trim() })),
      )
      .catch(() => []);
    if ((rows.length && rows.every((r) => r.subid === subid)) || Date.now() > deadline) return rows;
    await page.waitForTimeout(100);
  }
}

/** Links, the list filtered by `subid`: the row's Clicks, Sales and Commission cells, read until `until` holds (reloading). */
export async function linkNumbers(
  page: Page,
  subid: string,
  until: (n: { clicks: string; sales: string; commission: string }) => boolean,
  timeoutMs = 30_000,
): Promise<{ clicks: string; sales: string; commission: string }> {
  const deadline = Date.now() + timeoutMs;
  const url = new URL(page.url());
  url.pathname = '/links';
  url.search = `?subid=${encodeURIComponent(subid)}`;
  for (;;) {
    await page.goto(url.toString());
    await settle(page);
    const row = main(page).getByRole('region', { name: 'Table of your links' }).getByRole('row').filter({ hasText: subid }).first();
    await row.locator('td').nth(4).filter({ hasText: /\d/ }).waitFor({ timeout: STEP_MS });
    const cells = row.locator('td');
    const n = {
      clicks: (await cells.nth(4).innerText()).trim(),
      sales: (await cells.nth(5).innerText()).trim(),
      commission: (await cells.nth(6).innerText()).trim(),
    };
    if (until(n) || Date.now() > deadline) return n;
    await page.waitForTimeout(1000);
  }
}

// ---------------------------------------------------------------------------------------------
// Payments

/** Payments: the page's text, section by section. */
export async function paymentsJourney(page: Page): Promise<Record<string, string>> {
  await openPage(page, 'Payments');
  const out: Record<string, string> = {};
  for (const name of ['Next payment', 'Approved, not yet paid', 'Pending review']) {
    const section = main(page).getByRole('region', { name, exact: true });
    out[name] = (await section.innerText()).replace(/\s+/g, ' ').trim();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// A click and a sale through a link (what a shopper and the merchant do)

/** A shopper follows `link` (the tracker redirects, with the click id); the merchant reports the sale. */
export async function clickAndSale(
  env: PortalEnv,
  link: string,
  sale: { merchantToken: string; amount: string; currency: string },
): Promise<{ redirect: number; clickId: string; sale: { status: number; body: Record<string, unknown> } }> {
  const res = await fetch(atPlatform(env, link), { redirect: 'manual', headers: { 'User-Agent': SHOPPER_UA } });
  const location = res.headers.get('location') ?? '';
  const clickId = location ? (new URL(location).searchParams.get('cw_click_id') ?? '') : '';
  const orderId = `ORD-${Date.now().toString(36)}`;
  // The tracker writes clicks in batches: a sale reported before its click is stored is 404 click_not_found, then retried.
  const deadline = Date.now() + STEP_MS;
  let reported: Response;
  for (;;) {
    reported = await fetch(`${env.url}/api/v1/track/conversions/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${sale.merchantToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ click_id: clickId, order_id: orderId, amount: sale.amount, currency: sale.currency }),
    });
    if (reported.status !== 404 || Date.now() > deadline) break;
    await new Promise((ok) => setTimeout(ok, 250));
  }
  return { redirect: res.status, clickId, sale: { status: reported.status, body: (await reported.json()) as Record<string, unknown> } };
}
