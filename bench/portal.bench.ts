/**
 * The portal, on the one-process platform with the demo data:
 *   1. First load of /dashboard after sign-in, in headless Chromium with an empty cache: the
 *      compressed JS and CSS transferred (target ≤ 250 KB), and the time from navigation to the
 *      page's first data (the dashboard's payment status answered and shown; target p95 ≤ 1 s).
 *   2. Every /portal/api/ call the settings pages make, sequentially with the owner's session
 *      (target p95 ≤ 100 ms each).
 *   3. Change to screen: the dashboard open and live, a visitor clicks a tracked link and the
 *      merchant reports the sale; the time from the intake's answer to the sale's row on the
 *      page, and to the conversions card counting it (target p99 ≤ 2 s).
 * `npm run bench:portal [-- --loads 20 --requests 200 --sales 50]`
 */
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { loadBrowserTarget } from '@cw/config';
import { dashboardLiveJourney, portalEnv, signIn, startPlatform } from '@cw-tools/dev-stack';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';

const OPTIONS = {
  loads: { type: 'string', default: '20' },
  requests: { type: 'string', default: '200' },
  sales: { type: 'string', default: '50' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:portal --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const LOADS = Number(values.loads);
const REQUESTS = Number(values.requests);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

const platform = await startPlatform({
  env: {
    PORT: '0',
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    RATELIMIT_PORTAL_PER_MIN: '10000000',
    RATELIMIT_IP_PER_MIN: '10000000',
    RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '10000000',
    RATELIMIT_SIGNIN_EMAIL_PER_MIN: '10000000',
  },
  seedProducts: 2000,
  credentialsPath: null,
});
const owner = platform.credentials!.publishers[0]!.portal_login;
const account = platform.credentials!.publishers[0]!.account_id;
const browser = await chromium.launch({
  executablePath: loadBrowserTarget().chromiumPath,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  // 1. First loads.
  const transferred: number[] = [];
  const firstData: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const context = await browser.newContext();
    const signin = await context.request.post(`${platform.url}/portal/api/signin`, { data: owner, headers: { Origin: platform.url } });
    if (signin.status() !== 200) throw new Error(`sign-in answered ${signin.status()}`);
    const page = await context.newPage();
    let bytes = 0;
    const sized: Array<Promise<void>> = [];
    page.on('requestfinished', (req) => {
      if (req.resourceType() === 'script' || req.resourceType() === 'stylesheet')
        sized.push(req.sizes().then((s) => void (bytes += s.responseBodySize + s.responseHeadersSize)));
    });
    const started = performance.now();
    const data = page.waitForResponse((r) => r.url().endsWith(`/accounts/${account}/payment-status`) && r.status() === 200);
    await page.goto(`${platform.url}/dashboard`);
    await data;
    // Shown: the payment status's amounts are on the page (formatted by Intl, so a digit).
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.getByText('Loading').first().waitFor({ state: 'detached' });
    firstData.push(performance.now() - started);
    await Promise.all(sized);
    transferred.push(bytes);
    await context.close();
  }
  console.log(`first load of /dashboard: JS + CSS transferred ${(pct(transferred, 50) / 1024).toFixed(1)} KB (compressed, headers included)`);
  console.log(`time to first data: p50 ${ms(pct(firstData, 50))}, p95 ${ms(pct(firstData, 95))} over ${LOADS} loads (empty cache each)`);

  // 2. The settings pages' calls.
  const res = await fetch(`${platform.url}/portal/api/signin`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: platform.url },
    body: JSON.stringify(owner),
  });
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  const calls = [
    '/session',
    `/accounts/${account}`,
    `/accounts/${account}/payment-status`,
    `/accounts/${account}/keys`,
    `/accounts/${account}/postback`,
    `/accounts/${account}/postback/deliveries?page_size=20`,
    `/accounts/${account}/members`,
    `/accounts/${account}/security-log?limit=50`,
    '/sessions',
  ];
  console.log(`portal API, ${REQUESTS} sequential calls each:`);
  for (const path of calls) {
    const took: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const t = performance.now();
      const r = await fetch(`${platform.url}/portal/api${path}`, { headers: { Cookie: cookie } });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`${path} answered ${r.status}`);
      took.push(performance.now() - t);
    }
    console.log(`  GET ${path.replace(account, ':account').padEnd(45)} p50 ${ms(pct(took, 50))}  p95 ${ms(pct(took, 95))}`);
  }

  // 3. Change to screen.
  const env = portalEnv(platform, platform.config.mailDir ?? '');
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, env, owner);
  const rows: number[] = [];
  const totals: number[] = [];
  for (let i = 0; i < Number(values.sales); i++) {
    const r = await dashboardLiveJourney(page, env);
    rows.push(r.rowMs);
    totals.push(r.totalMs);
  }
  console.log(
    `merchant's report to the open dashboard (${values.sales} sales): row p50 ${ms(pct(rows, 50))}, p99 ${ms(pct(rows, 99))}; ` +
      `conversions card p50 ${ms(pct(totals, 50))}, p99 ${ms(pct(totals, 99))}`,
  );
  await context.close();
} finally {
  await browser.close();
  await platform.stop();
}
