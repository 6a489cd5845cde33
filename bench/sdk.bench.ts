/**
 * The SDKs (issue 46), on the one-process platform:
 *   1. SDK overhead per call: the same cached search page, sequential calls through plain fetch
 *      and through the TypeScript SDK's `cw.products.search` (first page), alternated A B A B;
 *      mean latency per call and the SDK's overhead (target: within 5%).
 *   2. `cw listen`: from a merchant's report of a sale to the local POST of its event, over N
 *      sales one after another (p50, p99; target p99 <= 1 s), the CLI in its own process.
 * `npm run bench:sdk [-- --calls 2000 --rounds 3 --sales 100]`
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { freePort } from '@cw-tools/testing';
import { REPO_ROOT, startPlatform, type CredentialsFile } from '@cw-tools/dev-stack';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the SDK's sources as the tests build them (a publishable package, not a workspace lib)
import { CwClient } from '../libs/sdk/typescript/src/index';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the SDK tests' harness (a click, a sale, a receiver), shared rather than copied
import { click, HIGH_BUDGETS, reportSale, startReceiver } from '../tools/dev-stack/test/support/sdk-harness';

const OPTIONS = {
  calls: { type: 'string', default: '2000' },
  rounds: { type: 'string', default: '3' },
  sales: { type: 'string', default: '100' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:sdk --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const platform = await startPlatform({
  env: { PORT: String(await freePort()), NODE_ENV: 'test', LOG_LEVEL: 'silent', EVENTS_POLL_MS: '100', ...HIGH_BUDGETS },
  seedProducts: 2_000,
  credentialsPath: null,
  workerIntervalMs: 100,
});
const creds = platform.credentials as CredentialsFile;
const key = creds.publishers[0]!.keys.live;
const query = { q: 'running shoe', country: 'DE', limit: 20 };
const url = `${platform.url}/api/v1/publisher/products/?q=running%20shoe&country=DE&limit=20`;
const cw = new CwClient({ baseUrl: platform.url, apiKey: key });

/** Per-call latencies of both, interleaved call by call so load on the machine hits both alike. */
async function interleaved(n: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number[], number[]]> {
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const [call, into] of (i % 2
      ? [
          [a, ta],
          [b, tb],
        ]
      : [
          [b, tb],
          [a, ta],
        ]) as Array<[() => Promise<unknown>, number[]]>) {
      const started = performance.now();
      await call();
      into.push(performance.now() - started);
    }
  }
  return [ta.sort((x, y) => x - y), tb.sort((x, y) => x - y)];
}
const pct = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)]!;
const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;

const plain = async () => {
  const res = await fetch(url, { headers: { 'X-API-Key': key, Accept: 'application/json' } });
  if (!res.ok) throw new Error(String(res.status));
  return res.json();
};
const viaSdk = () => cw.products.search(query).then((p) => p);

try {
  const calls = Number(values.calls);
  await interleaved(200, plain, viaSdk);
  const ratios: number[] = [];
  for (let r = 0; r < Number(values.rounds); r++) {
    const [a, b] = await interleaved(calls, plain, viaSdk);
    ratios.push(pct(b, 0.5) / pct(a, 0.5));
    const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
    console.log(
      `round ${r + 1}: plain fetch p50 ${us(pct(a, 0.5))} p90 ${us(pct(a, 0.9))} mean ${us(mean(a))}; SDK p50 ${us(pct(b, 0.5))} p90 ${us(pct(b, 0.9))} mean ${us(mean(b))}; p50 overhead ${((pct(b, 0.5) / pct(a, 0.5) - 1) * 100).toFixed(1)}%`,
    );
  }
  ratios.sort((x, y) => x - y);
  console.log(`SDK overhead per call (p50, median of rounds): ${((ratios[Math.floor(ratios.length / 2)]! - 1) * 100).toFixed(1)}%`);

  const local = await startReceiver();
  const cli = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(REPO_ROOT, 'libs/sdk/typescript/src/cli/main.ts'),
      'listen',
      '--forward-to',
      `${local.url}/hook`,
      '--events',
      'sale.created',
      '--json',
    ],
    {
      env: { ...process.env, CW_API_KEY: key, CW_BASE_URL: platform.url },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((ok) => cli.stdout.on('data', (d: Buffer) => d.toString().includes('"ready"') && ok()));
  const latencies: number[] = [];
  for (let i = 0; i < Number(values.sales); i++) {
    const clickId = await click(platform, key, `bench-${i}`);
    const started = Date.now();
    const id = await reportSale(platform, clickId);
    for (;;) {
      const got = local.received.find((r) => r.body.includes(id));
      if (got) {
        latencies.push(got.at - started);
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  latencies.sort((x, y) => x - y);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)];
  console.log(`cw listen, merchant report to local POST over ${latencies.length} sales: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${latencies.at(-1)} ms`);
  cli.kill('SIGINT');
  await local.close();
} finally {
  await platform.stop();
}
