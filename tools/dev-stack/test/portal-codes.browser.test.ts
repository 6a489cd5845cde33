/**
 * Personal coupon codes on the Programs page in a real headless Chromium on the local platform: the
 * owner of publishers[0] chooses the approved program whose codes are active at once, sees its
 * rules, types a code that breaks them (the API's 400 said on the field), then a good one with the
 * keyboard: it is active and listed under its program. A code another publisher holds at that
 * merchant is refused on the field without naming who holds it; a code asked for at a program the
 * network reviews waits for review. An analyst sees the codes but no form; another account's codes
 * are 404 on the portal's API. axe-core finds nothing serious or critical.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { axeViolations, serious } from '../src/axe-check';
import { startPlatform, type Platform } from './support/test-platform';
import { CHROMIUM_ARGS, chromiumPath, portalEnv, settle, signIn, type PortalEnv, type Person } from '../src/portal-journeys';

let platform: Platform;
let env: PortalEnv;
let browser: Browser;
const contexts: BrowserContext[] = [];
const axeFound: Record<string, unknown[]> = {};
const STEP_MS = 20_000;
const suffix = Date.now().toString(36).toUpperCase().slice(-6);
const MINE = `SPRING${suffix}`;
const THEIRS = `RIVAL${suffix}`;

beforeAll(async () => {
  const problem = inject('chromiumProblem');
  if (problem) throw new Error(problem);
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
    seedProducts: 20,
    credentialsPath: null,
  });
  env = portalEnv(platform, '');
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}, 180_000);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await platform?.stop();
});

async function signedIn(person: Person): Promise<Page> {
  // bypassCSP: axe-core is injected as a script (the portal's CSP allows only its own).
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
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

describe('the owner', () => {
  it('requests a code with the keyboard: one breaking the rules is named on its field, then it is active and listed under its program', async () => {
    const page = await signedIn(owner().portal_login);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Programs', exact: true }).click();
    await main(page).getByRole('heading', { level: 1, name: 'Programs' }).waitFor();
    await settle(page);
    await axe(page, '/programs (codes empty)');

    const form = main(page).getByRole('form', { name: 'Request a coupon code' });
    await form.getByLabel('Program', { exact: true }).selectOption('1001');
    // The program's rules, once chosen.
    await form.getByText('Codes at this program: 6 to 20 letters and digits. Active at once.').waitFor();

    const field = form.getByLabel('Code you want (optional)');
    await field.focus();
    await page.keyboard.type('no-way');
    await page.keyboard.press('Enter');
    await main(page).getByRole('alert').filter({ hasText: 'Code you want: Must be letters and digits only.' }).waitFor({ timeout: STEP_MS });
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    await axe(page, '/programs (code refused)');

    await field.fill('');
    await field.focus();
    await page.keyboard.type(MINE.toLowerCase());
    await page.keyboard.press('Enter');
    const outcome = main(page).getByRole('heading', { name: new RegExp(`^Code ${MINE} at `) });
    await outcome.waitFor({ timeout: STEP_MS });
    // Focus moves to what happened; its status in words.
    expect(await outcome.evaluate((h) => h === h.ownerDocument.activeElement)).toBe(true);
    expect(await main(page).locator('.results').innerText()).toContain('Active');

    const table = main(page).getByRole('region', { name: 'Table of your coupon codes' });
    const row = table.locator(`tr[data-code="${MINE}"]`);
    await row.waitFor({ timeout: STEP_MS });
    expect(await row.innerText()).toContain('Active');
    // Listed under its program (the row group's header).
    const group = table.locator('tbody').filter({ has: page.locator(`tr[data-code="${MINE}"]`) });
    const programName = (await outcome.innerText()).replace(`Code ${MINE} at `, '');
    expect(await group.locator('th').innerText()).toBe(programName);
    await axe(page, '/programs (code active)');
  }, 90_000);

  it('is told a code another publisher holds at the merchant is taken, without a word of who; a reviewed program’s code waits for review', async () => {
    const other = env.credentials.publishers[1]!;
    const theirs = await fetch(`${env.url}/api/v1/publisher/codes/`, {
      method: 'POST',
      headers: { 'X-API-Key': other.keys.live, 'Content-Type': 'application/json' },
      body: JSON.stringify({ program_id: 1001, code: THEIRS }),
    });
    expect(theirs.status).toBe(201);

    const page = await signedIn(owner().portal_login);
    await page.goto(`${env.url}/programs`);
    await settle(page);
    const form = main(page).getByRole('form', { name: 'Request a coupon code' });
    await form.getByLabel('Program', { exact: true }).selectOption('1001');
    const field = form.getByLabel('Code you want (optional)');
    await field.fill(THEIRS.toLowerCase());
    await field.press('Enter');
    const alert = main(page).getByRole('alert').filter({ hasText: 'Code you want: Is taken at this merchant: choose another one.' });
    await alert.waitFor({ timeout: STEP_MS });
    expect(await main(page).innerText()).not.toContain(other.account_id);
    expect(await main(page).locator(`tr[data-code="${THEIRS}"]`).count()).toBe(0);
    await axe(page, '/programs (code taken)');

    // Program 1002: codes reviewed by the network. None typed: one is made under its rules.
    await form.getByLabel('Program', { exact: true }).selectOption('1002');
    await form.getByText('Reviewed by the network before it credits sales.').waitFor();
    await field.fill('');
    await form.getByRole('button', { name: 'Request the code' }).click();
    const outcome = main(page).getByRole('heading', { name: /^Code [A-Z0-9]{6,20} at / });
    await outcome.waitFor({ timeout: STEP_MS });
    expect(await main(page).locator('.results').innerText()).toContain('Waiting for review');
    const made = /^Code ([A-Z0-9]+) at /.exec(await outcome.innerText())![1]!;
    const row = main(page).locator(`tr[data-code="${made}"]`);
    await row.waitFor({ timeout: STEP_MS });
    expect(await row.innerText()).toContain('Waiting for review');
    await axe(page, '/programs (code pending)');
  }, 90_000);
});

describe('other people', () => {
  it('an analyst sees the account’s codes but no form; another account’s codes are 404 on the portal’s API', async () => {
    const analyst = await signedIn(env.credentials.fixtures.analyst_login);
    await analyst.goto(`${env.url}/programs`);
    await settle(analyst);
    await main(analyst).getByText('Only owners and developers of the account request codes').waitFor();
    expect(await main(analyst).getByRole('form', { name: 'Request a coupon code' }).count()).toBe(0);
    await main(analyst).locator(`tr[data-code="${MINE}"]`).waitFor({ timeout: STEP_MS });

    const other = env.credentials.publishers[1]!;
    const page = await signedIn(owner().portal_login);
    const theirs = await page.context().request.get(`${env.url}/portal/api/accounts/${other.account_id}/codes`);
    expect(theirs.status()).toBe(404);
    const mine = await page.context().request.get(`${env.url}/portal/api/accounts/${owner().account_id}/codes`);
    expect(JSON.stringify(await mine.json())).not.toContain(THEIRS);
    const bad = await page.context().request.get(`${env.url}/portal/api/accounts/${owner().account_id}/code-rules?program_id=abc`);
    expect(bad.status()).toBe(400);
  }, 60_000);
});

describe('accessibility', () => {
  it('finds nothing serious or critical on the Programs page', () => {
    expect(Object.keys(axeFound).length).toBeGreaterThanOrEqual(5);
    expect(axeFound).toEqual(Object.fromEntries(Object.keys(axeFound).map((k) => [k, []])));
  });
});
