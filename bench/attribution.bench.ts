/**
 * Conversion intake by click id, by coupon code and by agent attribution token, A B in one run:
 * the same platform, merchant and program; rounds of each path interleaved (in a rotating order),
 * each round `--batch` reports at `--concurrency` in flight; req/s per path (median of the rounds)
 * and the token path against the click path. Every report is a new order (each token a new one:
 * a token credits one order). `npm run bench:attribution [-- --rounds 6 --batch 200 --concurrency 8]`.
 */
import { performance } from 'node:perf_hooks';
import { ClickIds } from '@cw/links';
import { startPlatform } from '@cw-tools/dev-stack';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';

const OPTIONS = {
  rounds: { type: 'string', default: '6' },
  batch: { type: 'string', default: '200' },
  concurrency: { type: 'string', default: '8' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:attribution --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const ROUNDS = Number(values.rounds);
const BATCH = Number(values.batch);
const CONCURRENCY = Number(values.concurrency);

const platform = await startPlatform({
  env: {
    PORT: '0',
    LOG_LEVEL: 'warn',
    RATELIMIT_IP_PER_MIN: '10000000',
    RATELIMIT_PRODUCTS_PER_MIN: '10000000',
    RATELIMIT_LINKS_PER_MIN: '10000000',
    RATELIMIT_MERCHANT_PER_MIN: '10000000',
  },
  seedProducts: 500,
  credentialsPath: null,
});
const creds = platform.credentials!;
const key = creds.publishers[0].keys.live;
const merchant = creds.fixtures.merchant_token;
const api = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${platform.url}/api/v1/publisher${path}`, { ...init, headers: { 'X-API-Key': key, 'Content-Type': 'application/json' } });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
};

// The click path's ids: signed click ids of one link, minted as the redirect mints them (no bot flag).
const link = (await api('/links/', { method: 'POST', body: JSON.stringify({ program_id: 1001, subid: 'bench' }) })) as { url: string };
const linkCode = new URL(link.url).pathname.split('/').pop()!;
const clickIds = new ClickIds(platform.config.keys);
// The code path's code (the demo's approved program approves codes at once).
const code = ((await api('/codes/', { method: 'POST', body: JSON.stringify({ program_id: 1001, code: 'BENCHCODE1' }) })) as { code: string }).code;
// The token path's tokens: as the publisher API hands them out (attribution=token), one per order.
const tokens: string[] = [];
async function moreTokens(n: number): Promise<void> {
  while (tokens.length < n) {
    const page = (await api('/products/?country=DE&merchant=501&limit=100&attribution=token')) as {
      products: Array<{ affiliate_attribution: { token: string } }>;
    };
    if (!page.products.length) throw new Error('no products of merchant 501 in DE');
    tokens.push(...page.products.map((p) => p.affiliate_attribution.token));
  }
}

let orders = 0;
type Path = 'click' | 'code' | 'token';
const bodyFor = (path: Path): Record<string, unknown> => {
  const base = { order_id: `BENCH-${++orders}`, amount: '49.90', currency: 'EUR' };
  if (path === 'click') return { ...base, click_id: clickIds.next(linkCode, { isBot: false }) };
  if (path === 'code') return { ...base, coupon_code: code };
  return { ...base, attribution_token: tokens.pop()! };
};

async function round(path: Path): Promise<number> {
  if (path === 'token') await moreTokens(BATCH);
  const bodies = Array.from({ length: BATCH }, () => bodyFor(path));
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const res = await fetch(`${platform.url}/api/v1/track/conversions/`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${merchant}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      }
    }),
  );
  return BATCH / ((performance.now() - t) / 1000);
}

const PATHS: Path[] = ['click', 'code', 'token'];
// A warm-up round of each, not counted.
for (const p of PATHS) await round(p);
const rates: Record<Path, number[]> = { click: [], code: [], token: [] };
for (let r = 0; r < ROUNDS; r++) {
  const order = PATHS.map((_, i) => PATHS[(i + r) % PATHS.length]!);
  for (const p of order) rates[p].push(await round(p));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const p of PATHS)
  console.log(
    `intake by ${p.padEnd(5)}  ${median(rates[p]).toFixed(0).padStart(6)} req/s (median of ${ROUNDS} rounds of ${BATCH} at ${CONCURRENCY} in flight; rounds ${rates[p].map((x) => x.toFixed(0)).join(', ')})`,
  );
const ratio = median(rates.token) / median(rates.click);
console.log(`token path / click path: ${(ratio * 100).toFixed(0)}% (target: within 20%, i.e. at least 80%)`);
await platform.stop();
process.exit(0);
