/**
 * The stats roll-ups' read alone (issue 67, decision record 0065): one account's built day and
 * month documents written directly (what `stats:rebuild` would leave for an account of
 * --links links and --subids sub-IDs over 400 days, --day-keys keys a day), the engine in its own
 * process; then `readFacts` by link, by sub-ID and by program (the three reads of `/overview/top`)
 * for 30, 90 and 366 days in UTC and Asia/Kathmandu (its edge days read from day cells), in this
 * process without HTTP: the first read, p50/p95 of the next ones and this process's CPU per read,
 * and the heap the readers' cache of decoded documents holds (`--cache-keys 0`: off). `--profile
 * DIR`: a CPU profile of the 366-day reads (node:inspector), summarised by package.
 *
 *   node --expose-gc --import tsx bench/stats-rollups-read.bench.ts [--links 5000 --subids 1000 --day-keys 700 --requests 20 --cache-keys N --profile DIR]
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { Types } from 'mongoose';
import { connectDatabase, migrateIndexes } from '@cw/db';
import { conversionsDomain } from '@cw/conversions';
import { eventsFeedDomain } from '@cw/events-feed';
import type { ClickRow } from '@cw/links';
import { readFacts, ROLLUP_CACHE, rollupId, rollupKey, statsDomain, storeCountedClicks, zoneCalendar, type StatsDeps } from '@cw/stats';
import { startEngineProcess } from './lib/engine-process';
import { formatBreakdown, formatTop, profileWhile } from './lib/cpu-profile';

const { values } = parseArgs({
  options: {
    links: { type: 'string', default: '5000' },
    subids: { type: 'string', default: '1000' },
    'day-keys': { type: 'string', default: '700' },
    requests: { type: 'string', default: '20' },
    profile: { type: 'string' },
    'cache-keys': { type: 'string' },
  },
});
const LINKS = Number(values.links);
const SUBIDS = Number(values.subids);
const DAY_KEYS = Number(values['day-keys']);
const REQUESTS = Number(values.requests);
// The readers' cache of decoded documents (0: off, every read decodes every document).
if (values['cache-keys'] !== undefined) ROLLUP_CACHE.keys = Number(values['cache-keys']);
const DAY = 86_400_000;
const PUB = 'pub_rollread';
const END = Date.parse('2026-12-07T00:00:00Z');
const START = END - 400 * DAY;

const engine = await startEngineProcess('bench_rollread');
const db = await connectDatabase(`${engine.uri}?socketTimeoutMS=0`, { serverSelectionTimeoutMS: 600_000 });
const conversions = conversionsDomain.open(db.connection);
const stats = statsDomain.open(db.connection);
const eventsFeed = eventsFeedDomain.open(db.connection);
for (const m of [conversions.models, stats.models, eventsFeed.models]) await migrateIndexes(m);
const deps = { data: { conversions: conversions.handle, stats: stats.handle, eventsFeed: eventsFeed.handle } } as unknown as Pick<StatsDeps, 'data'>;

// Keys of each view: a link belongs to a program and a sub-ID.
const PROGRAMS = [1001, 1002, 1003, 1004, 1005];
const linkDims = (i: number) => ({ program_id: PROGRAMS[i % 5]!, campaign_id: 500 + (i % 5), subid: `s${i % SUBIDS}`, link_id: `lnk_${i}` });
const keysOf = (v: 's' | 'p' | 'l', n: number, seed: number): string[] => {
  const out = new Set<string>();
  const count = v === 'p' ? 5 : Math.min(n, v === 's' ? SUBIDS : LINKS);
  for (let j = 0; out.size < count; j++) {
    const i = (seed * 7919 + j * 104_729) % (v === 's' ? SUBIDS : LINKS);
    const d = linkDims(v === 'p' ? j : i);
    out.add(
      v === 'l'
        ? rollupKey(d)
        : v === 's'
          ? rollupKey({ program_id: null, campaign_id: null, subid: `s${i}`, link_id: null })
          : rollupKey({ ...d, subid: null, link_id: null }),
    );
  }
  return [...out];
};
const dec = (units: number, scale: number) => Types.Decimal128.fromString((units / 10 ** scale).toFixed(scale));
const entry = (k: number, grain: 'd' | 'm') => {
  const f = grain === 'm' ? 30 : 1;
  return {
    c: f * (3 + (k % 7)),
    s: {
      EUR_approved_v1_0: { n: f, a: dec(f * (1000 + k), 2), m: dec(f * (100 + k), 2) },
      EUR_pending_v1_0: { n: f, a: dec(f * (900 + k), 2), m: dec(f * (90 + k), 2) },
      ...(k % 4 === 0 ? { GBP_declined_v1_0: { n: 1, a: dec(1234 + k, 2), m: dec(123 + k, 2) } } : {}),
    },
  };
};

const seeded = performance.now();
let docs = 0;
for (const v of ['s', 'p', 'l'] as const) {
  const batch: Array<Record<string, unknown>> = [];
  const flush = async () => {
    if (batch.length) await stats.models.StatRollup.collection.insertMany(batch.splice(0) as never[]);
  };
  for (let t = START; t < END; t += DAY) {
    const k: Record<string, unknown> = {};
    keysOf(v, DAY_KEYS, t / DAY).forEach((key, i) => (k[key] = entry(i, 'd')));
    batch.push({ _id: rollupId(PUB, v, 'd', t), publisher_id: PUB, v, g: 'd', t: new Date(t), ok: true, over: false, nb: 0, w: 1, b: 'seed', k });
    const d = new Date(t);
    if (d.getUTCDate() === 1) {
      const mk: Record<string, unknown> = {};
      keysOf(v, Infinity, 0).forEach((key, i) => (mk[key] = entry(i, 'm')));
      batch.push({ _id: rollupId(PUB, v, 'm', t), publisher_id: PUB, v, g: 'm', t: new Date(t), ok: true, over: false, nb: 0, w: 1, b: 'seed', k: mk });
    }
    if (batch.length >= 20) await flush();
    docs++;
  }
  await flush();
}
// The day cells of the Kathmandu ranges' edge days (quarter precision): written through the writer.
for (const day of [END - 366 * DAY, END - 90 * DAY, END - 30 * DAY, END - DAY]) {
  const clicks = Array.from({ length: DAY_KEYS }, (_, i) => ({
    _id: `clk_${day}_${i}`,
    publisher_id: PUB,
    ...linkDims((i * 104_729) % LINKS),
    created_at: new Date(day + (i % 96) * 900_000),
    is_bot: false,
  })) as unknown as ClickRow[];
  // Counted as the tracker's batches are (the rows themselves are not needed here: nothing stored).
  await storeCountedClicks(
    deps,
    clicks,
    async (rows) => new Set(rows.map((_, i) => i)),
    (rows) => rows.map((r) => r._id),
  );
}
console.log(
  `seeded ${docs.toLocaleString('en-US')} day documents per view (+ months), ${LINKS} links, ${SUBIDS} sub-IDs, ${DAY_KEYS} keys a day, in ${((performance.now() - seeded) / 1000).toFixed(1)} s`,
);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const heap0 = process.memoryUsage().heapUsed;
console.log(`reader cache: ${ROLLUP_CACHE.keys ? `${ROLLUP_CACHE.keys.toLocaleString('en-US')} keys` : 'off'}`);
console.log('| read | first | p50 | p95 | CPU a read | facts |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const days of [30, 90, 366])
  for (const zone of ['UTC', 'Asia/Kathmandu']) {
    const calendar = zoneCalendar(zone);
    const to = calendar.dayStart(new Date(END).toISOString().slice(0, 10));
    const from = calendar.dayStart(new Date(END - days * DAY).toISOString().slice(0, 10));
    for (const view of [{ byLink: true }, { bySubid: true }, { byProgram: true }] as const) {
      const times: number[] = [];
      let facts = 0;
      const first = performance.now();
      await readFacts(deps, { publisherId: PUB, from, to, ...view }); // the first read (a cold cache for its documents)
      const firstMs = performance.now() - first;
      const cpu0 = process.cpuUsage();
      for (let r = 0; r < REQUESTS; r++) {
        const t0 = performance.now();
        facts = (await readFacts(deps, { publisherId: PUB, from, to, ...view })).length;
        times.push(performance.now() - t0);
      }
      const cpu = process.cpuUsage(cpu0);
      console.log(
        `| ${Object.keys(view)[0]} ${days} d ${zone} | ${firstMs.toFixed(0)} ms | ${pct(times, 50).toFixed(0)} ms | ${pct(times, 95).toFixed(0)} ms | ${((cpu.user + cpu.system) / 1000 / REQUESTS).toFixed(0)} ms | ${facts.toLocaleString('en-US')} |`,
      );
    }
  }
gc?.();
console.log(`heap held after the reads (the reader cache): +${((process.memoryUsage().heapUsed - heap0) / 1048576).toFixed(0)} MiB`);
if (values.profile) {
  // The 366-day reads again, profiled: where this process's CPU goes.
  const { byPackage, byFunction, totalMs } = await profileWhile(async () => {
    for (const zone of ['UTC', 'Asia/Kathmandu']) {
      const calendar = zoneCalendar(zone);
      const to = calendar.dayStart(new Date(END).toISOString().slice(0, 10));
      const from = calendar.dayStart(new Date(END - 366 * DAY).toISOString().slice(0, 10));
      for (let r = 0; r < 5; r++)
        for (const view of [{ byLink: true }, { bySubid: true }, { byProgram: true }]) await readFacts(deps, { publisherId: PUB, from, to, ...view });
    }
  }, `${values.profile}/rollups-read.cpuprofile`);
  console.log(
    `profile (366 d reads, this process, ${totalMs.toFixed(0)} ms busy): ${formatBreakdown(byPackage, totalMs)}\n${formatTop(byFunction, totalMs, 25)}`,
  );
}
await db.close();
await engine.stop();
