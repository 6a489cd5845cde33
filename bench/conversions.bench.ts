/**
 * Conversions and reports at scale: one account with N conversions (default 1,000,000) over a
 * year, on the one-process platform. Measures GET /conversions/ (first page; filtered by status
 * and a sub-ID) and a 90-day GET /reports/?group_by=day, sequential requests, p50/p99, and the
 * process RSS before and after the reports (the report aggregates in the database; the app does
 * not read conversions into its own memory). `npm run bench:conversions [-- --conversions N]`.
 */
import { performance } from 'node:perf_hooks';
import { startEmbeddedMongo } from '@cw-tools/embedded-mongo';
import { startPlatform } from '@cw-tools/dev-stack';
import { seedConversions } from './support/seed-conversions';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';

const OPTIONS = { conversions: { type: 'string', default: '1000000' }, requests: { type: 'string', default: '30' } } as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:conversions --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const N = Number(values.conversions);
const REQUESTS = Number(values.requests);
const DAY = 86_400_000;

const engine = await startEmbeddedMongo();
const uri = `${engine.uri}/bench_conversions`;
const platform = await startPlatform({
  env: { PORT: '0', LOG_LEVEL: 'warn', MONGODB_URI: uri, RATELIMIT_REPORTING_PER_MIN: '10000000', RATELIMIT_IP_PER_MIN: '10000000' },
  seedProducts: 500,
  credentialsPath: null,
});
const key = platform.credentials!.publishers[0].keys.live;
const publisherId = platform.credentials!.publishers[0].account_id;

const now = Date.now();
await seedConversions(uri, publisherId, N, now);

async function measure(label: string, path: string): Promise<void> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const t = performance.now();
    const res = await fetch(`${platform.url}/api/v1/publisher${path}`, { headers: { 'X-API-Key': key } });
    const text = await res.text();
    times.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
    bytes = text.length;
  }
  times.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))];
  console.log(`${label.padEnd(46)} p50 ${pct(50).toFixed(0).padStart(6)} ms  p99 ${pct(99).toFixed(0).padStart(6)} ms  (${bytes} bytes)`);
}

const day = (offset: number) => new Date(now + offset * DAY).toISOString().slice(0, 10);
const rss0 = process.memoryUsage().rss;
await measure('conversions: first page (50), no filter', '/conversions/');
await measure('conversions: 30 days, approved, one sub-ID', `/conversions/?date_from=${day(-29)}&date_to=${day(0)}&status=approved&subid=newsletter`);
await measure('reports: 90 days, group_by=day', `/reports/?group_by=day&date_from=${day(-89)}&date_to=${day(0)}`);
await measure('reports: 90 days, group_by=subid', `/reports/?group_by=subid&date_from=${day(-89)}&date_to=${day(0)}`);
const rss1 = process.memoryUsage().rss;
console.log(
  `process RSS ${(rss0 / 1048576).toFixed(0)} MiB before the requests, ${(rss1 / 1048576).toFixed(0)} MiB after (engine and platform in one process)`,
);
await platform.stop();
await engine.stop();
