/**
 * Postback throughput and latency, end to end on the one-process platform: conversions with a
 * pending event are written (as the lifecycle writes a status change), the worker's outbox pump
 * and attempts deliver them signed to a local receiver. Reports deliveries/s for a burst of N, and
 * p50/p99 from the change to arrival at a fixed rate. `npm run bench:postbacks [-- --burst 2000 --rate 100 --seconds 10]`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Decimal128 } from 'bson';
import { saleEvent } from '@cw/conversions';
import { connectDatabase, createModels, createRepositories, type ConversionRow } from '@cw/db';
import { startEmbeddedMongo } from '@cw-tools/embedded-mongo';
import { startPlatform } from '@cw-tools/dev-stack';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';

const OPTIONS = { burst: { type: 'string', default: '2000' }, rate: { type: 'string', default: '100' }, seconds: { type: 'string', default: '10' }, interval: { type: 'string', default: '50' } } as const;
const values = parseCommandLine(generatedUsage('npm run bench:postbacks --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS), OPTIONS);
const BURST = Number(values.burst);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);

const arrivals = new Map<string, number>();
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    arrivals.set(String(req.headers['x-cw-delivery']), Date.now());
    res.writeHead(204).end();
  });
});
await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const engine = await startEmbeddedMongo();
const uri = `${engine.uri}/bench_postbacks`;
const platform = await startPlatform({ env: { PORT: '0', LOG_LEVEL: 'warn', MONGODB_URI: uri, RATELIMIT_IP_PER_MIN: '10000000', RATELIMIT_POSTBACKS_PER_MIN: '10000000' }, seedProducts: 200, credentialsPath: null, workerIntervalMs: Number(values.interval) });
const pub = platform.credentials!.publishers[0];
const put = await fetch(`${platform.url}/api/v1/publisher/postback/`, { method: 'PUT', headers: { Authorization: `Bearer ${pub.portal_token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ url: hook }) });
if (put.status !== 201) throw new Error(`postback config: ${put.status}`);
const db = await connectDatabase(uri);
const repos = createRepositories(createModels(db.connection));

let n = 0;
function conversions(count: number): { rows: ConversionRow[]; created: Map<string, number> } {
  const now = new Date();
  const created = new Map<string, number>();
  const rows = Array.from({ length: count }, () => {
    const ev = saleEvent('sale.created', now);
    created.set(ev._id, now.getTime());
    return { _id: `cnv_pb${n++}`, publisher_id: pub.account_id, program_id: 1001, campaign_id: 501, click_id: 'clk_bench', link_id: 'bench', subid: 'bench', status: 'pending', sale_amount: Decimal128.fromString('10.00'), commission: Decimal128.fromString('0.80'), currency: 'EUR', occurred_at: now, reversed: false, paid: false, source: 'v1', events: [ev], created_at: now, updated_at: now } as unknown as ConversionRow;
  });
  return { rows, created };
}

async function waitFor(count: number, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (arrivals.size < count && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

// Burst: N changes at once.
const burst = conversions(BURST);
const t0 = performance.now();
await repos.conversions.insertRows(burst.rows);
await waitFor(BURST, 120_000);
const burstSeconds = (performance.now() - t0) / 1000;
console.log(`burst: ${arrivals.size} of ${BURST} deliveries in ${burstSeconds.toFixed(1)} s = ${Math.round(arrivals.size / burstSeconds)} deliveries/s`);

// Fixed rate: RATE changes per second for SECONDS; latency from the change to arrival.
arrivals.clear();
const eventIdsByDelivery = new Map<string, number>();
const changes = new Map<string, number>();
for (let s = 0; s < SECONDS * 10; s++) {
  const batch = conversions(Math.round(RATE / 10));
  for (const [k, v] of batch.created) changes.set(k, v);
  await repos.conversions.insertRows(batch.rows);
  await new Promise((r) => setTimeout(r, 100));
}
await waitFor(changes.size, 60_000);
const models = createModels(db.connection);
for (const d of await models.PostbackDelivery.find({ event_id: { $in: [...changes.keys()] } }, { event_id: 1 }).lean()) eventIdsByDelivery.set(String(d._id), changes.get(d.event_id)!);
const latencies = [...arrivals].flatMap(([id, at]) => (eventIdsByDelivery.has(id) ? [at - eventIdsByDelivery.get(id)!] : [])).sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
console.log(`at ${RATE}/s for ${SECONDS} s: ${latencies.length} of ${changes.size} delivered; change to arrival p50 ${pct(50)} ms, p99 ${pct(99)} ms (worker interval ${values.interval} ms)`);

await db.close();
await platform.stop();
await engine.stop();
receiver.closeAllConnections();
receiver.close();
