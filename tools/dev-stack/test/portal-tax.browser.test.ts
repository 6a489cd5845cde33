/**
 * Settings, Tax in a real headless Chromium on the local platform: the owner of publishers[0] fills
 * in a W-9 (asked for the password again, as every sensitive change after 10 minutes), is told on
 * the field when the typed signature is not the legal name, signs, and afterwards sees the profile
 * with the taxpayer id masked and never the number again; an analyst is told only owners see it.
 * An admin operator prepares the year-end files on Operations, Payouts. axe-core finds nothing
 * serious or critical on any page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { connectDatabase, type Database } from '@cw/db';
import { axeViolations, serious } from '../src/axe-check';
import { startPlatform, type Platform } from './support/test-platform';
import { CHROMIUM_ARGS, chromiumPath, portalEnv, settle, signIn, type PortalEnv, type Person } from '../src/portal-journeys';

let platform: Platform;
let env: PortalEnv;
let browser: Browser;
let mailDir: string;
let db: Database;
const contexts: BrowserContext[] = [];
const axeFound: Record<string, unknown[]> = {};

const TIN = '078-05-1120';
const TIN_PARTS = ['078-05-1120', '078051120', '051120'];

beforeAll(async () => {
  const problem = inject('chromiumProblem');
  if (problem) throw new Error(problem);
  mailDir = mkdtempSync(join(tmpdir(), 'portal-tax-mail-'));
  platform = await startPlatform({
    env: {
      PORT: '0',
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      RATELIMIT_PORTAL_PER_MIN: '100000',
      RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '100000',
      RATELIMIT_SIGNIN_EMAIL_PER_MIN: '100000',
    },
    seedProducts: 50,
    credentialsPath: null,
    mailDir,
  });
  env = portalEnv(platform, mailDir);
  db = await connectDatabase(env.mongoUri);
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}, 180_000);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await db?.close();
  await platform?.stop();
  if (mailDir) rmSync(mailDir, { recursive: true, force: true });
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
const owner = () => env.credentials.publishers[0]!.portal_login;

async function axe(page: Page, name: string): Promise<void> {
  await settle(page);
  axeFound[name] = serious(await axeViolations(page));
}

describe('the owner', () => {
  it('signs a W-9 (asked for the password again), is told on the field when the signature is not the name, and then sees the TIN masked', async () => {
    const page = await signedIn(owner());
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tax settings', exact: true }).click();
    await main(page).getByRole('heading', { level: 1, name: 'Tax' }).waitFor();
    await settle(page);
    await main(page).getByText('No tax profile yet').waitFor();
    await axe(page, '/settings/tax (before)');

    // The password was given more than 10 minutes ago (as far as the server knows).
    await db.connection.collection('portal_sessions').updateMany({}, { $set: { reauthenticated_until: new Date(Date.now() - 1000) } });
    const form = main(page).getByRole('form', { name: 'Tax profile' });
    await form.getByLabel('Individual (a person, a sole proprietor)').check();
    await form.getByLabel('Legal name', { exact: true }).fill('Dana Q. Whitfield');
    await form.getByLabel('Country of tax residence').selectOption('US');
    await form.getByLabel('Street and number').fill('742 Evergreen Terrace');
    await form.getByLabel('City', { exact: true }).fill('Springfield');
    await form.getByLabel('Postal code').fill('62704');
    await form.getByLabel('State or region').fill('IL');
    await form.getByLabel('Country of the address').selectOption('US');
    await form.getByLabel('SSN or ITIN').check();
    await form.getByLabel('Taxpayer id (TIN)').fill(TIN);
    await form.getByLabel('Signature: type your legal name').fill('Dana Whitfield');
    await form.getByRole('button', { name: 'Sign and save tax profile' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm your password' });
    await dialog.getByLabel('Password').fill(owner().password);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    // The signature is not the legal name: said on the field, nothing saved.
    await main(page).getByRole('alert').filter({ hasText: 'Signature: type your legal name:' }).waitFor();
    expect(await form.getByLabel('Signature: type your legal name').getAttribute('aria-invalid')).toBe('true');
    await axe(page, '/settings/tax (refused)');

    // Signed with the keyboard.
    const signature = form.getByLabel('Signature: type your legal name');
    await signature.fill('dana q. whitfield');
    await signature.press('Enter');
    await main(page)
      .getByText(/^Tax profile saved and signed: W-9 \(US person\), taxpayer id ending 1120\.$/)
      .waitFor();

    // The stored profile: names and country shown, the TIN masked; the form empty.
    const current = main(page).getByRole('region', { name: 'Current tax profile' });
    await current.getByText('•••-••-1120').waitFor();
    const text = await main(page).innerText();
    expect(text).toContain('Dana Q. Whitfield');
    expect(text).toContain('742 Evergreen Terrace');
    for (const part of TIN_PARTS) expect(text).not.toContain(part);
    expect(await form.getByLabel('Taxpayer id (TIN)').inputValue()).toBe('');
    await page.reload();
    await settle(page);
    await main(page).getByText('•••-••-1120').waitFor();
    const reloaded = await page.content();
    for (const part of TIN_PARTS) expect(reloaded).not.toContain(part);
    await axe(page, '/settings/tax (after)');
  }, 120_000);

  it('tells an analyst that only owners see the tax profile', async () => {
    const page = await signedIn(env.credentials.fixtures.analyst_login);
    await page.goto(`${env.url}/settings/tax`);
    await main(page).getByRole('heading', { level: 1, name: 'Tax' }).waitFor();
    await settle(page);
    await main(page).getByText('Only owners see and change the tax profile').waitFor();
    expect(await main(page).getByRole('form', { name: 'Tax profile' }).count()).toBe(0);
    expect(await main(page).innerText()).not.toContain('1120');
    await axe(page, '/settings/tax (analyst)');
  }, 60_000);
});

describe('operators', () => {
  it('prepare the year-end files of a tax year and get download links', async () => {
    const page = await signedIn(env.credentials.fixtures.operator_login);
    await page.goto(`${env.url}/operations/payouts`);
    await main(page).getByRole('heading', { level: 1, name: 'Payouts' }).waitFor();
    await settle(page);
    const year = new Date().getUTCFullYear();
    const form = main(page).getByRole('form', { name: 'Year-end exports' });
    await form.getByLabel('Tax year').selectOption(String(year));
    await form.getByRole('button', { name: 'Prepare the year-end files' }).click();
    const status = main(page)
      .getByRole('status')
      .filter({ hasText: new RegExp(`^${year}: `) });
    await status.waitFor();
    expect(await status.innerText()).toMatch(/1099-NEC threshold of \$2,000\.00/);
    for (const name of [`1099-nec-${year}.csv`, `payouts-by-country-${year}.csv`]) {
      const link = main(page).getByRole('link', { name: `Download ${name}` });
      expect(await link.getAttribute('href')).toBe(`/portal/api/operator/tax/year-end/${year}/files/${name}`);
    }
    const download = await page.context().request.get(`${env.url}/portal/api/operator/tax/year-end/${year}/files/payouts-by-country-${year}.csv`);
    expect(download.status()).toBe(200);
    expect(download.headers()['content-disposition']).toBe(`attachment; filename="payouts-by-country-${year}.csv"`);
    expect((await download.text()).split('\r\n')[0]).toBe('country,currency,payees,payouts,total');
    await axe(page, '/operations/payouts (year-end)');
  }, 60_000);
});

describe('accessibility', () => {
  it('finds nothing serious or critical on any page', () => {
    expect(Object.keys(axeFound).length).toBeGreaterThanOrEqual(5);
    expect(axeFound).toEqual(Object.fromEntries(Object.keys(axeFound).map((k) => [k, []])));
  });
});
