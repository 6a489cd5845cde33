/**
 * The events feed at scale, on the one-process platform:
 *   1. A page of 500 events from a random cursor (sequential requests, p50/p99) with 10,000 and
 *      with N (default 1,000,000) events in the account's log: the read is an index range, so the
 *      target is within 2x.
 *   2. Change-to-stream latency: S (default 100) open `/events/stream/` connections of one account,
 *      then C (default 200) status changes at R/s; for every (stream, event) the time from the
 *      change's commit to the event's arrival, p50/p99.
 * `npm run bench:events [-- --events 1000000 --requests 50 --streams 100 --changes 200 --rate 20 --engine child|in-process]`
 */
import { performance } from 'node:perf_hooks';
import { MongoClient } from 'mongodb';
import { changeStatus, saleEvent } from '@cw/conversions';
import { connectDatabase } from '@cw/db';
import { openPlatformData } from '@cw/runtime';
import { startPlatform } from '@cw-tools/dev-stack';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { readEventStream } from '@cw-tools/testing';
import { startEngineProcess } from './lib/engine-process';

const OPTIONS = {
  events: { type: 'string', default: '1000000' },
  requests: { type: 'string', default: '50' },
  streams: { type: 'string', default: '100' },
  changes: { type: 'string', default: '200' },
  rate: { type: 'string', default: '20' },
  /** `child`: the engine in its own process (as MongoDB would be), so its heap and GC are not the platform's. */
  engine: { type: 'string', default: 'child' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:events --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const STREAMS = Number(values.streams);
const engineUri = values.engine === 'child' ? (await startEngineProcess('bench_events')).uri : undefined;
console.log(`engine ${engineUri ? 'in a child process' : 'in this process'}`);
const platform = await startPlatform({
  env: {
    ...(engineUri ? { MONGODB_URI: engineUri } : {}),
    PORT: '0',
    LOG_LEVEL: 'warn',
    RATELIMIT_REPORTING_PER_MIN: '10000000',
    RATELIMIT_IP_PER_MIN: '10000000',
    EVENT_STREAMS_PER_ACCOUNT: String(STREAMS + 10),
  },
  seedProducts: 500,
  credentialsPath: null,
});
const pub = platform.credentials!.publishers[0];
const other = platform.credentials!.publishers[1];
const headers = { 'X-API-Key': pub.keys.live };
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

// The demo events are logged by the first read; the synthetic ones go to the second account.
await fetch(`${platform.url}/api/v1/publisher/events/?limit=1`, { headers });
// The second account's own demo events are logged first; the synthetic ones follow them.
await fetch(`${platform.url}/api/v1/publisher/events/?limit=1`, { headers: { 'X-API-Key': other.keys.live } });
const client = await MongoClient.connect(platform.mongoUri);
const events = client.db().collection<{ _id: string }>('sale_events');
const body = JSON.stringify({
  id: 'evt_x',
  type: 'sale.approved',
  event: 'approved',
  created_at: new Date().toISOString(),
  publisher_id: other.account_id,
  conversion: {
    id: 'cnv_x',
    status: 'approved',
    subid: 'bench',
    commission: '4.20',
    sale_amount: '52.50',
    currency: 'EUR',
    program_id: 1001,
    campaign_id: 101,
    merchant: { id: 101, name: 'Bench' },
    click_id: null,
    occurred_at: new Date().toISOString(),
  },
});
let stored = await events.countDocuments({ publisher_id: other.account_id });
async function growTo(n: number): Promise<void> {
  const t = performance.now();
  for (; stored < n;) {
    const batch = Array.from({ length: Math.min(5000, n - stored) }, () => {
      const seq = ++stored;
      return {
        _id: `evt_bench_${seq}`,
        publisher_id: other.account_id,
        seq,
        type: 'sale.approved',
        conversion_id: `cnv_bench_${seq}`,
        body,
        created_at: new Date(),
        logged_at: new Date(),
      };
    });
    await events.insertMany(batch, { ordered: false });
  }
  await client
    .db()
    .collection('event_log_heads')
    .updateOne({ _id: other.account_id as never }, { $set: { last_seq: stored, leased_until: null } }, { upsert: true });
  console.log(`log of ${n} events (${((performance.now() - t) / 1000).toFixed(1)} s to write)`);
}

async function pages(label: string): Promise<void> {
  const cursor = (seq: number) => `evc1_${Buffer.from(`${other.account_id}\u0000${seq}`).toString('base64url')}`;
  const times: number[] = [];
  for (let i = 0; i < Number(values.requests); i++) {
    const from = Math.floor(Math.random() * (stored - 500));
    const t = performance.now();
    const res = await fetch(`${platform.url}/api/v1/publisher/events/?limit=500&cursor=${cursor(from)}`, { headers: { 'X-API-Key': other.keys.live } });
    const page = (await res.json()) as { data: unknown[] };
    times.push(performance.now() - t);
    if (res.status !== 200 || page.data.length !== 500) throw new Error(`page: ${res.status}`);
  }
  console.log(`${label.padEnd(44)} p50 ${pct(times, 50).toFixed(1).padStart(6)} ms  p99 ${pct(times, 99).toFixed(1).padStart(6)} ms`);
}

await growTo(10_000);
await pages('page of 500 from a random cursor, 10,000 events');
await growTo(Number(values.events));
await pages(`page of 500 from a random cursor, ${stored.toLocaleString('en')} events`);
await client.close();

// Change-to-stream latency: fresh pending sales (logged before the streams open), then changed.
const db = await connectDatabase(platform.mongoUri);
const { models, data } = openPlatformData(db.connection);
const template = (await models.Conversion.findOne({ publisher_id: pub.account_id, source: 'v1' }).lean<Record<string, unknown>>())!;
const fresh = Array.from({ length: Number(values.changes) }, (_, i) => ({
  ...template,
  _id: `cnv_bench_${i}`,
  order_ref: `BENCH-${i}`,
  status: 'pending',
  reversed: false,
  paid: false,
  events: [saleEvent('sale.created', new Date())],
  log_pending: true,
}));
await models.Conversion.insertMany(fresh);
const end = ((await (await fetch(`${platform.url}/api/v1/publisher/events/?limit=500`, { headers })).json()) as { next_cursor: string }).next_cursor;
let tail = end;
for (;;) {
  const p = (await (await fetch(`${platform.url}/api/v1/publisher/events/?limit=500&cursor=${tail}`, { headers })).json()) as {
    next_cursor: string;
    has_more: boolean;
  };
  tail = p.next_cursor;
  if (!p.has_more) break;
}
const committed = new Map<string, number>();
const latencies: number[] = [];
const controllers: AbortController[] = [];
let received = 0;
await Promise.all(
  Array.from({ length: STREAMS }, async () => {
    const controller = new AbortController();
    controllers.push(controller);
    const res = await fetch(`${platform.url}/api/v1/publisher/events/stream/?cursor=${tail}`, { headers, signal: controller.signal });
    if (res.status !== 200) throw new Error(`stream: ${res.status}`);
    void readEventStream(res.body, (m) => {
      if (!m.data) return;
      const event = JSON.parse(m.data) as { type: string; conversion: { id: string } };
      const at = event.type === 'sale.approved' ? committed.get(event.conversion.id) : undefined;
      if (at !== undefined) {
        latencies.push(performance.now() - at);
        received++;
      }
    }).catch(() => undefined);
  }),
);
const pending = fresh;
const gap = 1000 / Number(values.rate);
for (const c of pending) {
  const t = performance.now();
  await changeStatus({ data }, c._id, 'approved');
  committed.set(String(c._id), performance.now());
  await new Promise((r) => setTimeout(r, Math.max(0, gap - (performance.now() - t))));
}
for (const t = Date.now(); received < pending.length * STREAMS && Date.now() - t < 10_000;) await new Promise((r) => setTimeout(r, 50));
console.log(
  `change to stream, ${STREAMS} open streams, ${pending.length} changes at ${values.rate}/s: ${received} of ${pending.length * STREAMS} arrivals, p50 ${pct(latencies, 50).toFixed(0)} ms, p99 ${pct(latencies, 99).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms`,
);
for (const c of controllers) c.abort();
await db.close();
await platform.stop();
process.exit(0);
