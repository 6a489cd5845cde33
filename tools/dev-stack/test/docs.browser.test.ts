/** The API reference page renders its endpoints in a real headless Chromium (Debian's package). */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadBrowserTarget } from '@cw/config';
import { chromium, type Browser } from 'playwright-core';
import { startPlatform, type Platform } from '../src/platform';

const CHROMIUM = loadBrowserTarget().chromiumPath;
let platform: Platform;
let browser: Browser;

beforeAll(async () => {
  // The test environment (tools/testing/src/test-environment.ts) installs it when it can.
  const problem = inject('chromiumProblem');
  if (problem) throw new Error(problem);
  platform = await startPlatform({ env: { PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'silent' }, seedProducts: 200, credentialsPath: null });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

describe('API reference page', () => {
  it('renders the publisher API endpoints from the served OpenAPI document', async () => {
    const page = await browser.newPage();
    await page.goto(`${platform.url}/api/v1/publisher/docs`);
    await page.locator('h2', { hasText: 'The account, its access and the limits the key is subject to' }).waitFor({ timeout: 30_000 });
    const text = await page.locator('body').innerText();
    expect(text).toContain('Publisher Affiliate API');
    expect(text).toContain('/api/v1/publisher/payment-status/');
    await page.close();
  }, 60_000);
});
