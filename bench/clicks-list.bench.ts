/**
 * The clicks list and the clicks' memory at 3,000,000 clicks of one account (issue 45, clicks in
 * buckets: docs/decisions/0020-clicks-in-buckets.md).
 *
 * Two accounts on one engine, a small one (default 10,000 clicks) and a large one (3,000,000),
 * each over 200 links, 40 sub-IDs and ~90 days of created_at. Clicks are made by `clickRecord` as
 * the redirect makes them (signed ids, hashed addresses, user agents of a few browsers and bots,
 * referrers) and stored in tracker-sized batches of 1,000 by the links data handle's bucket insert
 * (`insertClickRows`, what the tracker's `storeCountedClicks` calls; the stats read model is not
 * counted: it would take most of the seeding time and the list does not read it). The account's
 * clicks come `--per-window` at a time in busy 10-second windows spread evenly over the days (the
 * default, 1,000, is a full batch in one window: full buckets). A rare sub-ID has `--rare` clicks
 * spread evenly over the whole history (each in a bucket of its own once the history has more
 * buckets than it has clicks).
 *
 * Then publisher-api, started from its main in its own process as it is deployed, answers
 * `GET /api/v1/publisher/clicks/` with each account's API key, sequentially: the first page, the
 * second by cursor, a common sub-ID (1/40 of the clicks) first and second page, the rare sub-ID's
 * first page; p50/p99, CPU per request of the API and the engine, the engine's `find`/`getMore`
 * per request, response bytes.
 *
 * Memory: the engine runs in its own process (as `bench/lib/engine-process.ts` starts it) with
 * `--expose-gc` and a SIGUSR2 hook that collects garbage and prints `process.memoryUsage()`: the
 * engine itself answers neither a GC command nor `collStats`/`dbStats`. Per click of the large
 * account: RSS growth before and after a GC, heap + array buffers after a GC; the buckets' BSON
 * (read back) and index entries; and `--rows` of the same clicks stored as one document per click
 * (the layout before the buckets) in the same engine, after the lists were measured.
 *
 * `npm run bench:clicks-list [-- --small 10000 --large 3000000 --requests 50 --per-window 1000 --rare 100 --rows 100000 --compact]`
 * (`--compact`: the accounts' small buckets merged by the worker's compaction before the lists)
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { calculateObjectSize } from 'bson';
import { createPublishers } from '@cw/account';
import { issueCredential } from '@cw/auth';
import { keyRing } from '@cw/config';
import { connectDatabase, migrateIndexes } from '@cw/db';
import { ClickIds, clickRecord, linkCode, type ClickBucketDoc, type ClickRow } from '@cw/links';
import { openPlatformData } from '@cw/runtime';
import { compactClicks } from '@cw/stats';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { processCpuMicros } from './lib/engine-process';
import { MALLOC_ENV } from './lib/malloc-env';
import { DEMO_PROGRAMS } from './lib/demo-programs';
import { startServiceProcess } from './lib/service-process';

const OPTIONS = {
  small: { type: 'string', default: '10000' },
  large: { type: 'string', default: '3000000' },
  requests: { type: 'string', default: '50' },
  links: { type: 'string', default: '200' },
  subids: { type: 'string', default: '40' },
  days: { type: 'string', default: '90' },
  /** The account's clicks per busy 10-second window (a bucket's fill when a batch holds them all). */
  'per-window': { type: 'string', default: '1000' },
  /** Clicks of the rare sub-ID, spread evenly over the whole history. */
  rare: { type: 'string', default: '100' },
  /** Clicks stored again as rows (one document per click) for the memory comparison; 0: none. */
  rows: { type: 'string', default: '100000' },
  /** Compact both accounts' clicks (merge small buckets, as the worker does) before the lists and the memory figures. */
  compact: { type: 'boolean', default: false },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:clicks-list --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const SMALL = Number(values.small);
const LARGE = Number(values.large);
const REQUESTS = Number(values.requests);
const LINKS = Number(values.links);
const SUBIDS = Number(values.subids);
const DAYS = Number(values.days);
const PER_WINDOW = Number(values['per-window']);
const RARE = Number(values.rare);
const ROWS = Math.min(Number(values.rows), LARGE);
const BATCH = 1000;
const WINDOW_MS = 10_000;
const DAY = 86_400_000;
const LIFTED = '10000000';
const COMMON_SUBID = 'sub-7';
const RARE_SUBID = 'rare-promo';
const PROGRAMS = DEMO_PROGRAMS;
const UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 Edg/130.0.0.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
];
const BOT_UAS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
];
const mib = (b: number) => `${(b / 1048576).toFixed(0)} MiB`;
const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** mulberry32: a deterministic spread. */
let state = 45;
const rand = () => {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

// The engine in its own process, as bench/lib/engine-process.ts starts it, plus a GC on SIGUSR2
// (answered on its standard output with process.memoryUsage()): the engine has no GC command.
const GC_HOOK = 'data:text/javascript,process.on("SIGUSR2",()=>{globalThis.gc();console.log(JSON.stringify(process.memoryUsage()))})';
const engineChild = spawn(
  process.execPath,
  ['--expose-gc', '--max-old-space-size=16384', '--import', GC_HOOK, '--import', 'tsx', 'tools/embedded-mongo/src/cli.ts', '--port', '0'],
  { stdio: ['ignore', 'pipe', 'inherit'], env: { ...MALLOC_ENV, ...process.env } },
);
process.on('exit', () => engineChild.kill());
const engineLines = createInterface({ input: engineChild.stdout })[Symbol.asyncIterator]();
const engineUri = `${(await engineLines.next()).value as string}/bench_clicks_list`;
const enginePid = engineChild.pid!;
/** The engine's memory: RSS as it is, then after a full GC (RSS, V8 heap, array buffers). */
async function engineMemory(): Promise<{ rss: number; gcRss: number; heap: number; buffers: number }> {
  const rss = readFileSync(`/proc/${enginePid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)![1]!;
  engineChild.kill('SIGUSR2');
  const m = JSON.parse((await engineLines.next()).value as string) as NodeJS.MemoryUsage;
  return { rss: Number(rss) * 1024, gcRss: m.rss, heap: m.heapUsed, buffers: m.arrayBuffers };
}

const db = await connectDatabase(engineUri);
const { models, data } = openPlatformData(db.connection);
await migrateIndexes(models);
const raw = db.connection.db!;
const secret = Buffer.alloc(32, 9);
const ids = new ClickIds(keyRing(secret));
const addressKey = Buffer.alloc(32, 2);

interface Account {
  label: string;
  id: string;
  key: string;
  clicks: number;
  links: Array<{ id: string; program: number; merchant: number; subid: string }>;
  rare: { id: string; program: number; merchant: number; subid: string };
  seededMs: number;
  /** The newest click not flagged as a bot (the first page's first). */
  newest: number;
  /** Rows' BSON bytes (each click as one document), summed. */
  rowBytes: number;
}

async function newAccount(label: string, id: string, clicks: number): Promise<Account> {
  await createPublishers({ data }, [{ _id: id, name: `Clicks bench ${label}`, status: 'active', channels: ['content'], markets: ['DE'] }]);
  const key = (await issueCredential(data.auth, id, 'api_key', 'live', 'clicks bench')).secret;
  const links = Array.from({ length: LINKS }, (_, i) => {
    const [program, merchant] = PROGRAMS[Math.floor(i / SUBIDS) % PROGRAMS.length]!;
    const subid = `sub-${i % SUBIDS}`;
    return {
      id: linkCode(secret, { publisherId: id, programId: program, landingUrl: `https://www.shop${merchant}.example/p/${i}`, subid }),
      program,
      merchant,
      subid,
    };
  });
  const [program, merchant] = PROGRAMS[0];
  const rare = {
    id: linkCode(secret, { publisherId: id, programId: program, landingUrl: 'https://www.shop501.example/rare', subid: RARE_SUBID }),
    program,
    merchant,
    subid: RARE_SUBID,
  };
  return { label, id, key, clicks, links, rare, seededMs: 0, rowBytes: 0, newest: 0 };
}

/** The account's clicks, oldest first, in tracker batches: `PER_WINDOW` per busy window, windows spread evenly over DAYS. */
function* batchesOf(a: Account, now: number, count = a.clicks): Generator<ClickRow[]> {
  const windows = Math.floor((DAYS * DAY) / WINDOW_MS);
  const busy = Math.ceil(count / PER_WINDOW);
  if (busy > windows) throw new Error(`--per-window ${PER_WINDOW}: ${count} clicks need ${busy} windows, ${DAYS} days hold ${windows}`);
  const start = Math.floor((now - DAYS * DAY) / WINDOW_MS) * WINDOW_MS;
  const rare = new Set(Array.from({ length: RARE }, (_, k) => Math.floor(((k + 0.5) * count) / RARE)));
  let batch: ClickRow[] = [];
  let txn = '';
  for (let w = 0; w < busy; w++) {
    // Slots of whole windows, one busy window drawn in each: no two share a window.
    const windowStart = start + (Math.ceil((w * windows) / busy) + Math.floor(rand() * Math.floor(windows / busy))) * WINDOW_MS;
    const inWindow = Math.min(PER_WINDOW, count - w * PER_WINDOW);
    const offsets = Array.from({ length: inWindow }, () => Math.floor(rand() * WINDOW_MS)).sort((x, y) => x - y);
    for (let i = 0; i < inWindow; i++) {
      const n = w * PER_WINDOW + i;
      const link = rare.has(n) ? a.rare : a.links[Math.floor(rand() * a.links.length)]!;
      const r = rand();
      const ua = r < 0.03 ? BOT_UAS[Math.floor(rand() * BOT_UAS.length)]! : UAS[Math.floor(rand() * UAS.length)]!;
      const referrer = rand() < 0.35 ? '' : `https://blog${Math.floor(rand() * 6)}.example/posts/${Math.floor(rand() * 40)}`;
      const ip = `${10 + Math.floor(rand() * 200)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}`;
      if (!batch.length) txn = `stx_${Buffer.from(Array.from({ length: 12 }, () => Math.floor(rand() * 256))).toString('base64url')}`;
      const click = clickRecord(
        { linkId: link.id, publisherId: a.id, programId: link.program, merchantId: link.merchant, subid: link.subid },
        { userAgent: ua, referrer, ip, rates: undefined, overIpLimit: false },
        ids,
        addressKey,
        new Date(windowStart + offsets[i]!),
      );
      // As storeCountedClicks hands them to the store: marked with the batch's stats transaction.
      batch.push({ ...click, stats_txn: txn });
      if (!click.is_bot) a.newest = Math.max(a.newest, click.created_at.getTime());
      if (batch.length === BATCH) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length) yield batch;
}

/** Stores the account's clicks as the tracker does (a batch's buckets in one insert), the next batch made while one is stored. */
async function seed(a: Account, now: number): Promise<void> {
  const t0 = performance.now();
  let inFlight: Promise<unknown> | undefined;
  let stored = 0;
  for (const batch of batchesOf(a, now)) {
    for (const c of batch) a.rowBytes += calculateObjectSize(c);
    await inFlight;
    inFlight = data.links.insertClickRows(batch).then((s) => {
      if (s.size !== batch.length) throw new Error(`stored ${s.size} of a batch of ${batch.length}`);
      stored += s.size;
      if (stored % 500_000 < BATCH) console.log(`  ${a.label}: ${int(stored)} clicks stored (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    });
  }
  await inFlight;
  a.seededMs = performance.now() - t0;
}

/** The account's buckets as stored: BSON bytes, count, index entries (the five bucket indexes, `u` when present). */
async function bucketSizes(publisherId: string): Promise<{ buckets: number; clicks: number; bytes: number; indexEntries: number; targets: number }> {
  const out = { buckets: 0, clicks: 0, bytes: 0, indexEntries: 0, targets: 0 };
  for await (const b of raw.collection<ClickBucketDoc>('click_buckets').find({ publisher_id: publisherId }, { batchSize: 200 })) {
    out.buckets++;
    out.clicks += b.n;
    out.bytes += calculateObjectSize(b);
    out.targets += b.ls.length;
    // _id, {publisher_id, t1}, one entry per distinct link, sub-ID and merchant (multikey), the sparse `u`.
    out.indexEntries += 2 + new Set(b.ls).size + new Set(b.lsub).size + new Set(b.lc).size + (b.u?.length ?? 0);
  }
  return out;
}

// Accounts, then the memory before, after the small account and after the large one.
const now = Date.now();
const small = await newAccount('small', 'pub_clicks_small', SMALL);
const large = await newAccount('large', 'pub_clicks_large', LARGE);
const mem0 = await engineMemory();
console.log(`engine before the clicks: RSS ${mib(mem0.rss)} (${mib(mem0.gcRss)} after a GC), heap ${mib(mem0.heap)}, array buffers ${mib(mem0.buffers)}`);
await seed(small, now);
const mem1 = await engineMemory();
await seed(large, now);
const mem2 = await engineMemory();
for (const a of [small, large])
  console.log(`${a.label}: ${int(a.clicks)} clicks stored in ${(a.seededMs / 1000).toFixed(1)} s (${int((1000 * a.clicks) / a.seededMs)} clicks/s)`);
const sizes = { small: await bucketSizes(small.id), large: await bucketSizes(large.id) };
for (const [a, s] of [
  [small, sizes.small],
  [large, sizes.large],
] as const)
  if (s.clicks !== a.clicks) throw new Error(`${a.label}: ${s.clicks} clicks in its buckets, ${a.clicks} stored`);

// With --compact: the worker's compaction, as if two days later (every click an hour old, every day over), settled at once.
let compacted: { mem: Awaited<ReturnType<typeof engineMemory>>; large: Awaited<ReturnType<typeof bucketSizes>>; ms: number } | undefined;
if (values.compact) {
  const t0 = performance.now();
  const r = await compactClicks({ data }, { publisherIds: [small.id, large.id], now: new Date(now + 2 * DAY), settleAfterMs: 0 });
  const ms = performance.now() - t0;
  console.log(`compacted in ${(ms / 1000).toFixed(1)} s: ${int(r.buckets)} buckets (${int(r.clicks)} clicks) merged into ${int(r.merged)}`);
  // Deleted documents' buffers go at a second collection: measured after a pause.
  await new Promise((ok) => setTimeout(ok, 1000));
  await engineMemory();
  compacted = { mem: await engineMemory(), large: await bucketSizes(large.id), ms };
  if (compacted.large.clicks !== large.clicks)
    throw new Error(`large: ${compacted.large.clicks} clicks in its buckets after the compaction, ${large.clicks} stored`);
}

// publisher-api from its main, in its own process, on the engine.
const api = await startServiceProcess('publisher-api', {
  env: {
    ...process.env,
    MONGODB_URI: engineUri,
    LOG_LEVEL: 'warn',
    SHUTDOWN_DRAIN_MS: '0',
    RATELIMIT_REPORTING_PER_MIN: LIFTED,
    RATELIMIT_IP_PER_MIN: LIFTED,
    RATELIMIT_ACCOUNT_PER_MIN: LIFTED,
  },
});
const apiUrl = api.url;

interface Page {
  data: Array<{ id: string; created_at: string; sub_id: string | null }>;
  has_more: boolean;
  next_cursor: string | null;
}
const commandCount = async (name: string) => {
  const status = await raw.admin().command({ serverStatus: 1 });
  return Number(status.metrics.commands[name]?.total ?? 0);
};
interface Figures {
  p50: number;
  p99: number;
  apiCpu: number;
  engineCpu: number;
  reads: number;
  bytes: number;
  items: number;
  statuses: string;
}

/** `requests` sequential GETs of one URL (one warm-up first): p50/p99, CPU per request of the API and the engine, engine reads per request. */
async function measure(a: Account, query: string): Promise<Figures> {
  const url = `${apiUrl}/api/v1/publisher/clicks/${query}`;
  const headers = { 'X-API-Key': a.key };
  const first = await fetch(url, { headers });
  const text = await first.text();
  if (first.status !== 200) throw new Error(`${url}: ${first.status} ${text.slice(0, 300)}`);
  const page = JSON.parse(text) as Page;
  const times: number[] = [];
  const statuses = new Map<number, number>();
  const reads0 = (await commandCount('find')) + (await commandCount('getMore'));
  const api0 = processCpuMicros(api.pid);
  const engine0 = processCpuMicros(enginePid);
  for (let i = 0; i < REQUESTS; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    times.push(performance.now() - t);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  }
  const apiCpu = (processCpuMicros(api.pid) - api0) / REQUESTS;
  const engineCpu = (processCpuMicros(enginePid) - engine0) / REQUESTS;
  const reads = ((await commandCount('find')) + (await commandCount('getMore')) - reads0) / REQUESTS;
  times.sort((x, y) => x - y);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!;
  return {
    p50: pct(50),
    p99: pct(99),
    apiCpu,
    engineCpu,
    reads,
    bytes: Buffer.byteLength(text),
    items: page.data.length,
    statuses: [...statuses].map(([s, n]) => `${n}x${s}`).join(' '),
  };
}

/** The next_cursor of the first page of `query` (null: one page only). */
async function cursorOf(a: Account, query: string): Promise<string | null> {
  const res = await fetch(`${apiUrl}/api/v1/publisher/clicks/${query}`, { headers: { 'X-API-Key': a.key } });
  const page = (await res.json()) as Page;
  return page.next_cursor && encodeURIComponent(page.next_cursor);
}
const FIRST = '?page_size=50';
for (const a of [small, large]) {
  const page = (await (await fetch(`${apiUrl}/api/v1/publisher/clicks/${FIRST}`, { headers: { 'X-API-Key': a.key } })).json()) as Page;
  if (new Date(page.data[0]?.created_at ?? 0).getTime() !== a.newest) throw new Error(`${a.label}: the first page does not start with the newest click`);
}
const COMMON = `?page_size=50&sub_id=${COMMON_SUBID}`;
const afterFirst = (query: string) => async (a: Account) => {
  const cursor = await cursorOf(a, query);
  return cursor && `${query}&cursor=${cursor}`;
};
const CASES: Array<[string, (a: Account) => Promise<string | null>]> = [
  ['first page', async () => FIRST],
  ['second page (cursor)', afterFirst(FIRST)],
  [`sub_id=${COMMON_SUBID} (1/${SUBIDS}), first page`, async () => COMMON],
  [`sub_id=${COMMON_SUBID}, second page (cursor)`, afterFirst(COMMON)],
  [`sub_id=${RARE_SUBID} (${RARE} clicks), first page`, async () => `?page_size=50&sub_id=${RARE_SUBID}`],
];

console.log(`\n${REQUESTS} sequential requests each, page_size=50; publisher-api and the engine each in its own process`);
console.log(
  `${'GET /clicks/'.padEnd(40)} ${`${int(SMALL)} p50 / p99`.padStart(22)} ${`${int(LARGE)} p50 / p99`.padStart(24)}  large/small p50, p99  CPU/request large: api, engine  reads/req  bytes  items`,
);
const fmt = (f: Figures | null, width: number) => (f ? `${f.p50.toFixed(1)} / ${f.p99.toFixed(1)} ms` : 'one page only').padStart(width);
for (const [label, make] of CASES) {
  const sq = await make(small);
  const lq = await make(large);
  const s = sq === null ? null : await measure(small, sq);
  const l = lq === null ? null : await measure(large, lq);
  const odd = [s, l].some((f) => f && f.statuses !== `${REQUESTS}x200`) ? `  statuses: ${s?.statuses} / ${l?.statuses}` : '';
  console.log(
    `${label.padEnd(40)} ${fmt(s, 22)} ${fmt(l, 24)}  ${(s && l ? `${(l.p50 / s.p50).toFixed(2)}x, ${(l.p99 / s.p99).toFixed(2)}x` : '').padStart(19)}  ${(l ? `${(l.apiCpu / 1000).toFixed(1)}, ${(l.engineCpu / 1000).toFixed(1)} ms` : '').padStart(31)}  ${`${s?.reads.toFixed(0) ?? '-'}/${l?.reads.toFixed(0) ?? '-'}`.padStart(9)}  ${String(l?.bytes ?? '').padStart(5)}  ${l?.items ?? ''}${odd}`,
  );
}
await api.stop();

// Memory and bytes per click.
const perClick = (bytes: number, n: number) => `${(bytes / n).toFixed(0)} B`;
const largeClicks = large.clicks;
console.log(`\nper click of the large account (${int(largeClicks)} clicks, --per-window ${PER_WINDOW}):`);
console.log(
  `  buckets: ${int(sizes.large.buckets)} (${(largeClicks / sizes.large.buckets).toFixed(1)} clicks and ${(sizes.large.targets / sizes.large.buckets).toFixed(0)} targets each); BSON ${perClick(sizes.large.bytes, largeClicks)}, index entries ${(sizes.large.indexEntries / largeClicks).toFixed(3)}`,
);
console.log(
  `  as rows (one document per click): BSON ${perClick(large.rowBytes, largeClicks)}, index entries 2 (_id and {publisher_id, created_at: -1, _id: 1})`,
);
console.log(
  `  engine RSS growth ${perClick(mem2.rss - mem1.rss, largeClicks)} (${mib(mem2.rss - mem1.rss)}); after a GC: RSS ${perClick(mem2.gcRss - mem1.gcRss, largeClicks)}, heap ${perClick(mem2.heap - mem1.heap, largeClicks)} + array buffers ${perClick(mem2.buffers - mem1.buffers, largeClicks)} (${mib(mem2.heap - mem1.heap + mem2.buffers - mem1.buffers)})`,
);
console.log(
  `  small account (${int(small.clicks)}): buckets ${int(sizes.small.buckets)}, BSON ${perClick(sizes.small.bytes, small.clicks)}; rows ${perClick(small.rowBytes, small.clicks)}; engine heap + buffers after a GC ${perClick(mem1.heap - mem0.heap + mem1.buffers - mem0.buffers, small.clicks)}`,
);
if (compacted) {
  const c = compacted;
  console.log(
    `  after the compaction: buckets ${int(c.large.buckets)} (${(largeClicks / c.large.buckets).toFixed(1)} clicks each); BSON ${perClick(c.large.bytes, largeClicks)}, index entries ${(c.large.indexEntries / largeClicks).toFixed(3)}; engine heap + array buffers after a GC ${perClick(c.mem.heap - mem1.heap + c.mem.buffers - mem1.buffers, largeClicks)} (was ${perClick(mem2.heap - mem1.heap + mem2.buffers - mem1.buffers, largeClicks)}), RSS after a GC ${mib(c.mem.gcRss)} (was ${mib(mem2.gcRss)})`,
  );
}
console.log(`  engine RSS after seeding ${mib(mem2.rss)} (${mib(mem2.gcRss)} after a GC), at the end of the lists ${mib((await engineMemory()).rss)}`);

if (ROWS > 0) {
  // The same kind of clicks as rows, one document per click, in the collection of that layout.
  const rowsAccount = await newAccount('rows', 'pub_clicks_rows', ROWS);
  const m0 = await engineMemory();
  const t0 = performance.now();
  let inFlight: Promise<unknown> | undefined;
  for (const batch of batchesOf(rowsAccount, now)) {
    await inFlight;
    inFlight = raw.collection('clicks').insertMany(batch as never[], { ordered: false });
  }
  await inFlight;
  const ms = performance.now() - t0;
  const m1 = await engineMemory();
  console.log(
    `  ${int(ROWS)} clicks as rows: stored in ${(ms / 1000).toFixed(1)} s; engine RSS growth ${perClick(m1.rss - m0.rss, ROWS)}; after a GC: RSS ${perClick(m1.gcRss - m0.gcRss, ROWS)}, heap ${perClick(m1.heap - m0.heap, ROWS)} + array buffers ${perClick(m1.buffers - m0.buffers, ROWS)}`,
  );
}

await db.close();
engineChild.kill('SIGTERM');
await once(engineChild, 'exit');
process.exit(0);
