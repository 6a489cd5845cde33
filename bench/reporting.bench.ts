/**
 * The reporting-token API at scale: one account with N conversions (default 1,000,000) over a
 * year. Measures the CSV export of every sale (rows/s, and the process RSS sampled every 50 ms
 * during it against before it: the export streams from a cursor, so the growth must not follow
 * N; the engine runs in a child process so the RSS is the platform's), and a 90-day
 * `/Apiv3/json` getStats grouped by date (latency p50/p99).
 * `npm run bench:reporting [-- --conversions N]`.
 */
import { performance } from 'node:perf_hooks';
import { startPlatform } from '@cw-tools/dev-stack';
import { seedConversions } from './support/seed-conversions';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { startEngineProcess } from './lib/engine-process';

const OPTIONS = { conversions: { type: 'string', default: '1000000' }, requests: { type: 'string', default: '10' } } as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:reporting --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const N = Number(values.conversions);
const DAY = 86_400_000;

// The engine runs in its own process, so the RSS measured here is the platform's alone (the engine
// materializes a query's result for its cursor; a real MongoDB streams it).
const engine = await startEngineProcess('bench_reporting');
const uri = engine.uri;
const platform = await startPlatform({
  env: { PORT: '0', LOG_LEVEL: 'warn', MONGODB_URI: uri, RATELIMIT_REPORTING_TOKEN_PER_MIN: '10000000', RATELIMIT_IP_PER_MIN: '10000000' },
  seedProducts: 500,
  credentialsPath: null,
});
const token = platform.credentials!.publishers[0].reporting_token;
const publisherId = platform.credentials!.publishers[0].account_id;
const now = Date.now();
await seedConversions(uri, publisherId, N, now);
global.gc?.();

const mib = (b: number) => `${(b / 1048576).toFixed(0)} MiB`;
const rss0 = process.memoryUsage().rss;
let peak = rss0;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
const t = performance.now();
const res = await fetch(`${platform.url}/api/v1/affiliate-reporting/sales/export/`, { headers: { Authorization: `Bearer ${token}` } });
if (res.status !== 200) throw new Error(`export: ${res.status}`);
let lines = 0;
let bytes = 0;
for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
  bytes += chunk.length;
  for (const b of chunk) if (b === 10) lines++;
}
const secs = (performance.now() - t) / 1000;
clearInterval(sampler);
console.log(
  `CSV export: ${(lines - 1).toLocaleString('en-US')} rows, ${mib(bytes)} in ${secs.toFixed(1)} s = ${Math.round((lines - 1) / secs).toLocaleString('en-US')} rows/s; RSS ${mib(rss0)} before, peak ${mib(peak)} during (+${mib(peak - rss0)})`,
);

const day = (offset: number) => new Date(now + offset * DAY).toISOString().slice(0, 10);
const times: number[] = [];
for (let i = 0; i < Number(values.requests); i++) {
  const t1 = performance.now();
  const r = await fetch(
    `${platform.url}/Apiv3/json?api_key=${encodeURIComponent(token)}&Target=Affiliate_Report&Method=getStats&fields[]=Stat.clicks&fields[]=Stat.conversions&fields[]=Stat.payout&groups[]=Stat.date&data_start=${day(-89)}&data_end=${day(0)}&limit=100`,
  );
  const body = (await r.json()) as { response: { status: number; data: { count: number } } };
  times.push(performance.now() - t1);
  if (body.response.status !== 1) throw new Error(`getStats: ${JSON.stringify(body).slice(0, 300)}`);
}
times.sort((a, b) => a - b);
const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))];
console.log(`Apiv3 getStats, 90 days by date: p50 ${pct(50).toFixed(0)} ms, p99 ${pct(99).toFixed(0)} ms`);
await platform.stop();
await engine.stop();
