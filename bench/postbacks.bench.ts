/**
 * Postback delivery at scale, with the worker as real processes (apps/postback-worker) on one
 * database (the engine in its own process by default), the per-configuration cap in Redis, and a
 * local receiver per publisher path:
 *
 * 1. Burst: N conversion changes at once (healthy receivers), delivered by 1 worker process, then by
 *    2: deliveries/s each (target: 1 worker >= 500/s, 2 workers >= 1.6x one).
 * 2. Steady: R changes/s for S seconds over P publishers, a share of them hanging until the 10 s
 *    timeout, 2 worker processes: p50/p99 from the change to arrival for the healthy publishers
 *    (target p99 < 1 s); every second the jobs collection's size, one due-jobs poll (Agenda's own
 *    query) and one due-retries claim query.
 * 3. Failing: F failed deliveries with their retries scheduled (slot jobs): the time of one retry
 *    save and one due-jobs poll, at 100 and at F (target: the same order).
 *
 * `npm run bench:postbacks [-- --burst 2000 --rate 200 --seconds 30 --publishers 50 --hanging 0.1 --failing 100000 --engine child]`
 */
import http from 'node:http';
import { once } from 'node:events';
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Decimal128 } from 'bson';
import { Agenda } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import { saleEvent } from '@cw/conversions';
import { loadConfig } from '@cw/config';
import { connectDatabase, migrateIndexes } from '@cw/db';
import type { ConversionRow } from '@cw/conversions';
import { openPlatformData } from '@cw/runtime';
import { newSigningSecret, seal } from '@cw/postbacks';
import { startEmbeddedMongo } from '@cw-tools/embedded-mongo';
import { startEngineProcess } from './lib/engine-process';
import { freePort } from '@cw-tools/testing';
import { MALLOC_ENV } from './lib/malloc-env';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { RETRY_JOB, retryScheduler } from '@cw/app-postback-worker';

const OPTIONS = {
  burst: { type: 'string', default: '2000' },
  rate: { type: 'string', default: '200' },
  seconds: { type: 'string', default: '30' },
  publishers: { type: 'string', default: '50' },
  hanging: { type: 'string', default: '0.1' },
  failing: { type: 'string', default: '100000' },
  poll: { type: 'string', default: '50' },
  /** Worker processes in part 2. */
  'steady-workers': { type: 'string', default: '2' },
  /** Which parts to run: burst, steady, failing (comma-separated). */
  only: { type: 'string', default: 'burst,steady,failing' },
  /** `child`: the engine in its own process (as MongoDB would be). */
  engine: { type: 'string', default: 'child' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:postbacks --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const BURST = Number(values.burst);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const PUBLISHERS = Number(values.publishers);
const HANGING = Math.round(PUBLISHERS * Number(values.hanging));
const FAILING = Number(values.failing);
const PARTS = new Set(values.only.split(','));

// The engine.
let uri: string;
let stopEngine: () => Promise<unknown>;
if (values.engine === 'child') {
  const engine = await startEngineProcess('bench_postbacks');
  uri = engine.uri;
  stopEngine = engine.stop;
} else {
  const engine = await startEmbeddedMongo();
  uri = `${engine.uri}/bench_postbacks`;
  stopEngine = () => engine.stop();
}
console.log(`engine ${values.engine === 'child' ? 'in a child process' : 'in this process'}; ${PUBLISHERS} publishers, ${HANGING} of them hanging in part 2`);

// The receiver: /hook/<publisher>; a hanging publisher's requests are never answered.
const hanging = new Set(Array.from({ length: HANGING }, (_, i) => `pub_bench${i}`));
let hangingOn = false;
/** How long a healthy receiver takes to answer. */
let answerDelayMs = 0;
const arrivals = new Map<string, number>();
const receiver = http.createServer((req, res) => {
  const pub = req.url!.split('/')[2];
  req.resume();
  req.on('end', () => {
    if (hangingOn && hanging.has(pub)) return;
    arrivals.set(String(req.headers['x-cw-delivery']), Date.now());
    if (answerDelayMs) setTimeout(() => res.writeHead(204).end(), answerDelayMs);
    else res.writeHead(204).end();
  });
});
receiver.keepAliveTimeout = 60_000;
await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
const hookBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const config = loadConfig({ NODE_ENV: 'development' }, { port: 0 });
const db = await connectDatabase(uri);
const { models, data } = openPlatformData(db.connection);
await migrateIndexes(models);
const now0 = new Date();
const publishers = Array.from({ length: PUBLISHERS }, (_, i) => `pub_bench${i}`);
await models.PostbackConfig.insertMany(
  publishers.map((p) => {
    const secret = newSigningSecret();
    return {
      _id: p,
      url: `${hookBase}/${p}`,
      http_method: 'POST',
      event_types: ['sale.created', 'sale.approved', 'sale.declined', 'sale.reversed'],
      active: true,
      secret: seal(config.keys, secret),
      secret_prefix: secret.slice(0, 12),
      created_at: now0,
      updated_at: now0,
    };
  }),
);

// Conversions as the lifecycle writes a new sale: its event pushed, flagged for the events log (the postbacks read it there).
let n = 0;
const eventTimes = new Map<string, { at: number; publisher: string }>();
function conversions(count: number, pick: (i: number) => string): ConversionRow[] {
  const now = new Date();
  return Array.from({ length: count }, (_, i) => {
    const publisher = pick(i);
    const ev = saleEvent('sale.created', now);
    eventTimes.set(ev._id, { at: now.getTime(), publisher });
    return {
      _id: `cnv_pb${n++}`,
      publisher_id: publisher,
      program_id: 1001,
      campaign_id: 501,
      click_id: 'clk_bench',
      link_id: 'bench',
      subid: 'bench',
      status: 'pending',
      sale_amount: Decimal128.fromString('10.00'),
      commission: Decimal128.fromString('0.80'),
      currency: 'EUR',
      occurred_at: now,
      reversed: false,
      paid: false,
      source: 'v1',
      events: [ev],
      log_pending: true,
      created_at: now,
      updated_at: now,
    } as unknown as ConversionRow;
  });
}

// Worker processes.
// The per-configuration cap is held in Redis (REDIS_URL, the local one by default), across the workers.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
async function startWorkers(count: number, env: Record<string, string> = {}): Promise<ChildProcess[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const port = await freePort();
      const child = spawn(process.execPath, ['--import', 'tsx', 'apps/postback-worker/src/main.ts'], {
        env: {
          ...MALLOC_ENV,
          ...process.env,
          NODE_ENV: 'development',
          MONGODB_URI: uri,
          PORT: String(port),
          LOG_LEVEL: 'error',
          REDIS_URL,
          WORKER_POLL_MS: values.poll,
          ...env,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      for (let i = 0; i < 300; i++) {
        const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok) return child;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('a worker did not become ready');
    }),
  );
}
async function stopWorkers(children: ChildProcess[]) {
  await Promise.all(children.map((c) => (c.exitCode === null ? (c.kill('SIGTERM'), once(c, 'exit')) : undefined)));
}
async function waitFor(count: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!count() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}
const createdAt = new Map<string, number>();
const deliveryIdsOf = async (eventIds: string[]) =>
  new Map(
    (await models.PostbackDelivery.find({ event_id: { $in: eventIds } }, { event_id: 1, created_at: 1 }).lean()).map((d) => {
      createdAt.set(String(d._id), d.created_at.getTime());
      return [String(d._id), d.event_id];
    }),
  );
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

// 1. Burst, one worker then two: receivers answering at once (CPU-bound on this machine), then
// receivers taking 100 ms with 16 attempts in flight per worker (bound by each worker's slots).
const healthy = publishers.filter((p) => !hanging.has(p));
const SCENARIOS: Array<{ name: string; delay: number; env: Record<string, string> }> = [
  { name: 'receivers answer at once', delay: 0, env: {} },
  { name: 'receivers answer in 100 ms, 16 attempts in flight per worker', delay: 100, env: { POSTBACK_CONCURRENCY: '16' } },
];
for (const scenario of PARTS.has('burst') ? SCENARIOS : []) {
  const rates: number[] = [];
  answerDelayMs = scenario.delay;
  for (const count of [1, 2]) {
    const workers = await startWorkers(count, scenario.env);
    arrivals.clear();
    const rows = conversions(BURST, (i) => healthy[i % healthy.length]);
    const t0 = performance.now();
    await data.conversions.insertRows(rows);
    await waitFor(() => arrivals.size >= BURST, 300_000);
    const s = (performance.now() - t0) / 1000;
    rates.push(arrivals.size / s);
    console.log(
      `burst (${scenario.name}), ${count} worker process${count > 1 ? 'es' : ''}: ${arrivals.size} of ${BURST} in ${s.toFixed(2)} s = ${Math.round(arrivals.size / s)} deliveries/s`,
    );
    await stopWorkers(workers);
  }
  console.log(`  2 workers / 1 worker: ${(rates[1] / rates[0]).toFixed(2)}x`);
}
answerDelayMs = 0;

// 2. Steady rate with hanging receivers, two workers; sampling the jobs collection every second.
const jobs = db.connection.db!.collection('jobs');
const agendaRepo = new MongoBackend({ mongo: db.connection.db!, collection: 'jobs', ensureIndex: false }).repository;
await agendaRepo.connect();
async function timed<T>(fn: () => Promise<T>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}
/** Agenda's own lookup of the next due retry job, at a time nothing is due (so it locks nothing). */
const duePoll = () => timed(() => agendaRepo.getNextJobToRun(RETRY_JOB, new Date(0), new Date(0), new Date(), {}));
/** The dispatcher's due-retries candidates query. */
const claimQuery = () =>
  timed(() =>
    models.PostbackDelivery.find({ status: 'failed', next_attempt_at: { $lte: new Date() } }, { _id: 1, publisher_id: 1 })
      .sort({ next_attempt_at: 1 })
      .limit(512)
      .lean(),
  );

if (PARTS.has('steady')) {
  hangingOn = true;
  arrivals.clear();
  eventTimes.clear();
  const steadyWorkers = await startWorkers(Number(values['steady-workers']));
  const samples: Array<{ jobs: number; poll: number; claim: number }> = [];
  const sampler = setInterval(() => {
    void (async () => samples.push({ jobs: await jobs.countDocuments({}), poll: await duePoll(), claim: await claimQuery() }))();
  }, 1000);
  const perTick = RATE / 10;
  let carry = 0;
  async function load(seconds: number) {
    for (let t = 0; t < seconds * 10; t++) {
      const started = Date.now();
      carry += perTick;
      const k = Math.floor(carry);
      carry -= k;
      await data.conversions.insertRows(conversions(k, () => publishers[Math.floor(Math.random() * publishers.length)]));
      await new Promise((r) => setTimeout(r, Math.max(0, 100 - (Date.now() - started))));
    }
  }
  // Warm-up at the same rate (fresh processes: JIT, connections to every receiver), not measured.
  await load(5);
  eventTimes.clear();
  samples.length = 0;
  await load(SECONDS);
  const healthyEvents = [...eventTimes].filter(([, e]) => !hanging.has(e.publisher));
  // Until every healthy event has its delivery and every one arrived (at most 30 s after the last change).
  let byDelivery = new Map<string, string>();
  const settle = Date.now() + 30_000;
  while (Date.now() < settle) {
    byDelivery = await deliveryIdsOf(healthyEvents.map(([id]) => id));
    if (byDelivery.size === healthyEvents.length && [...byDelivery.keys()].every((d) => arrivals.has(d))) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  clearInterval(sampler);
  const latencies = [...byDelivery].flatMap(([d, ev]) => (arrivals.has(d) ? [arrivals.get(d)! - eventTimes.get(ev)!.at] : [])).sort((a, b) => a - b);
  const pumped = [...byDelivery].map(([d, ev]) => createdAt.get(d)! - eventTimes.get(ev)!.at).sort((a, b) => a - b);
  console.log(
    `steady ${RATE}/s for ${SECONDS} s after 5 s of warm-up, ${HANGING} of ${PUBLISHERS} receivers hanging, ${values['steady-workers']} workers: healthy ${latencies.length} of ${healthyEvents.length} delivered; change to arrival p50 ${pct(latencies, 50)} ms, p99 ${pct(latencies, 99)} ms, max ${latencies.at(-1)} ms (change to delivery created: p50 ${pct(pumped, 50)} ms, p99 ${pct(pumped, 99)} ms)`,
  );
  const paused = await models.PostbackConfig.countDocuments({ paused_until: { $gt: new Date() } });
  const hangingStates = await models.PostbackDelivery.aggregate<{ _id: string; n: number }>([
    { $match: { publisher_id: { $in: [...hanging] } } },
    { $group: { _id: '$status', n: { $sum: 1 } } },
  ]);
  console.log(`  hanging receivers: ${paused} paused by the breaker at the end; their deliveries ${hangingStates.map((s) => `${s._id} ${s.n}`).join(', ')}`);
  const sorted = (k: 'poll' | 'claim') => samples.map((s) => s[k]).sort((a, b) => a - b);
  console.log(
    `  jobs collection during it: ${Math.min(...samples.map((s) => s.jobs))}-${Math.max(...samples.map((s) => s.jobs))} documents; due-jobs poll p50 ${pct(sorted('poll'), 50).toFixed(2)} ms, max ${sorted('poll').at(-1)!.toFixed(2)} ms; due-retries query p50 ${pct(sorted('claim'), 50).toFixed(2)} ms, max ${sorted('claim').at(-1)!.toFixed(2)} ms`,
  );
  await stopWorkers(steadyWorkers);
}

// 3. Failing deliveries with their retries scheduled: one save and one poll at 100 and at FAILING.
const agenda = PARTS.has('failing')
  ? new Agenda({ backend: new MongoBackend({ mongo: db.connection.db!, collection: 'jobs', ensureIndex: false }) })
  : undefined;
if (agenda)
  for (const count of [100, FAILING]) {
    await jobs.deleteMany({ name: RETRY_JOB });
    await models.PostbackDelivery.deleteMany({ status: 'failed' });
    const schedule = retryScheduler(agenda);
    const start = Date.now();
    const t0 = performance.now();
    for (let i = 0; i < count; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, count - i) }, (_, j) => {
        const attempt = 2 + ((i + j) % 7);
        const at = new Date(start + 60_000 * 4 ** (attempt - 2) * (0.9 + 0.2 * Math.random()));
        return {
          _id: `dlv_f${i + j}`,
          publisher_id: publishers[(i + j) % PUBLISHERS],
          event_id: `evt_f${i + j}`,
          event: 'sale.created',
          body: '{}',
          status: 'failed',
          attempts: attempt - 1,
          next_attempt_at: at,
          created_at: new Date(),
          updated_at: new Date(),
        };
      });
      await models.PostbackDelivery.insertMany(batch, { lean: true });
      for (const d of batch) await schedule(d.next_attempt_at);
    }
    const scheduled = (performance.now() - t0) / 1000;
    const liveJobs = await jobs.countDocuments({ name: RETRY_JOB });
    const saves: number[] = [];
    const polls: number[] = [];
    const claims: number[] = [];
    for (let i = 0; i < 50; i++) {
      // A save that creates a job (a fresh scheduler, a slot no job has yet).
      saves.push(await timed(() => retryScheduler(agenda)(new Date(Date.now() + 30 * 86_400_000 + i * 1000))));
      polls.push(await duePoll());
      claims.push(await claimQuery());
    }
    for (const xs of [saves, polls, claims]) xs.sort((a, b) => a - b);
    console.log(
      `failing ${count}: scheduled in ${scheduled.toFixed(1)} s, ${liveJobs} live retry jobs; one retry save p50 ${pct(saves, 50).toFixed(2)} ms (p99 ${pct(saves, 99).toFixed(2)}), one due-jobs poll p50 ${pct(polls, 50).toFixed(2)} ms (p99 ${pct(polls, 99).toFixed(2)}), due-retries query p50 ${pct(claims, 50).toFixed(2)} ms`,
    );
  }

await db.close();
receiver.closeAllConnections();
receiver.close();
await stopEngine();
process.exit(0);
