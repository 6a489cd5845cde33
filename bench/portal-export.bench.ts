/**
 * The portal's CSV export of conversions (issue 43): one account with N conversions (default
 * 100,000) over a year, exported through `GET /portal/api/accounts/:account/conversions/export`
 * with the owner's session, as the page's "Download CSV" link does. Measures rows per second and
 * the platform process's peak RSS growth while streaming (sampled every 50 ms against the RSS
 * after a GC before it; target ≤ 50 MB: the export reads one database cursor in batches, so the
 * growth must not follow N). The engine runs in its own process, so the RSS is the platform's.
 * Then the same with a filter (status=approved), and the first page of the list for comparison.
 * `npm run bench:portal-export [-- --conversions N --runs 2]`.
 */
import { performance } from 'node:perf_hooks';
import { startPlatform } from '@cw-tools/dev-stack';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { startEngineProcess } from './lib/engine-process';
import { seedConversions } from './support/seed-conversions';

const OPTIONS = { conversions: { type: 'string', default: '100000' }, runs: { type: 'string', default: '2' } } as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:portal-export --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const N = Number(values.conversions);
const RUNS = Number(values.runs);

const engine = await startEngineProcess('bench_portal_export');
const platform = await startPlatform({
  env: {
    PORT: '0',
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    MONGODB_URI: engine.uri,
    RATELIMIT_PORTAL_PER_MIN: '10000000',
    RATELIMIT_IP_PER_MIN: '10000000',
    RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '10000000',
    RATELIMIT_SIGNIN_EMAIL_PER_MIN: '10000000',
  },
  seedProducts: 500,
  credentialsPath: null,
});
const pub = platform.credentials!.publishers[0]!;
await seedConversions(engine.uri, pub.account_id, N);

const signin = await fetch(`${platform.url}/portal/api/signin`, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json', Origin: platform.url },
  body: JSON.stringify(pub.portal_login),
});
if (signin.status !== 200) throw new Error(`sign-in: ${signin.status} ${await signin.text()}`);
const cookie = signin.headers
  .getSetCookie()
  .map((c) => c.split(';')[0])
  .join('; ');

const mib = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;
const base = `${platform.url}/portal/api/accounts/${pub.account_id}/conversions`;

async function exportOnce(
  query: string,
): Promise<{ rows: number; bytes: number; secs: number; growth: number; rss0: number; heapGrowth: number; retained: number }> {
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const heap0 = process.memoryUsage().heapUsed;
  let peak = rss0;
  let heapPeak = heap0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.rss);
    heapPeak = Math.max(heapPeak, m.heapUsed);
  }, 50);
  const t = performance.now();
  const res = await fetch(`${base}/export${query}`, { headers: { Cookie: cookie } });
  if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
  }
  const secs = (performance.now() - t) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  global.gc?.();
  // What the export left behind once collected (none: the growth was garbage, not held rows).
  const retained = process.memoryUsage().heapUsed - heap0;
  return { rows: lines - 1, bytes, secs, growth: peak - rss0, rss0, heapGrowth: heapPeak - heap0, retained };
}

for (const [label, query] of [
  ['every conversion', ''],
  ['status=approved', '?status=approved'],
] as const) {
  for (let i = 0; i < RUNS; i++) {
    const r = await exportOnce(query);
    console.log(
      `portal CSV export (${label}), run ${i + 1}: ${r.rows.toLocaleString('en-US')} rows, ${mib(r.bytes)} in ${r.secs.toFixed(1)} s = ${Math.round(r.rows / r.secs).toLocaleString('en-US')} rows/s; RSS ${mib(r.rss0)} before, peak growth +${mib(r.growth)}${r.growth > 50 * 1048576 ? ' (over the 50 MB target)' : ''}; heap peak growth +${mib(r.heapGrowth)}, retained after GC ${mib(r.retained)}`,
    );
  }
}

const t = performance.now();
const first = await fetch(`${base}?page_size=500`, { headers: { Cookie: cookie } });
if (first.status !== 200) throw new Error(`list: ${first.status}`);
await first.json();
console.log(`the list's first page of 500 (with its sub-ID rollup over all ${N.toLocaleString('en-US')}): ${(performance.now() - t).toFixed(0)} ms`);

await platform.stop();
await engine.stop();
