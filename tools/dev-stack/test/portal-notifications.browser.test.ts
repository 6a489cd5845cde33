/**
 * Notification mail in a real headless Chromium on the local platform: the owner of publishers[0]
 * opens Settings, Notifications, turns the weekly summary off with the keyboard and saves (a clear
 * confirmation; the choice is there after a reload); someone not signed in opens a mail's
 * unsubscribe link: the page changes nothing until its button is pressed (with the keyboard), then
 * says the kind is off; an altered link says it cannot be used. axe-core finds nothing serious or
 * critical on any page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { connectDatabase, type Database } from '@cw/db';
import { unsubscribeToken } from '@cw/notifications';
import { axeViolations, serious } from '../src/axe-check';
import { startPlatform, type Platform } from './support/test-platform';
import { CHROMIUM_ARGS, chromiumPath, portalEnv, settle, signIn, type PortalEnv } from '../src/portal-journeys';

let platform: Platform;
let env: PortalEnv;
let browser: Browser;
let mailDir: string;
let db: Database;
const contexts: BrowserContext[] = [];
const axeFound: Record<string, unknown[]> = {};

beforeAll(async () => {
  const problem = inject('chromiumProblem');
  if (problem) throw new Error(problem);
  mailDir = mkdtempSync(join(tmpdir(), 'portal-notifications-mail-'));
  platform = await startPlatform({
    env: {
      PORT: '0',
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      RATELIMIT_PORTAL_PER_MIN: '100000',
      RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '100000',
      RATELIMIT_SIGNIN_EMAIL_PER_MIN: '100000',
    },
    seedProducts: 20,
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

async function newPage(): Promise<Page> {
  // bypassCSP: axe-core is injected as a script (the portal's CSP allows only its own).
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  contexts.push(context);
  return context.newPage();
}

const main = (page: Page) => page.getByRole('main');
const owner = () => env.credentials.publishers[0]!.portal_login;

async function axe(page: Page, name: string): Promise<void> {
  await settle(page);
  axeFound[name] = serious(await axeViolations(page));
}

async function ownerId(): Promise<string> {
  const u = await db.connection.collection('users').findOne<{ _id: string }>({ email: owner().email });
  return u!._id;
}

describe('Settings, Notifications', () => {
  it('turns the weekly summary off with the keyboard and picks the person’s time zone, saves with a clear confirmation, and keeps both after a reload', async () => {
    const page = await newPage();
    await signIn(page, env, owner());
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Notifications settings', exact: true }).click();
    await main(page).getByRole('heading', { level: 1, name: 'Notifications' }).waitFor();
    await axe(page, '/settings/notifications');
    const weekly = main(page).getByRole('switch', { name: 'Weekly summary' });
    expect(await weekly.isChecked()).toBe(true);
    for (const label of ['Payout paid', 'Payout failed or returned', 'Sale reversed after payment', 'Postback endpoint failing'])
      await main(page).getByRole('switch', { name: label }).waitFor();
    await weekly.focus();
    await page.keyboard.press('Space');
    expect(await weekly.isChecked()).toBe(false);
    // The person's own time zone (the weekly summary's), by default none: each account's.
    const zone = main(page).getByRole('combobox', { name: 'Your time zone' });
    expect(await zone.inputValue()).toBe('');
    await zone.selectOption('Asia/Tokyo');
    await main(page).getByRole('button', { name: 'Save notification settings' }).focus();
    await page.keyboard.press('Enter');
    await main(page).getByRole('status').filter({ hasText: 'Your notification settings are saved.' }).waitFor();
    await axe(page, '/settings/notifications (saved)');
    await page.reload();
    await main(page).getByRole('heading', { level: 1, name: 'Notifications' }).waitFor();
    await settle(page);
    expect(await main(page).getByRole('switch', { name: 'Weekly summary' }).isChecked()).toBe(false);
    expect(await main(page).getByRole('combobox', { name: 'Your time zone' }).inputValue()).toBe('Asia/Tokyo');
  }, 120_000);
});

describe('a mail’s unsubscribe link', () => {
  it('changes nothing when opened; its button turns the kind off without signing in', async () => {
    const t = unsubscribeToken(platform.config.keys, await ownerId(), 'payout_failed');
    const page = await newPage();
    await page.goto(`${env.url}/unsubscribe?t=${encodeURIComponent(t)}`);
    await main(page).getByRole('heading', { level: 1, name: 'Unsubscribe' }).waitFor();
    const button = main(page).getByRole('button', { name: 'Turn off “Payout failed or returned” mail' });
    await button.waitFor();
    await axe(page, '/unsubscribe');
    const choices = async () =>
      (await db.connection.collection<{ _id: string; choices?: Record<string, boolean> }>('notification_preferences').findOne({ _id: await ownerId() }))
        ?.choices;
    expect((await choices())?.payout_failed).not.toBe(false);
    await button.focus();
    await page.keyboard.press('Enter');
    await main(page).getByRole('status').filter({ hasText: 'You will no longer get “Payout failed or returned” mail.' }).waitFor();
    await axe(page, '/unsubscribe (done)');
    expect((await choices())?.payout_failed).toBe(false);
  }, 120_000);

  it('altered, says it cannot be used and changes nothing', async () => {
    const t = unsubscribeToken(platform.config.keys, await ownerId(), 'postback_failing');
    const page = await newPage();
    await page.goto(`${env.url}/unsubscribe?t=${encodeURIComponent(`${t.slice(0, -3)}AAA`)}`);
    await main(page).getByText('This link cannot be used').waitFor();
    expect(
      await main(page)
        .getByRole('button', { name: /Turn off/ })
        .count(),
    ).toBe(0);
    await axe(page, '/unsubscribe (altered)');
  }, 120_000);
});

describe('accessibility', () => {
  it('has no serious or critical axe-core violation on the notification pages', async () => {
    expect(Object.keys(axeFound).length).toBeGreaterThanOrEqual(5);
    expect(Object.fromEntries(Object.entries(axeFound).filter(([, v]) => v.length))).toEqual({});
  });
});
