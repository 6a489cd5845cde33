/**
 * Product search and lookup throughput and latency against the one-process platform on the
 * embedded engine, next to a bare Koa endpoint serving a same-sized page from memory in the same
 * run. `npm run bench:products [-- --products 100000 --duration 10 --connections 10]`.
 */
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { parseArgs } from 'node:util';
import Koa from 'koa';
import { startPlatform } from '@cw-tools/dev-stack';
import { formatResult, runLoad } from './lib/run-load';

const { values } = parseArgs({
  options: { products: { type: 'string', default: '100000' }, duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' } },
});
const PRODUCTS = Number(values.products);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const LIFTED = '10000000';

console.log(`seeding ${PRODUCTS} products...`);
const platform = await startPlatform({
  env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', RATELIMIT_PRODUCTS_PER_MIN: LIFTED, RATELIMIT_IP_PER_MIN: LIFTED },
  seedProducts: PRODUCTS,
  credentialsPath: null,
});
const creds = platform.credentials!;
const key = creds.publishers[0].keys.live;
const headers = { 'X-API-Key': key };
const B = '/api/v1/publisher';

async function getJson(path: string): Promise<{ status: number; text: string; body: { products: Array<{ gtin: string; title: string }> } }> {
  const res = await fetch(`${platform.url}${path}`, { headers });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

// Workload drawn from the catalog itself: title words, brands and GTINs the caller may see.
const sample = await getJson(`${B}/products/?country=DE&limit=100`);
const gtins = [...new Set(sample.body.products.map((p) => p.gtin))];
const words = [...new Set(sample.body.products.flatMap((p) => p.title.toLowerCase().split(/\s+/)).filter((w) => /^[a-z]{4,}$/.test(w)))].slice(0, 8);
const workloads: Array<[string, string[]]> = [
  ['search: market page (country)', [`${B}/products/?country=DE`, `${B}/products/?country=GB&offset=40`]],
  ['search: title phrase (q, country)', words.map((w) => `${B}/products/?q=${encodeURIComponent(w)}&country=DE`)],
  ['search: price range and currency', [`${B}/products/?country=DE&min_price=20&max_price=80.5&currency=EUR`]],
  ['search: group=1, every market', [`${B}/products/?q=${encodeURIComponent(creds.fixtures.group_query)}&group=1`]],
  ['lookup: 10 GTINs, every market', Array.from({ length: 8 }, (_, i) => `${B}/products/lookup/?gtins=${gtins.slice(i * 10, i * 10 + 10).join(',')}`)],
];
for (const path of workloads.flatMap(([, paths]) => paths)) {
  const r = await getJson(path);
  if (r.status !== 200) throw new Error(`${path} answered ${r.status}: ${r.text}`);
}

// The bare endpoint: the same page (the platform's default 20-product search page), from memory.
const page = (await getJson(`${B}/products/?country=DE`)).text;
const bare = new Koa();
bare.use((ctx) => {
  ctx.set('Cache-Control', 'private, no-store');
  ctx.type = 'application/json';
  ctx.body = page;
});
const bareServer = http.createServer(bare.callback());
await new Promise<void>((r) => bareServer.listen(0, '127.0.0.1', () => r()));
const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`;

const load = (url: string, paths: string[]) =>
  runLoad({ url, requests: paths.map((path) => ({ path, headers })), connections: CONNECTIONS, durationSeconds: DURATION });

console.log(`\n${PRODUCTS} products, ${CONNECTIONS} connections, ${DURATION} s per run, page of ${Buffer.byteLength(page)} bytes\n`);
const bareResult = await load(bareUrl, ['/products/']);
console.log(formatResult('bare Koa page from memory', bareResult));
const results: Array<[string, Awaited<ReturnType<typeof load>>]> = [];
for (const [label, paths] of workloads) {
  const r = await load(platform.url, paths);
  results.push([label, r]);
  console.log(formatResult(label, r));
}
console.log('');
for (const [label, r] of results) {
  console.log(`${label.padEnd(34)} ${((100 * r.requestsPerSecond) / bareResult.requestsPerSecond).toFixed(1).padStart(5)}% of the bare endpoint (goal >= 35%)`);
  if (r.non2xx || r.errors) console.log(`  WARNING: ${r.non2xx} non-2xx responses, ${r.errors} errors`);
}
console.log(`platform process RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);

bareServer.close();
await platform.stop();
process.exit(0);
