/**
 * Money out in a real headless Chromium on the local platform: the owner of publishers[0] sets a
 * bank account on Settings, Payouts (asked for the password again, as every sensitive change after
 * 10 minutes), sees only its last 4 afterwards and never the number again, and asks for payment on
 * Payments with the keyboard; an analyst sees the settings read-only. In the operator area one admin
 * creates a run and is refused approving it (the reason on the page), another approves the runs,
 * downloads the SEPA file and settles with the sandbox bank; the owner's history then shows the
 * payout paid with its ledger entries. axe-core finds nothing serious or critical on any page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { OperatorPrincipal } from '@cw/auth';
import { connectDatabase, type Database } from '@cw/db';
import { createPerson, operatorGrantRole } from '@cw/people';
import { openPlatformData, type PlatformData } from '@cw/runtime';
import { axeViolations, serious } from '../src/axe-check';
import { startPlatform, type Platform } from './support/test-platform';
import { CHROMIUM_ARGS, chromiumPath, portalEnv, settle, signIn, uniqueEmail, type PortalEnv, type Person } from '../src/portal-journeys';

let platform: Platform;
let env: PortalEnv;
let browser: Browser;
let mailDir: string;
let db: Database;
let data: PlatformData;
const contexts: BrowserContext[] = [];
const axeFound: Record<string, unknown[]> = {};

const ROOT: OperatorPrincipal = { type: 'operator', email: 'root@network.test', role: 'admin' };
const approver: Person = { email: uniqueEmail('payout-approver'), password: 'payout approver passphrase 7' };
const IBAN = 'FR14 2004 1010 0505 0001 3M02 606';
const IBAN_PARTS = ['FR1420041010050500013M02606', '20041010050500013', '0500013M02606'];
const HOLDER = 'Browser Payee SARL';

beforeAll(async () => {
  const problem = inject('chromiumProblem');
  if (problem) throw new Error(problem);
  mailDir = mkdtempSync(join(tmpdir(), 'portal-payouts-mail-'));
  platform = await startPlatform({
    env: {
      PORT: '0',
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      RATELIMIT_PORTAL_PER_MIN: '100000',
      RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '100000',
      RATELIMIT_SIGNIN_EMAIL_PER_MIN: '100000',
      // The owner asks for payment right after setting the method (the 72-hour hold is the integration test's).
      PAYOUT_METHOD_HOLD_HOURS: '0',
    },
    seedProducts: 50,
    credentialsPath: null,
    mailDir,
  });
  env = portalEnv(platform, mailDir);
  db = await connectDatabase(env.mongoUri);
  ({ data } = openPlatformData(db.connection));
  const deps = { config: platform.config, data };
  await createPerson(deps, approver, []);
  await operatorGrantRole(deps, ROOT, { email: approver.email, role: 'admin' });
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

let payoutId = '';

describe('the owner', () => {
  it('sets a bank account (asked for the password again), sees only its last 4, and requests payment with the keyboard', async () => {
    const page = await signedIn(owner());
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payouts settings', exact: true }).click();
    await main(page).getByRole('heading', { level: 1, name: 'Payouts' }).waitFor();
    await settle(page);
    await axe(page, '/settings/payouts (before)');

    // The password was given more than 10 minutes ago (as far as the server knows).
    await db.connection.collection('portal_sessions').updateMany({}, { $set: { reauthenticated_until: new Date(Date.now() - 1000) } });
    const form = main(page).getByRole('form', { name: /payout method/ });
    await form.getByLabel('Bank account (IBAN and BIC)').check();
    await form.getByLabel('Account holder').fill(HOLDER);
    await form.getByLabel('IBAN', { exact: true }).fill(IBAN);
    await form.getByLabel('BIC', { exact: true }).fill('PSSTFRPPPAR');
    await form.getByRole('button', { name: 'Save payout method' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm your password' });
    await dialog.getByLabel('Password').fill(owner().password);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await main(page).getByText('Payout method saved: Bank account ending in 2606.').waitFor();

    // Never shown again: the fields are empty, the page says only the last 4.
    for (const label of ['Account holder', 'IBAN', 'BIC']) expect(await form.getByLabel(label, { exact: true }).inputValue()).toBe('');
    const text = await main(page).innerText();
    expect(text).toContain('ending in 2606');
    for (const part of [...IBAN_PARTS, HOLDER]) expect(text).not.toContain(part);
    await page.reload();
    await settle(page);
    const reloaded = await page.content();
    for (const part of [...IBAN_PARTS, HOLDER]) expect(reloaded).not.toContain(part);
    await axe(page, '/settings/payouts (after)');

    // A mistyped IBAN: the field says why, nothing is saved.
    await form.getByLabel('IBAN', { exact: true }).fill('FR14 2004 1010 0505 0001 3M02 607');
    await form.getByLabel('Account holder').fill(HOLDER);
    await form.getByLabel('BIC', { exact: true }).fill('PSSTFRPPPAR');
    await form.getByRole('button', { name: 'Save payout method' }).click();
    await main(page).getByRole('alert').filter({ hasText: 'IBAN:' }).waitFor();
    expect(await form.getByLabel('IBAN', { exact: true }).getAttribute('aria-invalid')).toBe('true');

    // Payments: request payment with the keyboard.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payments', exact: true }).click();
    await main(page).getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    await settle(page);
    const request = main(page).getByRole('button', { name: 'Request payment' });
    expect(await request.getAttribute('aria-disabled')).toBeNull();
    await request.focus();
    await page.keyboard.press('Enter');
    const done = main(page).getByRole('status').filter({ hasText: 'Payment requested:' });
    await done.waitFor();
    expect(await done.innerText()).toContain('Bank account ending in 2606');
    const row = main(page).locator('tr[data-payout]').first();
    await row.waitFor();
    payoutId = (await row.getAttribute('data-payout'))!;
    expect(await row.innerText()).toContain('Waiting for the network');
    // Asked again: disabled, with the reason beside it.
    await expect.poll(async () => request.getAttribute('aria-disabled')).toBe('true');
    await main(page).getByText('A payout is already on its way').waitFor();
    await axe(page, '/payments (requested)');
  }, 120_000);

  it('lets an analyst read the payout settings without a form', async () => {
    const page = await signedIn(env.credentials.fixtures.analyst_login);
    await page.goto(`${env.url}/settings/payouts`);
    await main(page).getByRole('heading', { level: 1, name: 'Payouts' }).waitFor();
    await settle(page);
    await main(page).getByText('Only owners change the payout settings.').waitFor();
    expect(await main(page).getByRole('button', { name: 'Save payout method' }).count()).toBe(0);
    expect(await main(page).innerText()).toContain('ending in 2606');
    await axe(page, '/settings/payouts (analyst)');
  }, 60_000);
});

describe('operators', () => {
  it('run a payout through approval by another admin, the SEPA file and the sandbox bank; the owner sees it paid', async () => {
    const creator = await signedIn(env.credentials.fixtures.operator_login);
    await creator
      .getByRole('navigation', { name: 'Operations' })
      .getByRole('link', { name: /^Payouts/ })
      .click();
    await main(creator).getByRole('heading', { level: 1, name: 'Payouts' }).waitFor();
    await settle(creator);
    await main(creator).getByRole('button', { name: 'Create a run' }).click();
    await main(creator)
      .getByRole('status')
      .filter({ hasText: /^Run prun_\w+ created/ })
      .waitFor();
    const created = new URL(creator.url()).searchParams.get('run')!;
    expect(created).toMatch(/^prun_/);
    // Its creator may not approve it: the reason is on the page.
    await main(creator)
      .getByRole('button', { name: `Approve run ${created}` })
      .click();
    await creator
      .getByRole('dialog', { name: `Approve run ${created}?` })
      .getByRole('button', { name: 'Yes, approve the run' })
      .click();
    const refused = main(creator).getByRole('alert').filter({ hasText: 'Another admin must approve this run' });
    await refused.waitFor();
    expect(await refused.innerText()).toMatch(/creator cannot/);
    await axe(creator, '/operations/payouts (refused)');

    // Another admin: the owner's requested payment is a run of its own.
    const page = await signedIn(approver);
    const requestRun = String((await db.connection.collection<{ _id: string; run_id: string }>('payouts').findOne({ _id: payoutId }))!.run_id);
    await page.goto(`${env.url}/operations/payouts?run=${requestRun}`);
    await main(page)
      .getByRole('heading', { level: 2, name: `Run ${requestRun}` })
      .waitFor();
    await settle(page);
    await main(page).locator(`tr[data-payout="${payoutId}"]`).waitFor();
    await main(page)
      .getByRole('button', { name: `Approve run ${requestRun}` })
      .click();
    await page
      .getByRole('dialog', { name: `Approve run ${requestRun}?` })
      .getByRole('button', { name: 'Yes, approve the run' })
      .click();
    await main(page)
      .getByRole('status')
      .filter({ hasText: `Run ${requestRun} approved` })
      .waitFor();

    await main(page)
      .getByRole('button', { name: `Show files of run ${requestRun}` })
      .click();
    const link = main(page).getByRole('link', { name: `Download ${requestRun}.sepa.xml` });
    await link.waitFor();
    const file = await page.request.get(new URL((await link.getAttribute('href'))!, env.url).toString());
    expect(file.status()).toBe(200);
    expect(file.headers()['content-type']).toBe('application/xml; charset=utf-8');
    expect(file.headers()['content-disposition']).toBe(`attachment; filename="${requestRun}.sepa.xml"`);
    expect(await file.text()).toContain('FR1420041010050500013M02606');

    await main(page).getByRole('button', { name: 'Settle with the sandbox bank' }).click();
    await page.getByRole('dialog', { name: 'Settle with the sandbox bank?' }).getByRole('button', { name: 'Yes, settle with the sandbox bank' }).click();
    await main(page)
      .getByRole('status')
      .filter({ hasText: `Run ${requestRun} is settled: 1 paid` })
      .waitFor();
    await main(page).locator(`tr[data-payout="${payoutId}"][data-status="paid"]`).waitFor();
    await axe(page, '/operations/payouts (settled)');

    // The run the first admin made: approved by this one.
    await page.goto(`${env.url}/operations/payouts?run=${created}`);
    await main(page)
      .getByRole('button', { name: `Approve run ${created}` })
      .click();
    await page
      .getByRole('dialog', { name: `Approve run ${created}?` })
      .getByRole('button', { name: 'Yes, approve the run' })
      .click();
    await main(page)
      .getByRole('status')
      .filter({ hasText: `Run ${created} approved` })
      .waitFor();

    // The owner's history: paid, with its ledger entries.
    const ownerPage = await signedIn(owner());
    await ownerPage.goto(`${env.url}/payments`);
    await settle(ownerPage);
    const row = main(ownerPage).locator(`tr[data-payout="${payoutId}"]`);
    await row.waitFor();
    await expect.poll(async () => row.innerText()).toContain('Paid');
    await row.getByText('Ledger entries').click();
    // The payout's entry: taken from the balance (a negative amount).
    await expect.poll(async () => row.innerText()).toMatch(/Payout\s+[-−]/);
    expect(await main(ownerPage).innerText()).not.toContain('FR1420041010050500013M02606');
    await axe(ownerPage, '/payments (paid)');
  }, 180_000);
});

describe('accessibility', () => {
  it('has no serious or critical axe-core violation on the payout pages', async () => {
    expect(Object.keys(axeFound).length).toBeGreaterThanOrEqual(6);
    expect(Object.fromEntries(Object.entries(axeFound).filter(([, v]) => v.length))).toEqual({});
  });
});
