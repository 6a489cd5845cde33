/**
 * The load-mix soak: the one-process platform under a realistic mix at a fixed rate for minutes
 * (searches, lookups, redirects, link creation, reports, merchant sales and their signed
 * postbacks), then counted end to end: error rate and p99 per route, the platform's memory over
 * time (growth?), clicks stored == redirects answered, postbacks delivered == sales created.
 * `npm run bench:soak [-- --minutes 10 --rate 100 --products 20000]`.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { MongoClient } from 'mongodb';
import { storedClicksOf } from './lib/stored-clicks';
import { startPlatform } from '@cw-tools/dev-stack';
import type { MixResult, MixSpec } from './lib/mix-load';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';

const OPTIONS = {
  minutes: { type: 'string', default: '10' },
  rate: { type: 'string', default: '100' },
  products: { type: 'string', default: '20000' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:soak --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const MINUTES = Number(values.minutes);
const RATE = Number(values.rate);
const LIFTED = '10000000';

// The publisher's postback receiver: counts signed deliveries per conversion.
const delivered = new Set<string>();
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    delivered.add(String(req.headers['x-cw-delivery']));
    res.writeHead(204).end();
  });
});
await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));

const budgets = Object.fromEntries(['IP', 'PRODUCTS', 'LINKS', 'REPORTING', 'POSTBACKS', 'MERCHANT'].map((b) => [`RATELIMIT_${b}_PER_MIN`, LIFTED]));
console.log(`seeding ${values.products} products...`);
const platform = await startPlatform({
  env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', TRUST_PROXY_HOPS: '1', ...budgets },
  seedProducts: Number(values.products),
  credentialsPath: null,
});
const c = platform.credentials!;
const pub = c.publishers[0];
const put = await fetch(`${platform.url}/api/v1/publisher/postback/`, {
  method: 'PUT',
  headers: { Authorization: `Bearer ${pub.portal_token}`, 'Content-Type': 'application/json' },
  body: JSON.stringify({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, event_types: ['sale.created'] }),
});
if (put.status !== 201 && put.status !== 200) throw new Error(`postback configuration: ${put.status} ${await put.text()}`);
const link = (await (
  await fetch(`${platform.url}/api/v1/publisher/links/`, {
    method: 'POST',
    headers: { 'X-API-Key': pub.keys.live, 'Content-Type': 'application/json' },
    body: JSON.stringify({ program_id: c.fixtures.approved_program_id, subid: 'soak' }),
  })
).json()) as { id: string };
const sample = (await (await fetch(`${platform.url}/api/v1/publisher/products/?country=DE&limit=50`, { headers: { 'X-API-Key': pub.keys.live } })).json()) as {
  products: Array<{ gtin: string }>;
};

const spec: MixSpec = {
  url: platform.url,
  apiKey: pub.keys.live,
  merchantToken: c.fixtures.merchant_token,
  linkCode: link.id,
  programId: c.fixtures.approved_program_id,
  gtins: sample.products.map((p) => p.gtin),
  rate: RATE,
  seconds: MINUTES * 60,
  weights: { search: 35, lookup: 15, redirect: 35, link: 5, report: 5, sale: 5 },
};

// Memory over time, sampled in the platform's process every 10 s.
const rss: number[] = [];
const sampler = setInterval(() => rss.push(process.memoryUsage().rss / 2 ** 20), 10_000);
console.log(`${MINUTES} min at ${RATE} req/s: ${JSON.stringify(spec.weights)}`);
const run = promisify(execFile);
const { stdout } = await run(
  resolve(import.meta.dirname, '../node_modules/.bin/tsx'),
  [resolve(import.meta.dirname, 'lib/mix-load.ts'), JSON.stringify(spec)],
  { maxBuffer: 1 << 24 },
);
clearInterval(sampler);
const result = JSON.parse(stdout.trim().split('\n').pop()!) as MixResult;

// Let the click buffer and the postback worker finish, then count end to end.
await new Promise((r) => setTimeout(r, 5_000));
const mongo = await MongoClient.connect(platform.mongoUri);
const clicks = await storedClicksOf(mongo.db(), link.id);
const sales = await mongo.db().collection('conversions').countDocuments({ link_id: link.id });
await mongo.close();
await platform.stop();
receiver.close();

let errors = 0;
console.log('\nroute      count   errors   p50 ms   p99 ms   statuses');
for (const [route, r] of Object.entries(result.perRoute)) {
  errors += r.errors;
  console.log(
    `${route.padEnd(9)} ${String(r.count).padStart(6)} ${String(r.errors).padStart(8)} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)}   ${JSON.stringify(r.statuses)}`,
  );
}
const minute = Math.max(1, Math.floor(rss.length / MINUTES));
const firstMinute = rss.slice(0, minute);
const lastMinute = rss.slice(-minute);
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
console.log(`\nrequests ${result.sent}, error rate ${((100 * errors) / Math.max(1, result.sent)).toFixed(3)}%`);
console.log(`RSS (platform and engine, one process) every 10 s: ${rss.map((x) => x.toFixed(0)).join(' ')} MiB`);
console.log(
  `RSS first minute ${avg(firstMinute).toFixed(0)} MiB, last minute ${avg(lastMinute).toFixed(0)} MiB (the engine keeps every click and sale written meanwhile)`,
);
console.log(`clicks stored ${clicks} of ${result.redirectsAnswered} redirects answered${clicks === result.redirectsAnswered ? '' : '  <-- MISMATCH'}`);
console.log(
  `sales stored ${sales} of ${result.salesCreated} created; postbacks delivered ${delivered.size}${delivered.size === result.salesCreated ? '' : '  <-- MISMATCH'}`,
);
process.exit(clicks === result.redirectsAnswered && delivered.size === result.salesCreated && sales === result.salesCreated ? 0 : 1);
