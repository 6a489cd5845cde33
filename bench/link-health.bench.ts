/**
 * The link health pass at scale (issue 66), the engine in its own process (as MongoDB would be):
 * N links (default 1,000,000) of P publishers (default 1,000) over 20 programs (each publisher
 * approved for 16 of them), a third of them product links over 20,000 products (a tenth out of
 * stock). Then, as the worker's `links:health` job runs it (`checkLinkHealth` with the stats
 * read model's clicks counter):
 *   1. the first pass after two programs pause: every link judged, the changed ones written;
 *   2. the same pass again: nothing changed, nothing written; the clicks lost of every link not ok
 *      recounted (the stats model holds no clicks here: the reads, not the sums, are measured).
 * Time, links/s, this process's heap peak (sampled every 20 ms) and the engine's RSS after each.
 * `npm run bench:link-health [-- --links 1000000 --publishers 1000]`
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Types } from 'mongoose';
import { clicksFromStats } from '@cw/app-postback-worker';
import { loadConfig } from '@cw/config';
import { checkLinkHealth } from '@cw/links';
import { createLogger } from '@cw/logging';
import { createHttpMetrics } from '@cw/metrics';
import { openServiceDeps } from '@cw/runtime';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { processCpuMicros, startEngineProcess } from './lib/engine-process';

const OPTIONS = { links: { type: 'string', default: '1000000' }, publishers: { type: 'string', default: '1000' } } as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:link-health --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const N = Number(values.links);
const P = Number(values.publishers);
const PROGRAMS = 20;
const PRODUCTS = 20_000;

const engine = await startEngineProcess('bench_link_health');
const config = loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'silent' }, { port: 0 });
const deps = await openServiceDeps(config, engine.uri, 'bench', {
  logger: createLogger({ level: 'silent' }),
  metrics: createHttpMetrics({ defaultMetrics: false }),
  indexes: 'migrate',
});
const MiB = (b: number) => `${(b / 1048576).toFixed(0)} MiB`;
const engineRss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${engine.pid}/status`, 'utf8'))![1]) * 1024;
const pub = (i: number) => `pub_lh_${String(i).padStart(6, '0')}`;

try {
  const t0 = performance.now();
  const created = new Date('2026-06-01T00:00:00Z');
  await deps.data.programs.create(
    Array.from({ length: PROGRAMS }, (_, i) => ({
      _id: 9000 + i,
      name: `Program ${i}`,
      merchant_id: 8000 + i,
      countries: ['DE'],
      default_landing_url: `https://shop${i}.example/`,
    })),
  );
  const memberships = [];
  for (let p = 0; p < P; p++)
    for (let k = 0; k < PROGRAMS; k++) if ((p + k) % 5 !== 0) memberships.push({ publisher_id: pub(p), program_id: 9000 + k, status: 'approved' as const });
  for (let i = 0; i < memberships.length; i += 5000) await deps.data.programs.saveAssignments(memberships.slice(i, i + 5000), created);
  const now = new Date();
  const products = Array.from({ length: PRODUCTS }, (_, i) => ({
    _id: `prd_lh_${i}`,
    gtin: '4006381333931',
    gtin14: '04006381333931',
    title: `Product ${i}`,
    title_lc: `product ${i}`,
    price: Types.Decimal128.fromString('19.99'),
    currency: 'EUR',
    source_url: `https://shop${i % PROGRAMS}.example/p/${i}`,
    merchant_id: 8000 + (i % PROGRAMS),
    program_id: 9000 + (i % PROGRAMS),
    country: 'DE',
    availability: i % 10 === 0 ? 'out_of_stock' : 'in_stock',
    last_seen_at: now,
    fresh_until: new Date(now.getTime() + 7 * 86_400_000),
    removed: false,
    created_at: now,
    updated_at: now,
  }));
  for (let i = 0; i < PRODUCTS; i += 5000) await deps.data.catalog.insertRows(products.slice(i, i + 5000) as never);
  for (let from = 0; from < N; from += 10_000) {
    const docs = Array.from({ length: Math.min(10_000, N - from) }, (_, k) => {
      const i = from + k;
      const product = i % 3 === 0 ? i % PRODUCTS : -1;
      const program = product >= 0 ? product % PROGRAMS : i % PROGRAMS;
      return {
        _id: `lh${String(i).padStart(12, '0')}`,
        publisher_id: pub(i % P),
        program_id: 9000 + program,
        campaign_id: 8000 + program,
        landing_url: product >= 0 ? `https://shop${program}.example/p/${product}` : `https://shop${program}.example/`,
        subid: '',
        source: product >= 0 ? 'product' : 'api',
        ...(product >= 0 ? { product: { id: `prd_lh_${product}`, gtin: '4006381333931', market: 'DE' } } : {}),
        listed: product < 0,
        created_at: created,
        updated_at: created,
      };
    });
    await deps.data.links.insertNew(docs as never);
  }
  console.log(
    `seeded ${N.toLocaleString('en-US')} links of ${P.toLocaleString('en-US')} publishers, ${PRODUCTS.toLocaleString('en-US')} products in ${((performance.now() - t0) / 1000).toFixed(0)} s (engine RSS ${MiB(engineRss())})`,
  );

  await deps.data.programs.setStatus(9003, 'paused');
  await deps.data.programs.setStatus(9007, 'closed');
  const clicksSince = clicksFromStats(deps);
  for (const label of ['1. first pass (two programs paused or closed since the links were made)', '2. the same pass again (nothing changed)']) {
    global.gc?.();
    const heap0 = process.memoryUsage().heapUsed;
    let peak = heap0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 20);
    const cpu0 = processCpuMicros(engine.pid);
    const t = performance.now();
    const r = await checkLinkHealth(deps, { clicksSince });
    const ms = performance.now() - t;
    clearInterval(sampler);
    console.log(
      `${label}: ${r.links.toLocaleString('en-US')} links, ${r.changed.toLocaleString('en-US')} changed, ${r.unhealthy.toLocaleString('en-US')} not ok in ${(ms / 1000).toFixed(1)} s ` +
        `(${Math.round(r.links / (ms / 1000)).toLocaleString('en-US')} links/s); heap ${MiB(heap0)} before, peak ${MiB(peak)}; engine RSS ${MiB(engineRss())}, engine CPU ${((processCpuMicros(engine.pid) - cpu0) / 1e6).toFixed(1)} s`,
    );
  }
} finally {
  await deps.close();
  await engine.stop();
}
