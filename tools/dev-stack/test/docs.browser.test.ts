/** The API reference page renders its endpoints in a real headless Chromium (Debian's package). */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadBrowserTarget } from '@cw/config';
import { chromium, type Browser } from 'playwright-core';
import { startPlatform, type Platform } from './support/test-platform';

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

/** A page that reports every Content-Security-Policy refusal it meets (as `directive blocked-uri`). */
async function watchedPage() {
  const page = await browser.newPage();
  const refused: string[] = [];
  await page.exposeFunction('reportRefusal', (r: string) => void refused.push(r));
  // As text: it runs in the page (this project's types know no DOM).
  await page.addInitScript({
    content: "document.addEventListener('securitypolicyviolation', (e) => window.reportRefusal(e.effectiveDirective + ' ' + e.blockedURI));",
  });
  return { page, refused };
}

describe('API reference page', () => {
  it('renders the publisher API endpoints from the served OpenAPI document, under its Content-Security-Policy', async () => {
    const { page, refused } = await watchedPage();
    const res = await page.goto(`${platform.url}/api/v1/publisher/docs`);
    expect(res?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await page.locator('h2', { hasText: 'The account, its access and the limits the key is subject to' }).waitFor({ timeout: 30_000 });
    const text = await page.locator('body').innerText();
    expect(text).toContain('Publisher Affiliate API');
    expect(text).toContain('/api/v1/publisher/payment-status/');
    // Its search runs in a worker made from a blob: the policy lets it, so searching finds an endpoint.
    await page.locator('input[placeholder="Search..."]').fill('payment status');
    await page.locator('[data-role="search:results"] li').first().waitFor({ timeout: 15_000 });
    // Nothing Redoc needs was refused; only a third-party image (Redocly's logo, from its CDN) may be.
    expect(refused.filter((r) => !/^img-src https:\/\/cdn\.redoc\.ly\//.test(r))).toEqual([]);
    await page.close();
  }, 60_000);

  it("renders every service's reference, and the index, with nothing of theirs refused by the policy", async () => {
    const { page, refused } = await watchedPage();
    await page.goto(`${platform.url}/docs`);
    // The index's one inline style is allowed by its hash: applied, not refused.
    expect(await page.evaluate('getComputedStyle(document.body).maxWidth')).not.toBe('none');
    for (const path of ['/api/v1/affiliate-reporting/docs', '/api/v1/track/docs']) {
      await page.goto(`${platform.url}${path}`);
      await page.locator('.api-content h1').first().waitFor({ timeout: 30_000 });
    }
    expect(refused.filter((r) => !/^img-src https:\/\/cdn\.redoc\.ly\//.test(r))).toEqual([]);
    await page.close();
  }, 60_000);
});
