/**
 * The link builder's Routing section (smart links, issue 66) in a real headless Chromium on the
 * local platform: a rule added by keyboard (countries, a device, its landing URL), a second one
 * added and removed by their named buttons, the link created with its rule as the API shows it; a
 * rule to a page the program does not allow is named beside that rule's field; axe-core finds no
 * serious or critical violation with rules open. The GTIN fallback's switches: the builder's
 * checkbox (the link made shows `fallback: false`) and the account's in Settings, Account.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axe from 'axe-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startPlatform, type Platform } from './support/test-platform';
import { CHROMIUM_ARGS, chromiumPath, portalEnv, settle, signIn, type PortalEnv } from '../src/portal-journeys';
import { callApi } from '../src/portal-catalog-journeys';

let platform: Platform;
let env: PortalEnv;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let mailDir: string;

beforeAll(async () => {
  const problem = inject('chromiumProblem');
  if (problem) throw new Error(problem);
  mailDir = mkdtempSync(join(tmpdir(), 'portal-routing-mail-'));
  platform = await startPlatform({ env: { PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'silent' }, seedProducts: 50, credentialsPath: null, mailDir });
  env = portalEnv(platform, mailDir);
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  // bypassCSP: only so the axe check can inject its script.
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', bypassCSP: true });
  page = await context.newPage();
  await signIn(page, env, env.credentials.publishers[0]!.portal_login);
}, 180_000);
afterAll(async () => {
  await context?.close().catch(() => undefined);
  await browser?.close();
  await platform?.stop();
  if (mailDir) rmSync(mailDir, { recursive: true, force: true });
});

async function seriousViolations(p: Page) {
  await p.addScriptTag({ content: axe.source });
  const result = (await p.locator('html').evaluate((html) => html.ownerDocument.defaultView.axe.run(html.ownerDocument, { resultTypes: ['violations'] }))) as {
    violations: Array<{ id: string; impact: string | null; nodes: Array<{ html: string }> }>;
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.html.slice(0, 160)) }));
}

const focused = (p: Page) =>
  p.locator('html').evaluate((html) => html.ownerDocument.activeElement?.getAttribute('aria-label') ?? html.ownerDocument.activeElement?.id ?? '');

describe('the link builder: Routing', () => {
  it('adds rules by keyboard, removes one by its named button, and creates the link with its rule', async () => {
    await page.goto(`${env.url}/links`);
    await settle(page);
    const form = page.getByRole('main').getByRole('form', { name: 'Build a link' });
    const routing = form.getByRole('group', { name: 'Routing' });
    await form.getByRole('button', { name: 'Add a routing rule' }).focus();
    await page.keyboard.press('Enter');
    const rule1 = routing.getByRole('group', { name: 'Rule 1' });
    // The focus moves to the new rule's first field.
    await expect.poll(async () => rule1.getByLabel('Countries').evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.type('de, at');
    // On to the first device, by keyboard.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    expect(await rule1.getByRole('checkbox', { name: 'iPhone and iPad' }).isChecked()).toBe(true);
    const landing = new URL('/de-iphone', env.credentials.fixtures.approved_program_landing_url).toString();
    await rule1.getByLabel('Landing URL').fill(landing);
    await form.getByRole('button', { name: 'Add a routing rule' }).click();
    await routing.getByRole('group', { name: 'Rule 2' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await routing.getByRole('button', { name: 'Remove rule 2' }).click();
    await expect.poll(() => routing.getByRole('group', { name: /^Rule / }).count()).toBe(1);
    expect(await focused(page)).not.toBe('');
    const subid = `routing-${Date.now().toString(36)}`;
    await form.getByLabel('Sub-ID').fill(subid);
    await form.getByRole('button', { name: 'Create link' }).click();
    const made = page.getByRole('main').getByRole('region', { name: 'The new link' });
    await made.waitFor({ timeout: 15_000 });
    expect(await made.innerText()).toContain('1 routing rule');
    const api = await callApi<{ data: Array<{ routes: unknown[] }> }>(env, env.credentials.publishers[0]!.keys.live, `/links/?subid=${subid}`);
    expect(api.body.data[0]?.routes).toEqual([{ countries: ['DE', 'AT'], devices: ['ios'], landing_url: landing }]);
  }, 90_000);

  it("names a rule's landing URL the program does not allow beside that rule, and stays axe-clean", async () => {
    await page.goto(`${env.url}/links`);
    await settle(page);
    const form = page.getByRole('main').getByRole('form', { name: 'Build a link' });
    await form.getByRole('button', { name: 'Add a routing rule' }).click();
    const rule1 = form.getByRole('group', { name: 'Rule 1' });
    await rule1.getByLabel('Landing URL').fill('https://elsewhere.example.net/deal');
    await form.getByRole('button', { name: 'Create link' }).click();
    const field = rule1.getByLabel('Landing URL');
    await expect.poll(() => field.getAttribute('aria-invalid'), { timeout: 15_000 }).toBe('true');
    expect(await rule1.innerText()).toMatch(/program's domains/);
    await expect.poll(() => form.getByRole('alert').innerText()).toMatch(/Routing/);
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('turns the GTIN fallback off for the link it makes (a checkbox, on by default), as the API then shows it', async () => {
    await page.goto(`${env.url}/links`);
    await settle(page);
    const form = page.getByRole('main').getByRole('form', { name: 'Build a link' });
    const box = form.getByRole('group', { name: 'When the product sells out' }).getByRole('checkbox', { name: /same product at another program/ });
    expect(await box.isChecked()).toBe(true);
    await box.focus();
    await page.keyboard.press('Space');
    expect(await box.isChecked()).toBe(false);
    const subid = `nofallback-${Date.now().toString(36)}`;
    await form.getByLabel('Sub-ID').fill(subid);
    await form.getByRole('button', { name: 'Create link' }).click();
    const made = page.getByRole('main').getByRole('region', { name: 'The new link' });
    await made.waitFor({ timeout: 15_000 });
    expect(await made.innerText()).toContain('no fallback to another program');
    const api = await callApi<{ data: Array<{ fallback: boolean }> }>(env, env.credentials.publishers[0]!.keys.live, `/links/?subid=${subid}`);
    expect(api.body.data[0]?.fallback).toBe(false);
  }, 60_000);

  it("turns it off for every link in the account's settings, and shows it off after a reload", async () => {
    await page.goto(`${env.url}/settings/account`);
    await settle(page);
    const box = page.getByRole('main').getByRole('group', { name: 'Sold-out products' }).getByRole('checkbox');
    expect(await box.isChecked()).toBe(true);
    await box.uncheck();
    await page.getByRole('main').getByRole('button', { name: 'Save account' }).click();
    await page.getByText('Account saved.').first().waitFor({ timeout: 15_000 });
    await page.reload();
    await settle(page);
    expect(await page.getByRole('main').getByRole('group', { name: 'Sold-out products' }).getByRole('checkbox').isChecked()).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);
});
