/**
 * Product feeds at scale: a catalog of N products (default 100,000) in DE over 12 programs
 * approved for one account, so its feed reaches the 5,000-product country cap. Measures the XML
 * feed's time to first byte, total time and throughput, served from catalog cursors (no prepared
 * files) and from the prepared GridFS files, and the platform process's RSS (sampled every 20 ms
 * against before the feeds). The engine runs in its own process, so the RSS is the platform's.
 * `npm run bench:feeds [-- --products 1000000]`.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { Decimal128 } from 'bson';
import { connectDatabase } from '@cw/db';
import { openPlatformData } from '@cw/runtime';
import { regenerateMarket } from '@cw/feeds';
import { startPlatform } from '@cw-tools/dev-stack';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { startEngineProcess } from './lib/engine-process';

const OPTIONS = { products: { type: 'string', default: '100000' }, rounds: { type: 'string', default: '3' } } as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:feeds --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const N = Number(values.products);
const PROGRAMS = Array.from({ length: 12 }, (_, i) => 2001 + i);

const engine = await startEngineProcess('bench_feeds');
const uri = engine.uri;
const platform = await startPlatform({
  env: { PORT: '0', LOG_LEVEL: 'warn', MONGODB_URI: uri, RATELIMIT_FEEDS_PER_MIN: '10000000', RATELIMIT_IP_PER_MIN: '10000000' },
  seedProducts: 500,
  credentialsPath: null,
});
const key = platform.credentials!.publishers[0].keys.live;
const publisherId = platform.credentials!.publishers[0].account_id;

// The bench catalog, written over the driver in batches (what an import leaves behind).
const db = await connectDatabase(uri);
const { models, data } = openPlatformData(db.connection);
const t0 = performance.now();
const now = new Date();
await data.programs.create(
  PROGRAMS.map((id, i) => ({
    _id: id,
    name: `Bench ${id}`,
    merchant_id: 501 + (i % 11),
    countries: ['DE'],
    currency: 'EUR',
    default_landing_url: 'https://www.bench.example/',
    allowed_domains: ['bench.example'],
    status: 'active' as const,
  })),
);
await data.programs.saveAssignments(PROGRAMS.map((id) => ({ publisher_id: publisherId, program_id: id, status: 'approved' as const })));
await models.Membership.updateMany({ publisher_id: publisherId, program_id: { $nin: PROGRAMS } }, { $set: { status: 'rejected' } });
for (let i = 0; i < N; i += 10_000) {
  const rows = [];
  for (let j = i; j < Math.min(N, i + 10_000); j++) {
    const program = PROGRAMS[j % PROGRAMS.length];
    const gtin = `40${String(j).padStart(11, '0')}`;
    rows.push({
      _id: `b${String(j).padStart(8, '0')}`,
      gtin,
      gtin14: `0${gtin}`,
      title: `Bench product ${j} with a realistic title length`,
      title_lc: `bench product ${j} with a realistic title length`,
      description: 'A bench product description of a typical length for a shopping feed, with a few words.',
      brand: 'Bench',
      brand_lc: 'bench',
      category: 'Sports > Running',
      category_lc: 'sports > running',
      price: Decimal128.fromString(`${(j % 500) + 9}.99`),
      currency: 'EUR',
      image: `https://img.bench.example/${j}.jpg`,
      source_url: `https://www.bench.example/p/${j}`,
      merchant_id: 501 + (PROGRAMS.indexOf(program) % 11),
      program_id: program,
      country: 'DE',
      availability: 'in_stock',
      condition: 'new',
      last_seen_at: now,
      fresh_until: new Date(now.getTime() + 86_400_000),
      removed: false,
      created_at: now,
      updated_at: now,
    });
  }
  await models.Product.collection.insertMany(rows as never[], { ordered: false }); // string ids, as the catalog's
}
console.log(`seeded ${N.toLocaleString('en-US')} products over ${PROGRAMS.length} programs in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const mib = (b: number) => `${(b / 1048576).toFixed(0)} MiB`;

/** One XML feed over node:http (chunks as they arrive: the first one is the time to first byte). */
async function fetchFeed(): Promise<{ ttfb: number; total: number; bytes: number; items: number }> {
  const t = performance.now();
  const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http
      .get(`${platform.url}/api/v1/feeds/products/?country=DE&format=xml`, { headers: { 'X-API-Key': key, 'Accept-Encoding': 'identity' } }, resolve)
      .on('error', reject),
  );
  if (res.statusCode !== 200) throw new Error(`feed: ${res.statusCode}`);
  res.setEncoding('utf8');
  let ttfb = 0;
  let bytes = 0;
  let items = 0;
  let tail = '';
  for await (const chunk of res as AsyncIterable<string>) {
    if (!ttfb) ttfb = performance.now() - t;
    bytes += Buffer.byteLength(chunk);
    const text = tail + chunk;
    items += text.split('</item>').length - 1;
    tail = text.slice(-6);
  }
  return { ttfb, total: performance.now() - t, bytes, items };
}

async function measure(label: string): Promise<void> {
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const runs: Array<Awaited<ReturnType<typeof fetchFeed>>> = [];
  for (let r = 0; r < Number(values.rounds); r++) runs.push(await fetchFeed());
  clearInterval(sampler);
  const med = (f: (x: (typeof runs)[number]) => number) => runs.map(f).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  const total = med((x) => x.total);
  console.log(
    `${label}: ${runs[0].items.toLocaleString('en-US')} items, ${mib(runs[0].bytes)}; TTFB ${med((x) => x.ttfb).toFixed(0)} ms, total ${total.toFixed(0)} ms = ${Math.round(runs[0].items / (total / 1000)).toLocaleString('en-US')} items/s (median of ${runs.length}); RSS ${mib(rss0)} before, peak ${mib(peak)} (+${mib(peak - rss0)})`,
  );
}

await fetchFeed(); // creates the account's 5,000 tracked links once (later feeds only compute codes)
await measure('XML feed from catalog cursors');
const tg = performance.now();
const gen = await regenerateMarket(data, 'DE');
console.log(`regenerated DE: ${gen.files} files, ${gen.products.toLocaleString('en-US')} products in ${((performance.now() - tg) / 1000).toFixed(1)} s`);
await measure('XML feed from prepared files');
console.log(
  `platform process RSS at the end: ${mib(process.memoryUsage().rss)} (catalog of ${N.toLocaleString('en-US')} products lives in the engine process)`,
);

await db.close();
await platform.stop();
await engine.stop();
