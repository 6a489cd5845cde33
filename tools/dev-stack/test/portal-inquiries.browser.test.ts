/**
 * Missing sales in a real headless Chromium on the local platform: the owner of publishers[0],
 * after a real click on a tracked link, files an inquiry in the form (a bad amount first, named on
 * its field by the API's 400), sees the platform's evidence (the click verified) and the inquiry
 * listed as open; an admin operator accepts it on Operations, Missing sales with the keyboard; the
 * owner then sees it accepted with a link to the conversion it credited, and is mailed. Another
 * account's inquiry is 404 on the portal's API, and an analyst cannot file. axe-core finds nothing
 * serious or critical on either page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { axeViolations, serious } from '../src/axe-check';
import { startPlatform, type Platform } from './support/test-platform';
import { atPlatform } from '../src/portal-catalog-journeys';
import { CHROMIUM_ARGS, chromiumPath, mailedLink, portalEnv, settle, signIn, type PortalEnv, type Person } from '../src/portal-journeys';

let platform: Platform;
let env: PortalEnv;
let browser: Browser;
let mailDir: string;
const contexts: BrowserContext[] = [];
const axeFound: Record<string, unknown[]> = {};

const SHOPPER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const ORDER = `BROWSER-INQ-${Date.now()}`;
const STEP_MS = 20_000;
let clickId = '';
let inquiryId = '';

beforeAll(async () => {
  const problem = inject('chromiumProblem');
  if (problem) throw new Error(problem);
  mailDir = mkdtempSync(join(tmpdir(), 'portal-inquiries-mail-'));
  platform = await startPlatform({
    env: {
      PORT: '0',
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      RATELIMIT_PORTAL_PER_MIN: '100000',
      RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '100000',
      RATELIMIT_SIGNIN_EMAIL_PER_MIN: '100000',
      RATELIMIT_IP_PER_MIN: '100000',
    },
    seedProducts: 50,
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

async function signedIn(person: Person): Promise<Page> {
  // bypassCSP: axe-core is injected as a script (the portal's CSP allows only its own). UTC: the order's time typed below is UTC.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true, timezoneId: 'UTC' });
  contexts.push(context);
  const page = await context.newPage();
  await signIn(page, env, person);
  return page;
}

const main = (page: Page) => page.getByRole('main');
const owner = () => env.credentials.publishers[0]!;

async function axe(page: Page, name: string): Promise<void> {
  await settle(page);
  axeFound[name] = serious(await axeViolations(page));
}

const publisherApi = (key: string, path: string, init: { method?: string; body?: unknown } = {}) =>
  fetch(`${env.url}/api/v1/publisher${path}`, {
    method: init.method ?? 'GET',
    headers: { 'X-API-Key': key, ...(init.body ? { 'Content-Type': 'application/json' } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });

/** A shopper's click on a new tracked link of publishers[0] on program 1001, once the tracker has stored it. */
async function realClick(): Promise<string> {
  const subid = `inq-browser-${Date.now()}`;
  const created = await publisherApi(owner().keys.live, '/links/', { method: 'POST', body: { program_id: 1001, subid } });
  expect(created.status).toBeLessThan(300);
  const link = ((await created.json()) as { url: string }).url;
  const followed = await fetch(atPlatform(env, link), { redirect: 'manual', headers: { 'User-Agent': SHOPPER_UA, Accept: 'text/html' } });
  expect(followed.status).toBe(302);
  const id = new URL(followed.headers.get('location')!).searchParams.get('cw_click_id')!;
  expect(id).toBeTruthy();
  // Stored by the tracker's next flush: listed by the API once it is.
  const deadline = Date.now() + STEP_MS;
  for (;;) {
    const listed = await publisherApi(owner().keys.live, `/clicks/?sub_id=${subid}`);
    if (listed.status === 200 && (await listed.text()).includes(id)) return id;
    if (Date.now() > deadline) throw new Error(`click ${id} was not stored`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A datetime-local value (UTC, as the context's zone) a little after now: the order came after the click. */
const orderTime = () => new Date(Date.now() + 2 * 60_000).toISOString().slice(0, 16);

describe('the owner', () => {
  it('files an inquiry: a bad amount is named on its field, then the platform’s evidence shows the click verified and the list shows it open', async () => {
    clickId = await realClick();
    const page = await signedIn(owner().portal_login);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Missing sales', exact: true }).click();
    await main(page).getByRole('heading', { level: 1, name: 'Missing sales' }).waitFor();
    await settle(page);
    await axe(page, '/inquiries (empty)');

    const form = main(page).getByRole('form', { name: 'File an inquiry' });
    await form.getByLabel('Program', { exact: true }).selectOption('1001');
    await form.getByLabel('Order id').fill(ORDER);
    await form.getByLabel('When the order was placed').fill(orderTime());
    await form.getByLabel('Order amount').fill('0');
    await form.getByLabel('Currency').selectOption('EUR');
    await form.getByLabel('Note for the merchant (optional)').fill('The customer forwarded the confirmation mail.');
    await form.getByRole('button', { name: 'File the inquiry' }).click();
    // The API's 400 names the amount: said on the field and in the summary, nothing filed.
    await main(page).getByRole('alert').filter({ hasText: 'Order amount: Must be greater than 0.' }).waitFor();
    expect(await form.getByLabel('Order amount').getAttribute('aria-invalid')).toBe('true');
    await axe(page, '/inquiries (refused)');

    // Corrected and filed with the keyboard.
    const amount = form.getByLabel('Order amount');
    await amount.fill('129.90');
    await amount.press('Enter');
    const outcome = main(page).getByRole('heading', { name: `Inquiry filed for order ${ORDER}` });
    await outcome.waitFor({ timeout: STEP_MS });
    // Focus moves to what happened; the evidence is open beneath it.
    expect(await outcome.evaluate((h) => h === h.ownerDocument.activeElement)).toBe(true);
    const evidence = main(page)
      .getByRole('list', { name: `Clicks of order ${ORDER}` })
      .first();
    const clickLine = evidence.getByRole('listitem').filter({ hasText: clickId });
    await clickLine.waitFor();
    expect(await clickLine.innerText()).toContain('Verified');
    expect(await clickLine.innerText()).not.toContain('Not verified');

    // Listed as open, its amount formatted, its deadline shown.
    const table = main(page).getByRole('region', { name: 'Table of inquiries' });
    const row = table.locator('tr').filter({ hasText: ORDER });
    await row.waitFor();
    inquiryId = (await row.getAttribute('data-inquiry'))!;
    expect(inquiryId).toMatch(/^inq_/);
    const text = await row.innerText();
    expect(text).toContain('Open');
    expect(text).toContain('€129.90');
    expect(text).toContain('Waiting for the merchant');
    expect(text).toMatch(/Evidence: \d+ clicks?, [1-9]\d* verified/);
    await axe(page, '/inquiries (filed)');

    // Filing the same order again answers the first inquiry.
    await form.getByLabel('Program', { exact: true }).selectOption('1001');
    await form.getByLabel('Order id').fill(ORDER);
    await form.getByLabel('When the order was placed').fill(orderTime());
    await form.getByLabel('Order amount').fill('1.00');
    await form.getByRole('button', { name: 'File the inquiry' }).click();
    await main(page)
      .getByRole('heading', { name: `Order ${ORDER} was filed before` })
      .waitFor({ timeout: STEP_MS });
  }, 120_000);

  it("answers 404 for another account's inquiry on the portal's API, and 403 to an analyst filing", async () => {
    const other = env.credentials.publishers[1]!;
    const theirs = await publisherApi(other.keys.live, '/inquiries/', {
      method: 'POST',
      body: { program_id: 1001, order_id: `OTHER-${Date.now()}`, occurred_at: new Date().toISOString(), amount: '10.00', currency: 'EUR' },
    });
    expect(theirs.status).toBe(201);
    const theirId = ((await theirs.json()) as { id: string }).id;
    const page = await signedIn(owner().portal_login);
    const asOwner = await page.context().request.get(`${env.url}/portal/api/accounts/${owner().account_id}/inquiries/${theirId}`);
    expect(asOwner.status()).toBe(404);
    expect(((await asOwner.json()) as { code: string }).code).toBe('not_found');
    const notMember = await page.context().request.get(`${env.url}/portal/api/accounts/${other.account_id}/inquiries/${theirId}`);
    expect(notMember.status()).toBe(404);
    const listed = await page.context().request.get(`${env.url}/portal/api/accounts/${owner().account_id}/inquiries?page_size=100`);
    expect(JSON.stringify(await listed.json())).not.toContain(theirId);

    const analyst = await signedIn(env.credentials.fixtures.analyst_login);
    const session = (await (await analyst.context().request.get(`${env.url}/portal/api/session`)).json()) as { csrf_token: string };
    const refused = await analyst.context().request.post(`${env.url}/portal/api/accounts/${owner().account_id}/inquiries`, {
      headers: { 'X-CSRF-Token': session.csrf_token, Origin: env.url },
      data: { program_id: 1001, order_id: `ANALYST-${Date.now()}`, occurred_at: new Date().toISOString(), amount: '10.00', currency: 'EUR' },
    });
    expect(refused.status()).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe('role_not_allowed');
    await analyst.goto(`${env.url}/inquiries`);
    await settle(analyst);
    await main(analyst).getByText('Only owners and developers of the account file inquiries').waitFor();
    expect(await main(analyst).getByRole('form', { name: 'File an inquiry' }).count()).toBe(0);
  }, 60_000);
});

describe('an admin operator', () => {
  it('sees the open inquiry with its evidence and accepts it with the keyboard', async () => {
    const page = await signedIn(env.credentials.fixtures.operator_login);
    await page.goto(`${env.url}/operations/inquiries`);
    await main(page).getByRole('heading', { level: 1, name: 'Missing sales' }).waitFor();
    await settle(page);
    const row = main(page).locator(`tr[data-inquiry="${inquiryId}"]`);
    await row.waitFor();
    expect(await row.innerText()).toMatch(/1 click, 1 verified|\d+ clicks, [1-9]\d* verified/);
    expect(await row.getByLabel(`Reason for rejecting inquiry ${inquiryId}`).count()).toBe(1);
    await axe(page, '/operations/inquiries');

    const accept = row.getByRole('button', { name: `Accept inquiry ${inquiryId}` });
    await accept.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Accept inquiry ${inquiryId}?` });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Yes, credit the order' }).focus();
    await page.keyboard.press('Enter');
    const done = main(page)
      .getByRole('status')
      .filter({ hasText: `Inquiry ${inquiryId} accepted` });
    await done.waitFor({ timeout: STEP_MS });
    expect(await done.innerText()).toMatch(/credited as conversion \S+/);
    // No longer open.
    await row.waitFor({ state: 'detached', timeout: STEP_MS });
    await axe(page, '/operations/inquiries (decided)');
  }, 60_000);
});

describe('the owner, afterwards', () => {
  it('sees the inquiry accepted with the conversion it credited, opens it, and was mailed', async () => {
    const page = await signedIn(owner().portal_login);
    await page.goto(`${env.url}/inquiries`);
    await settle(page);
    await main(page).getByLabel('Status').selectOption('accepted');
    const row = main(page).locator(`tr[data-inquiry="${inquiryId}"]`);
    await row.waitFor({ timeout: STEP_MS });
    expect(await row.innerText()).toContain('Accepted');
    expect(await row.innerText()).toContain('Accepted by the network');
    const conversion = row.getByRole('link', { name: /^Conversion / });
    const href = (await conversion.getAttribute('href'))!;
    expect(href).toMatch(/^\/conversions\/.+/);
    await axe(page, '/inquiries (accepted)');
    await conversion.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === href, { timeout: STEP_MS });
    await settle(page);

    // The owner's mail (the notification kind on by default), sent by the worker's mail job.
    const deadline = Date.now() + 30_000;
    let subject = '';
    while (!subject.includes(ORDER)) {
      const { mail } = await mailedLink(env, owner().portal_login.email, '/unsubscribe', 30_000);
      subject = mail.subject;
      if (subject.includes(ORDER)) {
        expect(subject.startsWith(`Missing sale credited: order ${ORDER} on `)).toBe(true);
        expect(mail.text).toContain(inquiryId);
        expect(mail.text).toContain('/inquiries');
      } else if (Date.now() > deadline) throw new Error(`no mail about ${ORDER}: the newest is "${subject}"`);
      else await new Promise((r) => setTimeout(r, 250));
    }
  }, 90_000);
});

describe('accessibility', () => {
  it('finds nothing serious or critical on either page', () => {
    expect(Object.keys(axeFound).length).toBeGreaterThanOrEqual(6);
    expect(axeFound).toEqual(Object.fromEntries(Object.keys(axeFound).map((k) => [k, []])));
  });
});
