/**
 * Reports that cost the same at a million conversions (issue 25): two accounts on one platform,
 * a large one (default 1,000,000 conversions and 3,000,000 clicks) and a small one (10,000 and
 * 30,000), both over 400 days, 1,000 sub-IDs and 5 programs. History is written as rows and the
 * stats read model built with `stats:rebuild` (its time and the engine's memory are reported).
 * Then, per account, every aggregate and each list's first page through HTTP, sequentially:
 * p50/p99 and the ratio large/small (the portal's dashboard overview among them). Last, the lag from a change (a click, a sale) to the report
 * that shows it, through the real tracker, intake and worker. The engine runs in its own process.
 * `npm run bench:stats [-- --conversions N --clicks N --small-conversions N --small-clicks N --requests N --compact]`
 * (`--compact`: the account's clicks compacted once stored, as the worker's first run after a deploy would).
 */
import { performance } from 'node:perf_hooks';
import { Decimal128 } from 'bson';
import { compactClicks, rebuildStats } from '@cw/stats';
import { connectDatabase } from '@cw/db';
import type { ConversionRow } from '@cw/conversions';
import type { ClickRow } from '@cw/links';
import { openPlatformData } from '@cw/runtime';
import { startPlatform } from '@cw-tools/dev-stack';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { startEngineProcess } from './lib/engine-process';
import { DEMO_PROGRAMS } from './lib/demo-programs';

const OPTIONS = {
  conversions: { type: 'string', default: '1000000' },
  clicks: { type: 'string', default: '3000000' },
  'small-conversions': { type: 'string', default: '10000' },
  'small-clicks': { type: 'string', default: '30000' },
  requests: { type: 'string', default: '20' },
  lag: { type: 'string', default: '40' },
  only: { type: 'string', default: '', description: "Only the requests whose label contains this text (several: separated by '|')" },
  compact: {
    type: 'boolean',
    default: false,
    description: "Compact each account's clicks once they are stored, as the worker's first run after a deploy would (merges settled chunk by chunk)",
  },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:stats --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const REQUESTS = Number(values.requests);
const DAY = 86_400_000;
const DAYS = 400;
const SUBIDS = 1000;
const PROGRAMS = DEMO_PROGRAMS;
const CURRENCIES = ['EUR', 'EUR', 'EUR', 'GBP', 'JPY'];
const mib = (b: number) => `${(b / 1048576).toFixed(0)} MiB`;

const engine = await startEngineProcess('bench_stats');
// The engine answers one command at a time: on a loaded machine a long one (a month's rebuild) can
// keep it from answering the driver's monitor for more than the default 30 s, which is not a fault here.
const ENGINE_URI = `${engine.uri}?connectTimeoutMS=600000&socketTimeoutMS=0`;
const platform = await startPlatform({
  env: {
    PORT: '0',
    LOG_LEVEL: 'warn',
    TRUST_PROXY_HOPS: '1',
    MONGODB_URI: ENGINE_URI,
    RATELIMIT_REPORTING_PER_MIN: '10000000',
    RATELIMIT_REPORTING_TOKEN_PER_MIN: '10000000',
    RATELIMIT_IP_PER_MIN: '10000000',
    RATELIMIT_ACCOUNT_PER_MIN: '10000000',
    RATELIMIT_PORTAL_PER_MIN: '10000000',
    // The worker's compaction only as --compact asks (the seeding does it).
    CLICK_COMPACT_INTERVAL_MS: '0',
  },
  seedProducts: 100,
  credentialsPath: null,
});
const creds = platform.credentials!;
const db = await connectDatabase(ENGINE_URI, { serverSelectionTimeoutMS: 600_000 });
const { models, data } = openPlatformData(db.connection);
const engineMemory = async () => Number((await db.connection.db!.admin().command({ serverStatus: 1 })).mem.resident) * 1048576;
const now = Date.now();

/** A deterministic spread: the i-th row's time, sub-ID and program. */
let seed = 42;
/** mulberry32: independent-looking draws (an LCG's consecutive draws are correlated, which piled rows into few cells). */
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

async function seedAccount(publisherId: string, conversions: number, clicks: number): Promise<void> {
  const t0 = performance.now();
  for (let i = 0; i < clicks; i += 10_000) {
    const rows: ClickRow[] = [];
    for (let j = i; j < Math.min(clicks, i + 10_000); j++) {
      const [program, merchant] = PROGRAMS[Math.floor(rand() * PROGRAMS.length)]!;
      const subid = Math.floor(rand() * SUBIDS);
      rows.push({
        _id: `clk_${publisherId.slice(4)}_${j}`,
        // A tracked link per sub-ID and program (the per-link view's groups).
        link_id: `lnk_b${subid}_${program}`,
        publisher_id: publisherId,
        program_id: program,
        campaign_id: merchant,
        subid: `s${subid}`,
        // In time order, as the tracker stores them, at random moments of the 400 days.
        created_at: new Date(now - DAYS * DAY + Math.floor(((j + rand()) / clicks) * DAYS * DAY)),
        user_agent: '',
        ip_hash: '',
        referrer: '',
        is_bot: rand() < 0.05,
      } as ClickRow);
    }
    await data.links.insertClickRows(rows);
  }
  // The worker's first compaction of the account's history (as after a deploy), as if two days
  // later (every day over), settled at once (no reader meanwhile).
  if (values.compact) {
    const c0 = performance.now();
    const r = await compactClicks({ data }, { publisherIds: [publisherId], now: new Date(now + 2 * DAY), settleAfterMs: 0 });
    const ms = performance.now() - c0;
    console.log(
      `  ${publisherId}: ${r.buckets.toLocaleString('en-US')} buckets merged into ${r.merged.toLocaleString('en-US')} in ${(ms / 1000).toFixed(1)} s; engine RSS ${mib(await engineMemory())}`,
    );
  }
  for (let i = 0; i < conversions; i += 5000) {
    const rows: ConversionRow[] = [];
    for (let j = i; j < Math.min(conversions, i + 5000); j++) {
      const [program, merchant] = PROGRAMS[Math.floor(rand() * PROGRAMS.length)]!;
      const at = new Date(now - Math.floor(rand() * DAYS * DAY));
      const r = rand();
      const status = r < 0.6 ? 'approved' : r < 0.9 ? 'pending' : 'declined';
      const currency = CURRENCIES[j % CURRENCIES.length]!;
      const amount = currency === 'JPY' ? `${1000 + (j % 9000)}` : `${10 + (j % 500)}.${String(j % 100).padStart(2, '0')}`;
      const subid = Math.floor(rand() * SUBIDS);
      const commission = currency === 'JPY' ? `${100 + (j % 900)}` : `${1 + (j % 40)}.${String(j % 97).padStart(2, '0')}`;
      rows.push({
        _id: `cnv_${publisherId.slice(4)}_${j}`,
        publisher_id: publisherId,
        program_id: program,
        campaign_id: merchant,
        click_id: `clk_x${j}`,
        link_id: `lnk_b${subid}_${program}`,
        subid: `s${subid}`,
        order_ref: `B-${j}`,
        status,
        sale_amount: Decimal128.fromString(amount),
        commission: Decimal128.fromString(commission),
        currency,
        occurred_at: at,
        reversed: false,
        paid: status === 'approved' && now - at.getTime() > 60 * DAY,
        source: 'v1',
        events: [],
        created_at: at,
        updated_at: at,
      } as unknown as ConversionRow);
    }
    await data.conversions.insertRows(rows);
  }
  const seeded = performance.now();
  const heap0 = process.memoryUsage().heapUsed;
  let peakHeap = heap0;
  const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 100);
  const rebuilt = await rebuildStats({ data }, { publisherId });
  clearInterval(sampler);
  const cells = await models.Stat.countDocuments({ publisher_id: publisherId });
  console.log(
    `${publisherId}: ${conversions.toLocaleString('en-US')} conversions, ${clicks.toLocaleString('en-US')} clicks written in ${((seeded - t0) / 1000).toFixed(1)} s; ` +
      `stats:rebuild ${((performance.now() - seeded) / 1000).toFixed(1)} s (${rebuilt.months} months, ${cells.toLocaleString('en-US')} cells, rebuild heap peak +${mib(peakHeap - heap0)}); engine RSS ${mib(await engineMemory())}`,
  );
}

const large = creds.publishers[0]!;
const small = creds.publishers[1]!;
await seedAccount(large.account_id, Number(values.conversions), Number(values.clicks));
await seedAccount(small.account_id, Number(values['small-conversions']), Number(values['small-clicks']));

const day = (offset: number) => new Date(now + offset * DAY).toISOString().slice(0, 10);
type Who = typeof large;
const REQUESTS_OF: Array<[string, (w: Who) => { url: string; headers: Record<string, string> }]> = [];
const pub = (path: string) => (w: Who) => ({ url: `${platform.url}/api/v1/publisher${path}`, headers: { 'X-API-Key': w.keys.live } });
const rep = (path: string) => (w: Who) => ({
  url: `${platform.url}/api/v1/affiliate-reporting${path}`,
  headers: { Authorization: `Bearer ${w.reporting_token}` },
});
// The portal's dashboard, with a session of the account's owner.
const cookies = new Map<string, string>();
for (const w of [large, small]) {
  const res = await fetch(`${platform.url}/portal/api/signin`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: new URL(platform.url).origin },
    body: JSON.stringify(w.portal_login),
  });
  if (res.status !== 200) throw new Error(`portal sign-in: ${res.status} ${await res.text()}`);
  cookies.set(
    w.account_id,
    res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; '),
  );
}
const portal = (path: string) => (w: Who) => ({
  url: `${platform.url}/portal/api/accounts/${w.account_id}${path}`,
  headers: { Cookie: cookies.get(w.account_id)! },
});
const apiv3 = (q: string) => (w: Who) => ({
  url: `${platform.url}/Apiv3/json?api_key=${encodeURIComponent(w.reporting_token)}&Target=Affiliate_Report&${q}`,
  headers: {},
});
REQUESTS_OF.push(
  ['reports 90 d by day', pub(`/reports/?group_by=day&date_from=${day(-89)}&date_to=${day(0)}`)],
  ['reports 366 d by day, Asia/Kolkata', pub(`/reports/?group_by=day&date_from=${day(-365)}&date_to=${day(0)}&timezone=Asia/Kolkata`)],
  ['reports 366 d by week, Asia/Kathmandu', pub(`/reports/?group_by=week&date_from=${day(-365)}&date_to=${day(0)}&timezone=Asia/Kathmandu`)],
  ['reports 366 d by month', pub(`/reports/?group_by=month&date_from=${day(-365)}&date_to=${day(0)}`)],
  ['reports 30 d by subid', pub(`/reports/?group_by=subid&date_from=${day(-29)}&date_to=${day(0)}`)],
  ['reports 90 d by subid', pub(`/reports/?group_by=subid&date_from=${day(-89)}&date_to=${day(0)}`)],
  ['reports 90 d by subid, America/New_York', pub(`/reports/?group_by=subid&date_from=${day(-89)}&date_to=${day(0)}&timezone=America/New_York`)],
  ['reports 366 d by subid', pub(`/reports/?group_by=subid&date_from=${day(-365)}&date_to=${day(0)}`)],
  ['reports 90 d by campaign', pub(`/reports/?group_by=campaign&date_from=${day(-89)}&date_to=${day(0)}`)],
  ['reports 90 d by status, one sub-ID', pub(`/reports/?group_by=status&date_from=${day(-89)}&date_to=${day(0)}&subid=s7`)],
  ['portal overview 90 d (dashboard), Europe/Berlin', portal(`/overview?date_from=${day(-89)}&date_to=${day(0)}&timezone=Europe/Berlin`)],
  ['portal overview 366 d, Asia/Kathmandu', portal(`/overview?date_from=${day(-365)}&date_to=${day(0)}&timezone=Asia/Kathmandu`)],
  ['portal top lists 30 d (dashboard), Europe/Berlin', portal(`/overview/top?date_from=${day(-29)}&date_to=${day(0)}&timezone=Europe/Berlin`)],
  ['portal top lists 30 d, UTC', portal(`/overview/top?date_from=${day(-29)}&date_to=${day(0)}&timezone=UTC`)],
  ['portal top lists 90 d, America/New_York', portal(`/overview/top?date_from=${day(-89)}&date_to=${day(0)}&timezone=America/New_York`)],
  ['portal top lists 366 d, Asia/Kathmandu', portal(`/overview/top?date_from=${day(-365)}&date_to=${day(0)}&timezone=Asia/Kathmandu`)],
  ['conversions page 1 (+ all-time subid_rollup)', pub('/conversions/?page_size=50')],
  ['conversions 30 d, approved, one sub-ID', pub(`/conversions/?date_from=${day(-29)}&date_to=${day(0)}&status=approved&subid=s7`)],
  ['clicks page 1', pub('/clicks/?page_size=50')],
  ['payment-status', pub('/payment-status/')],
  ['summary 90 d by subid', rep(`/summary/?group_by=subid&date_from=${day(-89)}&date_to=${day(0)}`)],
  ['summary 90 d by day, Europe/Berlin', rep(`/summary/?group_by=day&date_from=${day(-89)}&date_to=${day(0)}&timezone=Europe/Berlin`)],
  ['summary 90 d by merchant', rep(`/summary/?group_by=merchant&date_from=${day(-89)}&date_to=${day(0)}`)],
  ['sales page 1', rep('/sales/?page_size=100')],
  ['subid-sales page 1', rep('/subid-sales/?page_size=100')],
  [
    'getStats 90 d by date',
    apiv3(
      `Method=getStats&fields[]=Stat.clicks&fields[]=Stat.conversions&fields[]=Stat.payout&groups[]=Stat.date&data_start=${day(-89)}&data_end=${day(0)}&limit=100`,
    ),
  ],
  [
    'getStats 30 d by sub-ID, hour_offset 5.75',
    apiv3(
      `Method=getStats&fields[]=Stat.clicks&fields[]=Stat.conversions&groups[]=Stat.affiliate_info1&data_start=${day(-29)}&data_end=${day(0)}&hour_offset=5.75&limit=100`,
    ),
  ],
  ['getConversions 30 d page 1', apiv3(`Method=getConversions&data_start=${day(-29)}&data_end=${day(0)}&limit=100`)],
);

async function measure(
  w: Who,
  make: (w: Who) => { url: string; headers: Record<string, string> },
): Promise<{ p50: number; p95: number; p99: number; over: number }> {
  const times: number[] = [];
  let over = 0;
  const { url, headers } = make(w);
  for (let i = 0; i < REQUESTS + 1; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    const text = await res.text();
    if (i > 0) times.push(performance.now() - t); // the first request warms caches (credentials, names)
    // A 503 is the query time budget: counted (its time is the budget's), not a failure of the run.
    if (res.status === 503) over++;
    else if (res.status !== 200 || text.includes('"status":-1')) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
  }
  times.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!;
  return { p50: pct(50), p95: pct(95), p99: pct(99), over };
}

console.log(
  `\n${'request'.padEnd(46)} ${'large p50'.padStart(10)} ${'p95'.padStart(8)} ${'p99'.padStart(8)}   ${'small p50'.padStart(10)} ${'p95'.padStart(8)} ${'p99'.padStart(8)}   large/small p99`,
);
const only = values.only.split('|');
for (const [label, make] of REQUESTS_OF.filter(([l]) => only.some((o) => l.includes(o)))) {
  const l = await measure(large, make);
  const s = await measure(small, make);
  const ms = (x: number, w: number) => `${x.toFixed(1).padStart(w)} ms`;
  console.log(
    `${label.padEnd(46)} ${ms(l.p50, 7)} ${ms(l.p95, 5)} ${ms(l.p99, 5)}   ${ms(s.p50, 7)} ${ms(s.p95, 5)} ${ms(s.p99, 5)}   ${(l.p99 / s.p99).toFixed(1)}x` +
      (l.over || s.over ? `   503 (time budget): ${l.over} large, ${s.over} small` : ''),
  );
}

// Lag: a click through the tracker, then a sale on it through the merchant intake; how long until
// the reports show each (polled every 20 ms).
const link = await fetch(`${platform.url}/api/v1/publisher/links/`, {
  method: 'POST',
  headers: { 'X-API-Key': large.keys.live, 'Content-Type': 'application/json' },
  body: JSON.stringify({ program_id: creds.fixtures.approved_program_id, subid: 'lag' }),
}).then((r) => r.json() as Promise<{ url: string }>);
const summaryOf = async () =>
  (await fetch(`${platform.url}/api/v1/affiliate-reporting/summary/?group_by=subid&sub_id=lag&date_from=${day(-1)}&date_to=${day(1)}`, {
    headers: { Authorization: `Bearer ${large.reporting_token}` },
  }).then((r) => r.json())) as {
    data: Array<{ clicks: number; sales: number }>;
  };
const clickLag: number[] = [];
const saleLag: number[] = [];
for (let i = 0; i < Number(values.lag); i++) {
  const before = (await summaryOf()).data[0] ?? { clicks: 0, sales: 0 };
  const t0 = performance.now();
  // Each click from its own reader (behind one trusted proxy): one address's eleventh click on a link is flagged as a bot.
  const redirect = await fetch(`${platform.url}${new URL(link.url).pathname}`, {
    redirect: 'manual',
    headers: {
      'User-Agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
      'X-Forwarded-For': `198.51.100.${i % 250}`,
    },
  });
  const clickId = new URL(redirect.headers.get('location')!).searchParams.get('cw_click_id')!;
  for (;;) {
    const now = await summaryOf();
    if ((now.data[0]?.clicks ?? 0) > before.clicks) break;
    if (performance.now() - t0 > 30_000)
      throw new Error(`the click never showed: ${redirect.status} ${redirect.headers.get('location')} ${JSON.stringify(now)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  clickLag.push(performance.now() - t0);
  const t1 = performance.now();
  const sale = await fetch(`${platform.url}/api/v1/track/conversions/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${creds.fixtures.merchant_token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ click_id: clickId, order_id: `lag-${i}-${now}`, amount: '10.00', currency: 'EUR' }),
  });
  if (sale.status !== 201) throw new Error(`sale: ${sale.status} ${await sale.text()}`);
  for (;;) {
    if (((await summaryOf()).data[0]?.sales ?? 0) > before.sales) break;
    if (performance.now() - t1 > 30_000) throw new Error('the sale never showed');
    await new Promise((r) => setTimeout(r, 20));
  }
  saleLag.push(performance.now() - t1);
}
const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((q / 100) * xs.length))]!;
console.log(
  `\nlag to the report: click p50 ${p(clickLag, 50).toFixed(0)} ms, p99 ${p(clickLag, 99).toFixed(0)} ms; sale p50 ${p(saleLag, 50).toFixed(0)} ms, p99 ${p(saleLag, 99).toFixed(0)} ms (${clickLag.length} of each)`,
);
console.log(`engine RSS ${mib(await engineMemory())}, platform RSS ${mib(process.memoryUsage().rss)}`);
await db.close();
await platform.stop();
await engine.stop();
