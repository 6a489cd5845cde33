/**
 * The portal's Conversions, Clicks and conversion pages driven in a real browser (issue 43): the
 * filters, the CSV the page links to, a merchant's sale appearing live, the live badge recovering
 * after the stream is cut, a conversion's history, and paging with the keyboard. Each journey
 * returns what it saw; tools/dev-stack/test/portal-activity.browser.test.ts asserts on it against
 * the publisher API. Only what a person would not do in the portal goes around it: a merchant
 * reporting and approving a sale (the tracker's intake API with the merchant token), a program
 * calling the publisher API with the key, and cutting the server's streams.
 */
import type { CDPSession, Frame, Page } from 'playwright-core';
import { settle, type PortalEnv } from './portal-journeys';

const STEP_MS = 15_000;
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';

const main = (page: Page) => page.getByRole('main');

async function heading(page: Page, name: string | RegExp): Promise<void> {
  await main(page).getByRole('heading', { level: 1, name }).waitFor({ timeout: STEP_MS });
}

/** The live badge's state (its `data-state`), once the page shows one. */
export async function liveState(page: Page): Promise<string> {
  const badge = main(page).locator('.live-badge');
  await badge.waitFor({ timeout: STEP_MS });
  return (await badge.getAttribute('data-state')) ?? '';
}

/** Waits until the live badge says `state`. */
export async function waitForLive(page: Page, state = 'live', timeout = STEP_MS): Promise<void> {
  await main(page).locator(`.live-badge[data-state="${state}"]`).waitFor({ timeout });
}

// ---------------------------------------------------------------------------------------------
// The API as a program (and a merchant) calls it

/** Every page of a publisher API list (`next_cursor` followed), with the key. */
export async function apiList<T>(env: PortalEnv, key: string, path: string, query: Record<string, string>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const q = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) });
    const res = await fetch(`${env.url}/api/v1/publisher${path}?${q}`, { headers: { 'X-API-Key': key } });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { data: T[]; next_cursor: string | null };
    out.push(...body.data);
    if (!body.next_cursor) return out;
    cursor = body.next_cursor;
  }
}

/** One page of a publisher API list, with the key. */
export async function apiPage<T>(env: PortalEnv, key: string, path: string, query: Record<string, string>): Promise<{ data: T[]; next_cursor: string | null }> {
  const res = await fetch(`${env.url}/api/v1/publisher${path}?${new URLSearchParams(query)}`, { headers: { 'X-API-Key': key } });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { data: T[]; next_cursor: string | null };
}

/** A click on a tracked link of publishers[0] (the approved program), as a visitor's browser makes it: its click id. */
export async function newClick(env: PortalEnv, subid: string): Promise<string> {
  const pub = env.credentials.publishers[0]!;
  const made = await fetch(`${env.url}/api/v1/publisher/links/`, {
    method: 'POST',
    headers: { 'X-API-Key': pub.keys.live, 'Content-Type': 'application/json' },
    body: JSON.stringify({ program_id: env.credentials.fixtures.approved_program_id, subid }),
  });
  if (made.status !== 201 && made.status !== 200) throw new Error(`link: ${made.status} ${await made.text()}`);
  const link = (await made.json()) as { url: string };
  // The link's host is the configured tracking URL; the local platform routes /c/ on its own port.
  const tracked = new URL(link.url);
  const redirect = await fetch(new URL(`${tracked.pathname}${tracked.search}`, env.url), { redirect: 'manual', headers: { 'User-Agent': BROWSER_UA } });
  const clickId = /clk_[A-Za-z0-9_-]+/.exec(redirect.headers.get('location') ?? '')?.[0];
  if (!clickId) throw new Error(`the tracked link answered ${redirect.status} without a click id`);
  return clickId;
}

/** The merchant reports a sale on a click (the tracker's intake, with the merchant token): the conversion. */
export async function reportSale(
  env: PortalEnv,
  clickId: string,
  amount = '59.90',
): Promise<{ id: string; status: string; sale_amount: string; commission: string }> {
  const res = await fetch(`${env.url}/api/v1/track/conversions/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${env.credentials.fixtures.merchant_token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ click_id: clickId, order_id: `JOURNEY-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, amount, currency: 'EUR' }),
  });
  if (res.status !== 201) throw new Error(`intake: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string; status: string; sale_amount: string; commission: string };
}

/** The merchant changes a conversion's status. */
export async function merchantSets(env: PortalEnv, conversionId: string, status: 'approved' | 'declined'): Promise<void> {
  const res = await fetch(`${env.url}/api/v1/track/conversions/${conversionId}/`, {
    method: 'PATCH',
    headers: { Authorization: `Bearer ${env.credentials.fixtures.merchant_token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ status }),
  });
  if (res.status !== 200) throw new Error(`status: ${res.status} ${await res.text()}`);
}

// ---------------------------------------------------------------------------------------------
// Reading the pages

/** The ids of the table's rows, in order (`data-conversion` / `data-click`). */
async function rowIds(page: Page, attribute: 'data-conversion' | 'data-click'): Promise<string[]> {
  return main(page)
    .locator(`tr[${attribute}]`)
    .evaluateAll((rows, attr) => rows.map((r) => r.getAttribute(attr as string) ?? ''), attribute);
}

/** The CSV the page's "Download CSV" link points at, fetched with the page's session: its href and the ids in its first column. */
async function downloadCsv(page: Page): Promise<{ href: string; ids: string[]; header: string }> {
  const link = main(page).getByRole('link', { name: 'Download CSV' });
  const href = (await link.getAttribute('href')) ?? '';
  const res = await page.request.get(new URL(href, page.url()).toString());
  if (res.status() !== 200) throw new Error(`CSV: ${res.status()} ${await res.text()}`);
  const lines = (await res.text()).split('\r\n').filter(Boolean);
  return { href, header: lines[0] ?? '', ids: lines.slice(1).map((l) => l.split(',')[0]!) };
}

/** Waits until the table shows what the URL asks for (no page loading). */
async function tableSettled(page: Page): Promise<void> {
  await settle(page);
  await main(page).locator('.pager-page', { hasText: 'Loading' }).waitFor({ state: 'detached', timeout: STEP_MS });
}

export interface FilterJourney {
  /** The page's URL after applying the filters (they are in its search params). */
  url: string;
  /** The first page's rows, in order. */
  ids: string[];
  csv: { href: string; ids: string[]; header: string };
  /** What the page says when nothing matches. */
  empty: string | null;
}

/** Conversions: sets the filters in the form (Status, Sub-ID, From, To), "Apply filters"; the rows and the CSV it links to. */
export async function conversionFiltersJourney(
  page: Page,
  env: PortalEnv,
  filters: { status?: string; subid?: string; from?: string; to?: string },
): Promise<FilterJourney> {
  await page.goto(`${env.url}/conversions`);
  await heading(page, 'Conversions');
  await tableSettled(page);
  const form = main(page).getByRole('form', { name: 'Conversion filters' });
  if (filters.from !== undefined) await form.getByLabel('From').fill(filters.from);
  if (filters.to !== undefined) await form.getByLabel('To').fill(filters.to);
  if (filters.status !== undefined) await form.getByLabel('Status').selectOption(filters.status);
  if (filters.subid !== undefined) await form.getByLabel('Sub-ID').fill(filters.subid);
  await form.getByRole('button', { name: 'Apply filters' }).click();
  await page.waitForURL(
    (u) => (filters.status ? u.searchParams.get('status') === filters.status : true) && (filters.subid ? u.searchParams.get('subid') === filters.subid : true),
    {
      timeout: STEP_MS,
    },
  );
  await tableSettled(page);
  const empty = (await main(page).locator('.empty').count()) ? await main(page).locator('.empty').innerText() : null;
  return { url: page.url(), ids: await rowIds(page, 'data-conversion'), csv: await downloadCsv(page), empty };
}

/** Clicks: sets the filters (Sub-ID, Merchant, Link, Include bots), "Apply filters"; the rows and the CSV it links to. */
export async function clickFiltersJourney(
  page: Page,
  env: PortalEnv,
  filters: { subid?: string; merchant?: string; link?: string; bots?: boolean },
): Promise<FilterJourney> {
  await page.goto(`${env.url}/clicks`);
  await heading(page, 'Clicks');
  await tableSettled(page);
  const form = main(page).getByRole('form', { name: 'Click filters' });
  if (filters.subid !== undefined) await form.getByLabel('Sub-ID').fill(filters.subid);
  if (filters.merchant !== undefined) await form.getByLabel('Merchant').fill(filters.merchant);
  if (filters.link !== undefined) await form.getByLabel('Link').fill(filters.link);
  if (filters.bots !== undefined) await form.getByLabel('Include bots').setChecked(filters.bots);
  const before = page.url();
  await form.getByRole('button', { name: 'Apply filters' }).click();
  if (Object.keys(filters).length) await page.waitForURL((u) => u.toString() !== before, { timeout: STEP_MS });
  await tableSettled(page);
  const empty = (await main(page).locator('.empty').count()) ? await main(page).locator('.empty').innerText() : null;
  return { url: page.url(), ids: await rowIds(page, 'data-click'), csv: await downloadCsv(page), empty };
}

// ---------------------------------------------------------------------------------------------
// Live

/** The SSE messages the page's EventSource received (Chromium's DevTools protocol), in order. */
export interface StreamRecorder {
  messages: Array<{ type: string; id: string; eventId: string; conversionId: string }>;
  stop(): Promise<void>;
}

export async function recordStream(page: Page): Promise<StreamRecorder> {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  const messages: StreamRecorder['messages'] = [];
  cdp.on('Network.eventSourceMessageReceived', (m: { eventName: string; eventId: string; data: string }) => {
    try {
      const body = JSON.parse(m.data) as { id: string; conversion: { id: string } };
      messages.push({ type: m.eventName, id: m.eventId, eventId: body.id, conversionId: body.conversion.id });
    } catch {
      // Not a sale event (the server's error notice).
    }
  });
  await cdp.send('Network.enable');
  return { messages, stop: () => cdp.detach().catch(() => undefined) };
}

export interface LiveSaleJourney {
  conversionId: string;
  /** From the intake's answer to the row on the open page. */
  ms: number;
  /** The row as shown. */
  row: string;
  badge: string;
  /** Navigations of the page between the sale and its row (none: no reload). */
  navigations: string[];
}

/** /conversions open and live; a merchant reports a sale: how long until its row is on the page (no reload). */
export async function liveSaleJourney(page: Page, env: PortalEnv, subid = 'live-journey'): Promise<LiveSaleJourney> {
  if (new URL(page.url()).pathname !== '/conversions' || new URL(page.url()).search) {
    await page.goto(`${env.url}/conversions`);
    await heading(page, 'Conversions');
  }
  await tableSettled(page);
  await waitForLive(page);
  const navigations: string[] = [];
  const onNavigated = (f: Frame) => void (f === page.mainFrame() && navigations.push(f.url()));
  page.on('framenavigated', onNavigated);
  try {
    const clickId = await newClick(env, subid);
    const sale = await reportSale(env, clickId);
    const t = Date.now();
    const row = main(page).locator(`tr[data-conversion="${sale.id}"]`);
    await row.waitFor({ timeout: STEP_MS });
    const ms = Date.now() - t;
    return { conversionId: sale.id, ms, row: (await row.innerText()).replace(/\s+/g, ' '), badge: await liveState(page), navigations };
  } finally {
    page.off('framenavigated', onNavigated);
  }
}

export interface LiveRecoveryJourney {
  /** The badge's states seen, in order (polled every 50 ms). */
  states: string[];
  /** The sale reported while the stream was down, and whether its row came. */
  conversionId: string;
  rows: number;
  /** From the stream's return to the row on the page. */
  ms: number;
  /** The sale events the page's EventSource received during the journey. */
  received: StreamRecorder['messages'];
}

/**
 * /conversions open and live; `cut` breaks the stream (the test ends the server's streams, and
 * may refuse reconnections until `restore`); a sale is reported while it is down; after `restore`
 * the badge is live again and the sale's row appears once (its events received once each).
 */
export async function liveRecoveryJourney(
  page: Page,
  env: PortalEnv,
  cut: () => Promise<void> | void,
  restore: () => Promise<void> | void,
  opts: { downMs?: number } = {},
): Promise<LiveRecoveryJourney> {
  await page.goto(`${env.url}/conversions`);
  await heading(page, 'Conversions');
  await tableSettled(page);
  await waitForLive(page);
  const recorder = await recordStream(page);
  // The state before the cut (live: waited for above), then every change.
  const states: string[] = [await liveState(page)];
  let watching = true;
  const watch = (async () => {
    while (watching) {
      const s = await main(page)
        .locator('.live-badge')
        .getAttribute('data-state')
        .catch(() => null);
      if (s && states.at(-1) !== s) states.push(s);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  try {
    await cut();
    await main(page).locator('.live-badge:not([data-state="live"])').waitFor({ timeout: STEP_MS });
    const clickId = await newClick(env, 'live-recovery');
    const sale = await reportSale(env, clickId, '12.34');
    await new Promise((r) => setTimeout(r, opts.downMs ?? 0));
    await restore();
    const t = Date.now();
    await waitForLive(page, 'live', 45_000);
    await main(page).locator(`tr[data-conversion="${sale.id}"]`).waitFor({ timeout: STEP_MS });
    const ms = Date.now() - t;
    // A moment for anything doubled to arrive.
    await new Promise((r) => setTimeout(r, 1000));
    return {
      states,
      conversionId: sale.id,
      rows: await main(page).locator(`tr[data-conversion="${sale.id}"]`).count(),
      ms,
      received: [...recorder.messages],
    };
  } finally {
    watching = false;
    await watch;
    await recorder.stop();
  }
}

export interface ConversionPageJourney {
  /** The History list's items before and after the merchant approved the sale (no reload). */
  before: string[];
  after: string[];
  details: string;
  title: string;
}

/** From the conversions table (the keyboard: focus the conversion's link, Enter) to its page; the merchant approves it: the history grows live. */
export async function conversionPageJourney(page: Page, env: PortalEnv, conversionId: string): Promise<ConversionPageJourney> {
  await page.goto(`${env.url}/conversions`);
  await heading(page, 'Conversions');
  await tableSettled(page);
  const link = main(page).locator(`tr[data-conversion="${conversionId}"]`).getByRole('link');
  await link.focus();
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.pathname === `/conversions/${conversionId}`, { timeout: STEP_MS });
  await heading(page, 'Conversion');
  await settle(page);
  await waitForLive(page);
  const items = () => main(page).getByRole('list', { name: 'Status changes' }).getByRole('listitem').allInnerTexts();
  const before = await items();
  await merchantSets(env, conversionId, 'approved');
  await main(page).getByRole('list', { name: 'Status changes' }).getByRole('listitem').nth(before.length).waitFor({ timeout: STEP_MS });
  const details = await main(page).getByRole('region', { name: 'Details' }).innerText();
  return { before, after: await items(), details, title: await page.title() };
}

export interface KeyboardPagingJourney {
  pages: Array<{ label: string; ids: string[]; cursor: string | null; focused: string }>;
}

/** /conversions?page_size=25: Tab to "Next page", Enter, Enter again, then "Previous page" twice; focus stays on the button pressed. */
export async function keyboardPagingJourney(page: Page, env: PortalEnv): Promise<KeyboardPagingJourney> {
  await page.goto(`${env.url}/conversions?page_size=25`);
  await heading(page, 'Conversions');
  await tableSettled(page);
  const pager = main(page).getByRole('navigation', { name: 'Pages of conversions' });
  const focused = () => page.locator('html').evaluate((html) => html.ownerDocument.activeElement?.textContent?.trim() ?? '');
  const seen = async (): Promise<KeyboardPagingJourney['pages'][number]> => {
    await tableSettled(page);
    return {
      label: (await pager.locator('.pager-page').innerText()).trim(),
      ids: await rowIds(page, 'data-conversion'),
      cursor: new URL(page.url()).searchParams.get('cursor'),
      focused: await focused(),
    };
  };
  const pages = [await seen()];
  const next = pager.getByRole('button', { name: 'Next page' });
  const previous = pager.getByRole('button', { name: 'Previous page' });
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    if (await next.evaluate((el) => el === el.ownerDocument.activeElement)) break;
  }
  if (!(await next.evaluate((el) => el === el.ownerDocument.activeElement))) throw new Error('Tab never reached "Next page"');
  for (let i = 0; i < 2; i++) {
    const label = await pager.locator('.pager-page').innerText();
    await page.keyboard.press('Enter');
    await pager.locator('.pager-page').filter({ hasNotText: label }).filter({ hasNotText: 'Loading' }).waitFor({ timeout: STEP_MS });
    pages.push(await seen());
  }
  for (let i = 0; i < 3 && !(await previous.evaluate((el) => el === el.ownerDocument.activeElement)); i++) await page.keyboard.press('Shift+Tab');
  if (!(await previous.evaluate((el) => el === el.ownerDocument.activeElement))) throw new Error('Shift+Tab did not reach "Previous page"');
  for (let i = 0; i < 2; i++) {
    const label = await pager.locator('.pager-page').innerText();
    await page.keyboard.press('Enter');
    await pager.locator('.pager-page').filter({ hasNotText: label }).filter({ hasNotText: 'Loading' }).waitFor({ timeout: STEP_MS });
    pages.push(await seen());
  }
  return { pages };
}
