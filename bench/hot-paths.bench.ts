/**
 * The hot paths against their bare limits, alternating platform (A) and bare server (B) A B A B
 * in one run so both see the same machine; the median of the rounds' ratios is reported.
 *   - search scenarios vs bare Koa serving the scenario's own page from memory
 *   - GET /c/{code} vs a bare node:http 302, with clicks stored == redirects answered
 *   - smart links (issue 66): GET /c/{code} of a link with 5 routes vs a plain link, A B A B on
 *     the platform itself (`--only routes`), visitors from 64 public addresses behind one trusted
 *     proxy, none matching a rule (every rule tried after the country and device lookups); and a
 *     product link in GTIN fallback (its product out of stock: DE visitors sent to the same GTIN at
 *     another approved program, the others to the program's landing page), A B C in one run
 *   - p50/p99 at a fixed 200 req/s; process RSS
 * `npm run bench:hot [-- --products 100000 --seconds 5 --rounds 3 --profile]`; `--page-cache off`
 * measures search and lookup without the product page cache (every request reads the catalog).
 * The one-process platform as `npm start` runs it (embedded engine in a thread of this process)
 * with budgets lifted; REDIS_URL in the environment switches it to the Redis limiter and access
 * versions. `--services` (with REDIS_URL): the production shape, the engine in its own process and
 * publisher-api and the tracker each in a process of its own, started from their mains; CPU per
 * request is then that service process's.
 */
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { MongoClient } from 'mongodb';
import { storedClicksOf } from './lib/stored-clicks';
import { startPlatform } from '@cw-tools/dev-stack';
import { handlerServer } from '@cw-tools/testing';
import { connectDatabase } from '@cw/db';
import { openPlatformData } from '@cw/runtime';
import { productId, searchProducts } from '@cw/catalog';
import { compileRoutes, CountryLookup, deviceOf, matchRoute } from '@cw/links';
import { formatResult, runLoad } from './lib/run-load';
import type { LoadResult, LoadSpec } from './lib/load';
import { formatBreakdown, formatTop, profileWhile } from './lib/cpu-profile';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { mainThreadCpuMicros, processCpuMicros, startEngineProcess } from './lib/engine-process';
import { startServiceProcess } from './lib/service-process';

const OPTIONS = {
  products: { type: 'string', default: '100000' },
  seconds: { type: 'string', default: '5' },
  rounds: { type: 'string', default: '3' },
  connections: { type: 'string', default: '10' },
  /** The fixed rate (req/s, all connections together) of the latency run after the rounds. */
  rate: { type: 'string', default: '200' },
  profile: { type: 'boolean', default: false },
  /** Scenarios whose name contains one of these comma-separated parts. */
  only: { type: 'string' },
  top: { type: 'string', default: '0' },
  /** With --profile: write each scenario's raw profile to <dir>/<scenario>.cpuprofile; with --services, each service's whole-run profile too. */
  'profile-dir': { type: 'string' },
  /** `child`: the engine in its own process (as MongoDB would be), so the RSS is the platform's. */
  engine: { type: 'string', default: 'in-process' },
  /** `off`: no product page cache (PRODUCT_PAGE_CACHE_ENTRIES=0), so every search reads the catalog. */
  'page-cache': { type: 'string', default: 'on' },
  /** The production shape: publisher-api and the tracker each in its own process (needs REDIS_URL; implies --engine child). */
  services: { type: 'boolean', default: false },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:hot --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const PRODUCTS = Number(values.products);
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);
const RATE = Number(values.rate);
const LIFTED = '10000000';

if (values.services && !process.env.REDIS_URL) {
  console.error('error: --services needs REDIS_URL (services share their limits and access versions through Redis)');
  process.exit(2);
}
const engine = values.engine === 'child' || values.services ? await startEngineProcess('bench_hot') : undefined;
const engineUri = engine?.uri;
console.log(`seeding ${PRODUCTS} products...`);
const env = {
  ...process.env,
  ...(engineUri ? { MONGODB_URI: engineUri } : {}),
  LOG_LEVEL: 'warn',
  SHUTDOWN_DRAIN_MS: '0',
  // /metrics answers only with its token: the redirects are counted from the tracker's.
  METRICS_TOKEN: 'bench-hot-paths-metrics',
  RATELIMIT_PRODUCTS_PER_MIN: LIFTED,
  RATELIMIT_LINKS_PER_MIN: LIFTED,
  RATELIMIT_IP_PER_MIN: LIFTED,
  // Visitors of the routes A B come through one trusted proxy (X-Forwarded-For); the others send none.
  TRUST_PROXY_HOPS: '1',
  ...(values['page-cache'] === 'off' ? { PRODUCT_PAGE_CACHE_ENTRIES: '0' } : {}),
};
const platform = await startPlatform({ env: { ...env, PORT: '0' }, seedProducts: PRODUCTS, credentialsPath: null });
const creds = platform.credentials!;

/** A service in its own process; with --profile-dir, it writes its own V8 CPU profile there when it stops. */
const startService = (name: string) =>
  startServiceProcess(name, { env, nodeArgs: values['profile-dir'] ? ['--cpu-prof', `--cpu-prof-dir=${values['profile-dir']}/${name}`] : [] });
// The worker runs too, as deployed: it counts the tracker's stored click batches (its CPU per redirect is reported apart).
const services = values.services
  ? { api: await startService('publisher-api'), tracker: await startService('tracker'), worker: await startService('postback-worker') }
  : undefined;
if (services) await platform.stop();
const apiUrl = services?.api.url ?? platform.url;
const trackerUrl = services?.tracker.url ?? platform.url;
const key = creds.publishers[0].keys.live;
const B = '/api/v1/publisher';

async function get(path: string, headers: Record<string, string>): Promise<{ status: number; text: string; location: string | null }> {
  const res = await fetch(`${path.startsWith('/c/') ? trackerUrl : apiUrl}${path}`, { headers, redirect: 'manual' });
  return { status: res.status, text: await res.text(), location: res.headers.get('location') };
}

async function listen(handler: Parameters<typeof handlerServer>[0]): Promise<{ url: string; close(): void }> {
  const server = handlerServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

// Workloads drawn from the catalog itself.
const apiHeaders = { 'X-API-Key': key };
const sample = JSON.parse((await get(`${B}/products/?country=DE&limit=100`, apiHeaders)).text) as { products: Array<{ gtin: string; title: string }> };
const gtins = [...new Set(sample.products.map((p) => p.gtin))];
const more = JSON.parse((await get(`${B}/products/?country=DE&limit=100&offset=100`, apiHeaders)).text) as { products: Array<{ gtin: string }> };
/** 97 GTINs (a prime, so every step through the pool gives distinct members). */
const gtinPool = [...new Set([...gtins, ...more.products.map((p) => p.gtin)])].slice(0, 97);
const words = [...new Set(sample.products.flatMap((p) => p.title.toLowerCase().split(/\s+/)).filter((w) => /^[a-z]{4,}$/.test(w)))].slice(0, 8);

const created = await fetch(`${apiUrl}${B}/links/`, {
  method: 'POST',
  headers: { ...apiHeaders, 'Content-Type': 'application/json' },
  body: JSON.stringify({ program_id: creds.fixtures.approved_program_id, subid: 'bench' }),
});
const link = (await created.json()) as { id: string };
// A link with 5 routes no visitor of the bench matches: each click pays the country lookup, the
// device check and all five rules before the link's own target answers.
const ownLanding = ((await (await fetch(`${apiUrl}${B}/links/?subid=bench`, { headers: apiHeaders })).json()) as { data: Array<{ landing_url: string }> })
  .data[0]!.landing_url;
const routedRes = await fetch(`${apiUrl}${B}/links/`, {
  method: 'POST',
  headers: { ...apiHeaders, 'Content-Type': 'application/json' },
  body: JSON.stringify({
    program_id: creds.fixtures.approved_program_id,
    subid: 'bench-routes',
    routes: [['JP'], ['BR', 'AR'], ['IN'], ['ZA', 'NG', 'KE'], ['AU', 'NZ']].map((countries, i) => ({
      countries,
      devices: ['ios', 'android'],
      landing_url: new URL(`/route-${i}`, ownLanding).toString(),
    })),
  }),
});
const routed = (await routedRes.json()) as { id: string; routes?: unknown[] };
if (routed.routes?.length !== 5) throw new Error(`the routed link was not created: ${JSON.stringify(routed)}`);
// A product link in GTIN fallback: a DE product of an approved program, the same GTIN in stock at
// a second approved program in DE, and the link's own product out of stock.
const fallbackLink = await (async () => {
  const db = await connectDatabase(platform.mongoUri);
  const { models, data } = openPlatformData(db.connection);
  const publisherId = creds.publishers[0].account_id;
  const approved = await data.programs.activeApprovedIds(publisherId);
  const own = await models.Product.findOne({ program_id: { $in: approved }, country: 'DE', availability: 'in_stock', removed: false }).lean();
  const other = approved.find((id) => id !== own?.program_id);
  if (!own || other === undefined) throw new Error('the fallback link needs a DE product and two approved programs');
  const otherProgram = await data.programs.byId(other, { merchant_id: 1, default_landing_url: 1 });
  const now = Date.now();
  await models.Product.updateOne(
    { _id: productId(own.gtin, other, 'DE') },
    {
      $set: {
        ...own,
        _id: productId(own.gtin, other, 'DE'),
        program_id: other,
        merchant_id: otherProgram!.merchant_id,
        source_url: new URL('/fallback-offer', otherProgram!.default_landing_url).toString(),
        availability: 'in_stock',
        last_seen_at: new Date(now),
        fresh_until: new Date(now + 86_400_000),
      },
    },
    { upsert: true },
  );
  const page = JSON.parse((await get(`${B}/products/lookup/?ids=${own._id}&country=DE`, apiHeaders)).text) as { products: Array<{ url: string }> };
  const code = new URL(page.products[0]!.url).pathname.split('/').pop()!;
  await models.Product.updateOne({ _id: own._id }, { $set: { availability: 'out_of_stock' } });
  await db.close();
  return { id: code, otherProductId: productId(own.gtin, other, 'DE') };
})();

/** 64 public addresses (German, US and French networks), each a visitor behind the proxy. */
const visitors = Array.from({ length: 64 }, (_, i) => (i % 3 === 0 ? `5.9.${i}.1` : i % 3 === 1 ? `8.8.${i}.8` : `2.2.${i}.2`));
const browser = { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0' };

interface Scenario {
  name: string;
  paths: string[];
  /** Every request a page no earlier request asked for (no cache can answer): see LoadSpec.distinct. */
  distinct?: LoadSpec['distinct'];
  headers: Record<string, string>;
  /** What answers it: the platform, or with --services the service that serves it. */
  url: string;
  /** CPU (µs) used so far by what answers it (with --services that service's process). */
  cpu(): number;
  target: number;
  bareLabel: string;
  bare(): Promise<{ url: string; close(): void }>;
}

/** This process's CPU so far (µs): the one-process platform's, its engine thread's included. */
function ownCpu(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

async function searchScenario(name: string, paths: string[], target: number, distinct?: LoadSpec['distinct']): Promise<Scenario> {
  // With distinct values, the page the bare server answers is one such page.
  const probe = distinct ? `${paths[0]}&${distinct.param}=${distinct.pool ? distinct.pool.slice(0, distinct.pick ?? 1).join(',') : '0.0001'}` : paths[0];
  const first = await get(probe, apiHeaders);
  if (first.status !== 200) throw new Error(`${probe} answered ${first.status}: ${first.text}`);
  for (const p of distinct ? [] : paths.slice(1)) if ((await get(p, apiHeaders)).status !== 200) throw new Error(`${p} failed`);
  const page = first.text;
  return {
    name,
    paths,
    distinct,
    headers: apiHeaders,
    url: apiUrl,
    cpu: services ? () => processCpuMicros(services.api.pid) : ownCpu,
    target,
    bareLabel: `bare Koa, same ${Buffer.byteLength(page)}-byte page`,
    bare: async () => {
      const app = new Koa();
      app.use((ctx) => {
        ctx.set('Cache-Control', 'private, no-store');
        ctx.type = 'application/json';
        ctx.body = page;
      });
      return listen(app.callback());
    },
  };
}

const redirectPath = `/c/${link.id}`;
const location = (await get(redirectPath, browser)).location!;
const scenarios: Scenario[] = [
  await searchScenario('search: market page', [`${B}/products/?country=DE`, `${B}/products/?country=GB&offset=40`], 15),
  await searchScenario(
    'search: title phrase',
    words.map((w) => `${B}/products/?q=${encodeURIComponent(w)}&country=DE`),
    5,
  ),
  await searchScenario('search: price range', [`${B}/products/?country=DE&min_price=20&max_price=80.5&currency=EUR`], 5),
  await searchScenario('search: group=1', [`${B}/products/?q=${encodeURIComponent(creds.fixtures.group_query)}&group=1`], 5),
  // Pages nobody asked for in the last 5 s (a comparison site walking a category, an agent trying
  // filters): each request a new min_price below every price, so the same rows, but no cache hit.
  await searchScenario('search: distinct pages', [`${B}/products/?country=DE&currency=EUR`], 10, { param: 'min_price' }),
  await searchScenario('lookup: distinct 10 GTINs', [`${B}/products/lookup/?country=DE`], 10, { param: 'gtins', pool: gtinPool, pick: 10 }),
  await searchScenario(
    'lookup: 10 GTINs',
    Array.from({ length: 8 }, (_, i) => `${B}/products/lookup/?gtins=${gtins.slice(i * 10, i * 10 + 10).join(',')}`),
    15,
  ),
  {
    name: 'redirect /c/{code}',
    paths: [redirectPath],
    headers: browser,
    url: trackerUrl,
    cpu: services ? () => processCpuMicros(services.tracker.pid) : ownCpu,
    // Issue 45: 40% of the bare 302 as `npm start` runs it (one process), 50% in the production shape.
    target: services ? 50 : 40,
    bareLabel: 'bare node:http 302',
    bare: () =>
      listen((_req, res) => {
        res.writeHead(302, { Location: location, 'Cache-Control': 'no-store' });
        res.end();
      }),
  },
];

const load = (url: string, s: Scenario, overallRate?: number, seconds = SECONDS): Promise<LoadResult> =>
  runLoad({
    url,
    requests: s.paths.map((path) => ({ path, headers: s.headers })),
    connections: CONNECTIONS,
    durationSeconds: seconds,
    overallRate,
    distinct: s.distinct,
  });
let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
/** The platform's CPU per request, and the engine's when it runs apart ("in it" otherwise). */
const cpuLine = (platformUs: number, engineUs?: number) =>
  `platform ${platformUs.toFixed(0)} us${engineUs === undefined ? ' (engine in it)' : `, engine ${engineUs.toFixed(0)} us`}`;
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : NaN);

console.log(
  `\n${PRODUCTS} products, ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds A B, ${platform.config.redisUrl ? 'Redis' : 'in-memory'} limiter, access cache ${platform.config.redisUrl || !engineUri ? 'on' : 'off (no Redis and the engine elsewhere: no shared versions)'}, engine ${engineUri ? 'in a child process' : 'in a thread of this process'}, ${services ? 'publisher-api, tracker and postback-worker each in its own process' : 'every app in this process'}, product page cache ${platform.config.productPageCacheEntries ? 'on' : 'off'}\n`,
);
const summary: string[] = [];
for (const s of scenarios.filter((x) => !values.only || values.only.split(',').some((o) => x.name.includes(o)))) {
  const bare = await s.bare();
  const ratios: number[] = [];
  const platformRps: number[] = [];
  /** CPU per request answered (µs) of the platform's process and, when apart, the engine's. */
  const platformCpu: number[] = [];
  const engineCpu: number[] = [];
  const bareCpu: number[] = [];
  const bareRps: number[] = [];
  // Unmeasured: what answers warms up first (a service just started has not compiled its hot path yet).
  await load(s.url, s, undefined, 2);
  for (let r = 0; r < ROUNDS; r++) {
    const cpu0 = s.cpu();
    const main0 = mainThreadCpuMicros();
    const engine0 = engine ? processCpuMicros(engine.pid) : 0;
    const worker0 = services ? processCpuMicros(services.worker.pid) : 0;
    const a = await load(s.url, s);
    platformCpu.push((s.cpu() - cpu0) / a.total);
    const workerUs = services ? (processCpuMicros(services.worker.pid) - worker0) / a.total : undefined;
    // One process: the services' thread is what bounds it (the engine's thread runs beside it).
    const mainUs = services ? undefined : (mainThreadCpuMicros() - main0) / a.total;
    if (engine) engineCpu.push((processCpuMicros(engine.pid) - engine0) / a.total);
    const bare0 = process.cpuUsage();
    const b = await load(bare.url, s);
    const bareUsed = process.cpuUsage(bare0);
    bareCpu.push((bareUsed.user + bareUsed.system) / b.total);
    if (a.non2xx && !s.name.startsWith('redirect')) console.log(`  WARNING: ${a.non2xx} non-2xx: ${JSON.stringify(a.statusCounts)}`);
    platformRps.push(a.requestsPerSecond);
    bareRps.push(b.requestsPerSecond);
    ratios.push((100 * a.requestsPerSecond) / b.requestsPerSecond);
    console.log(
      `  ${s.name} round ${r + 1}: platform ${a.requestsPerSecond.toFixed(0)} req/s (p99 ${a.latencyP99Ms} ms, CPU ${cpuLine(platformCpu.at(-1)!, engineCpu.at(-1))}${mainUs === undefined ? '' : `, services' thread ${mainUs.toFixed(0)} us`}${workerUs === undefined ? '' : `, worker ${workerUs.toFixed(0)} us`}), ${s.bareLabel} ${b.requestsPerSecond.toFixed(0)} req/s (CPU ${bareCpu.at(-1)!.toFixed(0)} us)`,
    );
  }
  // The fixed rate, below what either saturates: CPU per request without the contention of a
  // saturated machine (the steadier ratio on shared cores), then the bare server at the same rate.
  const fixedCpu0 = s.cpu();
  const fixedEngine0 = engine ? processCpuMicros(engine.pid) : 0;
  const fixedWorker0 = services ? processCpuMicros(services.worker.pid) : 0;
  const fixed = await load(s.url, s, RATE);
  const fixedCpu = (s.cpu() - fixedCpu0) / fixed.total;
  const fixedEngine = engine ? (processCpuMicros(engine.pid) - fixedEngine0) / fixed.total : undefined;
  const fixedWorker = services ? (processCpuMicros(services.worker.pid) - fixedWorker0) / fixed.total : undefined;
  const bareFixed0 = process.cpuUsage();
  const bareFixed = await load(bare.url, s, RATE);
  const bareFixedUsed = process.cpuUsage(bareFixed0);
  const bareFixedCpu = (bareFixedUsed.user + bareFixedUsed.system) / bareFixed.total;
  bare.close();
  console.log(formatResult(`  ${s.name} at ${RATE} req/s`, fixed));
  const fixedLine = `CPU per request at ${RATE} req/s: ${cpuLine(fixedCpu, fixedEngine)}${fixedWorker === undefined ? '' : `, worker ${fixedWorker.toFixed(0)} us`}; bare ${bareFixedCpu.toFixed(0)} us (${((100 * bareFixedCpu) / fixedCpu).toFixed(1)}% of the ${services ? "platform's" : "process's"})`;
  console.log(`  ${fixedLine}`);
  let cpu = '';
  if (values.profile && !services) {
    const raw = values['profile-dir'] ? `${values['profile-dir']}/${s.name.replace(/[^a-z0-9]+/gi, '-')}.cpuprofile` : undefined;
    const { result, byPackage, totalMs, byFunction } = await profileWhile(() => load(s.url, s), raw);
    cpu = `; profiled CPU ${((1000 * totalMs) / result.total).toFixed(0)} us/request: ${formatBreakdown(byPackage, totalMs)}`;
    console.log(`  profile${cpu}`);
    if (Number(values.top)) console.log(formatTop(byFunction, totalMs, Number(values.top)));
  }
  const ratio = median(ratios);
  summary.push(
    `${s.name.padEnd(22)} ${median(platformRps).toFixed(0).padStart(6)} vs ${median(bareRps).toFixed(0).padStart(6)} req/s  ${ratio.toFixed(1).padStart(5)}% (target >= ${s.target}%${ratio >= s.target ? ', met' : ', NOT MET'})  p50/p99 at ${RATE} req/s (${fixed.requestsPerSecond.toFixed(0)} answered/s) ${fixed.latencyP50Ms}/${fixed.latencyP99Ms} ms; CPU per request ${cpuLine(median(platformCpu), engine ? median(engineCpu) : undefined)}, bare ${median(bareCpu).toFixed(0)} us; ${fixedLine}${cpu}`,
  );
}

// Smart links: the redirect of a link with 5 routes against a plain one, A B A B on the platform.
if (!values.only || values.only.split(',').some((o) => 'redirect routes'.includes(o))) {
  const cpu = services ? () => processCpuMicros(services.tracker.pid) : ownCpu;
  const visits = (code: string) =>
    runLoad({
      url: trackerUrl,
      requests: visitors.map((ip) => ({ path: `/c/${code}`, headers: { ...browser, 'X-Forwarded-For': ip } })),
      connections: CONNECTIONS,
      durationSeconds: SECONDS,
    });
  await visits(link.id);
  await visits(routed.id);
  await visits(fallbackLink.id);
  const ratios: number[] = [];
  const fallbackRatios: number[] = [];
  const plainRps: number[] = [];
  const routedRps: number[] = [];
  const fallbackRps: number[] = [];
  const plainCpu: number[] = [];
  const routedCpu: number[] = [];
  const fallbackCpu: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const c0 = cpu();
    const a = await visits(link.id);
    plainCpu.push((cpu() - c0) / a.total);
    const c1 = cpu();
    const b = await visits(routed.id);
    routedCpu.push((cpu() - c1) / b.total);
    const c2 = cpu();
    const c = await visits(fallbackLink.id);
    fallbackCpu.push((cpu() - c2) / c.total);
    plainRps.push(a.requestsPerSecond);
    routedRps.push(b.requestsPerSecond);
    fallbackRps.push(c.requestsPerSecond);
    ratios.push((100 * b.requestsPerSecond) / a.requestsPerSecond);
    fallbackRatios.push((100 * c.requestsPerSecond) / a.requestsPerSecond);
    console.log(
      `  redirect routes round ${r + 1}: plain link ${a.requestsPerSecond.toFixed(0)} req/s (p99 ${a.latencyP99Ms} ms, CPU ${plainCpu.at(-1)!.toFixed(0)} us), link with 5 routes ${b.requestsPerSecond.toFixed(0)} req/s (p99 ${b.latencyP99Ms} ms, CPU ${routedCpu.at(-1)!.toFixed(0)} us), product link in fallback ${c.requestsPerSecond.toFixed(0)} req/s (p99 ${c.latencyP99Ms} ms, CPU ${fallbackCpu.at(-1)!.toFixed(0)} us)`,
    );
  }
  // What choosing the route costs alone, in this process (no HTTP: steadier than the A B on a
  // loaded machine): the visitor's country (memoised, and a first sight read from the database),
  // the device and the five rules, per click.
  const lookup = new CountryLookup();
  const rules = compileRoutes((routed.routes ?? []) as Parameters<typeof compileRoutes>[0]);
  const ua = browser['User-Agent'];
  const N = 200_000;
  let matched = 0;
  const t0 = process.cpuUsage();
  for (let i = 0; i < N; i++) matched += matchRoute(rules, lookup.country(visitors[i & 63]!), deviceOf(ua)) + 1;
  const t1 = process.cpuUsage(t0);
  const firstSight = new CountryLookup();
  const M = 20_000;
  const t2 = process.cpuUsage();
  for (let i = 0; i < M; i++) firstSight.country(`${1 + (i % 220)}.${(i >> 8) & 255}.${i & 255}.9`);
  const t3 = process.cpuUsage(t2);
  if (matched !== 0) throw new Error('a bench visitor matched a rule');
  const routeNs = ((t1.user + t1.system) * 1000) / N;
  const firstNs = ((t3.user + t3.system) * 1000) / M;
  const ratio = median(ratios);
  summary.push(
    `choosing a route alone: ${(routeNs / 1000).toFixed(2)} us per click (country memoised, device, 5 rules); a country read from the database at first sight ${(firstNs / 1000).toFixed(2)} us`,
  );
  summary.push(
    `redirect, 5 routes vs plain link: ${median(routedRps).toFixed(0)} vs ${median(plainRps).toFixed(0)} req/s  ${ratio.toFixed(1)}% (target >= 90%${ratio >= 90 ? ', met' : ', NOT MET'}); CPU per request ${median(routedCpu).toFixed(0)} vs ${median(plainCpu).toFixed(0)} us`,
  );
  const fallbackRatio = median(fallbackRatios);
  summary.push(
    `redirect, product link in GTIN fallback vs plain link: ${median(fallbackRps).toFixed(0)} vs ${median(plainRps).toFixed(0)} req/s  ${fallbackRatio.toFixed(1)}% (target >= 90%${fallbackRatio >= 90 ? ', met' : ', NOT MET'}); CPU per request ${median(fallbackCpu).toFixed(0)} vs ${median(plainCpu).toFixed(0)} us`,
  );
}

// The floor under a distinct-page search: the same catalog query (country DE, EUR, a new
// min_price each time, 21 rows) through mongoose and the driver, with no HTTP, no auth, no limiter,
// no links and no JSON; 16 at a time, as the 16 connections ask. CPU per query of this process
// (the platform's, idle meanwhile) and of the engine when apart.
if (!values.only || values.only.split(',').some((o) => 'search: distinct pages'.includes(o))) {
  const db = await connectDatabase(platform.mongoUri);
  const { models, data } = openPlatformData(db.connection);
  const scope = { markets: ['DE'], programIds: await data.programs.activeApprovedIds(creds.publishers[0].account_id) };
  let n = 0;
  const query = () => searchProducts(models, scope, { countries: ['DE'], currency: 'EUR', minPrice: `0.0000${++n}`, group: false, limit: 20, offset: 0 });
  const worker = async (until: number) => {
    while (performance.now() < until) if ((await query()).rows.length !== 20) throw new Error('floor query: expected a full page');
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, () => worker(performance.now() + 1_000)));
  n = 0;
  const cpu0 = process.cpuUsage();
  const engine0 = engine ? processCpuMicros(engine.pid) : 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, () => worker(start + SECONDS * 1_000)));
  const used = process.cpuUsage(cpu0);
  const perQuery = (used.user + used.system) / n;
  summary.push(
    `floor: the same catalog query through mongoose alone, ${CONNECTIONS} at a time: ${((1000 * n) / (performance.now() - start)).toFixed(0)} queries/s; CPU per query ${cpuLine(perQuery, engine ? (processCpuMicros(engine.pid) - engine0) / n : undefined)}`,
  );
  await db.close();
}

// Every redirect answered has its click stored (the buffer is flushed on stop).
await new Promise((r) => setTimeout(r, 500));
const metrics = await (await fetch(`${trackerUrl}/metrics`, { headers: { Authorization: `Bearer ${env.METRICS_TOKEN}` } })).text();
const redirects = metrics
  .split('\n')
  .filter((l) => l.startsWith('http_requests_total{') && l.includes('service="tracker"') && l.includes('status="302"'))
  .reduce((a, l) => a + Number(l.split(' ').pop()), 0);
clearInterval(sampler);
(globalThis as { gc?: () => void }).gc?.();
const rss = process.memoryUsage().rss / 2 ** 20;
// The click buffer is written every flush interval: wait for the last one, then count.
await new Promise((r) => setTimeout(r, platform.config.clickFlushIntervalMs * 2 + 500));
if (services) for (const service of Object.values(services)) await service.stop(); // the tracker flushes its buffer as it stops
const client = await MongoClient.connect(platform.mongoUri);
// The fallback's clicks are stored on the link that answered: the product link itself (landing page) or the other program's.
const otherLink = await client
  .db()
  .collection<{ _id: string }>('links')
  .findOne({ 'product.id': fallbackLink.otherProductId }, { projection: { _id: 1 } });
let stored = 0;
for (const id of [link.id, routed.id, fallbackLink.id, ...(otherLink ? [otherLink._id] : [])]) stored += await storedClicksOf(client.db(), id);
await client.close();
if (!services) await platform.stop();

console.log('\nmedian of the rounds:');
for (const line of summary) console.log(line);
console.log(`clicks stored ${stored} of ${redirects} redirects answered${stored === redirects ? '' : '  <-- MISMATCH'}`);
const what = services
  ? 'this process (seeding, bare servers and the floor only: the services ran apart)'
  : engineUri
    ? `platform alone (engine with ${PRODUCTS} products in a child process)`
    : `one process: engine with ${PRODUCTS} products (its own thread) + platform`;
console.log(`RSS, ${what}: peak ${(peakRss / 2 ** 20).toFixed(0)} MiB during the runs, ${rss.toFixed(0)} MiB after them (after a GC)`);
process.exit(stored === redirects ? 0 : 1);
