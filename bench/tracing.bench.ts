/**
 * Tracing off vs on, same run: search (publisher-api) and the redirect (tracker) req/s, each
 * service started from its main in a process of its own (the production shape), once without the
 * OTEL_* variables (no SDK loaded) and once exporting to a local OTLP/HTTP collector (a node:http
 * server here that counts what it receives). Rounds alternate off, on, off, on so both see the
 * same machine; the median of the rounds' on/off ratios is reported. CPU per request is the service
 * process's. Access lines are written (LOG_LEVEL=info, to /dev/null) in both.
 *   `REDIS_URL=redis://127.0.0.1:6379 npm run bench:tracing [-- --products 20000 --seconds 5 --rounds 3]`
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startPlatform } from '@cw-tools/dev-stack';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { runLoad } from './lib/run-load';
import { processCpuMicros, startEngineProcess } from './lib/engine-process';
import { startServiceProcess } from './lib/service-process';

const OPTIONS = {
  products: { type: 'string', default: '20000' },
  seconds: { type: 'string', default: '5' },
  rounds: { type: 'string', default: '3' },
  connections: { type: 'string', default: '10' },
  /** OTLP protocol of the traced services: http/protobuf (the SDK's default) or http/json. */
  protocol: { type: 'string', default: 'http/protobuf' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:tracing --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);
const LIFTED = '10000000';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

// The collector: answers every export 200 and counts requests and bytes.
const exported = { requests: 0, bytes: 0 };
const collector = http.createServer((req, res) => {
  req.on('data', (c: Buffer) => (exported.bytes += c.length));
  req.on('end', () => {
    exported.requests++;
    res.writeHead(200, { 'Content-Type': req.headers['content-type'] ?? 'application/json' }).end(req.headers['content-type']?.includes('json') ? '{}' : '');
  });
});
await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
const collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;

const engine = await startEngineProcess('bench_tracing');
const env = {
  ...process.env,
  MONGODB_URI: engine.uri,
  REDIS_URL,
  LOG_LEVEL: 'info',
  SHUTDOWN_DRAIN_MS: '0',
  RATELIMIT_PRODUCTS_PER_MIN: LIFTED,
  RATELIMIT_LINKS_PER_MIN: LIFTED,
  RATELIMIT_IP_PER_MIN: LIFTED,
};
for (const k of Object.keys(env)) if (k.startsWith('OTEL_')) delete env[k as keyof typeof env];
console.log(`seeding ${values.products} products...`);
const platform = await startPlatform({ env: { ...env, PORT: '0' }, seedProducts: Number(values.products), credentialsPath: null });
const creds = platform.credentials!;
await platform.stop();

// As the images start a service: the telemetry hook first (driver spans when tracing is on, nothing loaded when off).
const startService = (name: string, extra: Record<string, string>) =>
  startServiceProcess(name, { env: { ...env, ...extra }, imports: ['./libs/platform/telemetry/src/register.ts'], stdout: 'ignore' });

const traced = (service: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
  OTEL_EXPORTER_OTLP_PROTOCOL: values.protocol!,
  OTEL_SERVICE_NAME: service,
});
const variants = {
  off: { api: await startService('publisher-api', {}), tracker: await startService('tracker', {}) },
  on: { api: await startService('publisher-api', traced('publisher-api')), tracker: await startService('tracker', traced('tracker')) },
};

const B = '/api/v1/publisher';
const apiHeaders = { 'X-API-Key': creds.publishers[0].keys.live };
const created = await fetch(`${variants.off.api.url}${B}/links/`, {
  method: 'POST',
  headers: { ...apiHeaders, 'Content-Type': 'application/json' },
  body: JSON.stringify({ program_id: creds.fixtures.approved_program_id, subid: 'bench-tracing' }),
});
const link = (await created.json()) as { id: string };
const browser = { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0' };

const scenarios = [
  {
    name: 'search: market page',
    service: 'api' as const,
    requests: [`${B}/products/?country=DE`, `${B}/products/?country=GB&offset=40`].map((path) => ({ path, headers: apiHeaders })),
  },
  { name: 'redirect GET /c/{code}', service: 'tracker' as const, requests: [{ path: `/c/${link.id}`, headers: browser }] },
];
for (const s of scenarios)
  for (const v of ['off', 'on'] as const) {
    const r = await fetch(`${variants[v][s.service].url}${s.requests[0]!.path}`, { headers: s.requests[0]!.headers, redirect: 'manual' });
    if (r.status !== 200 && r.status !== 302) throw new Error(`${s.name} (${v}) answered ${r.status}`);
  }

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`\n${ROUNDS} rounds of ${SECONDS}s, ${CONNECTIONS} connections, tracing off vs on (${values.protocol} to a local collector)\n`);
for (const s of scenarios) {
  const rows: Record<'off' | 'on', Array<{ rps: number; p99: number; cpuUs: number }>> = { off: [], on: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const v of ['off', 'on'] as const) {
      const svc = variants[v][s.service];
      const cpu0 = processCpuMicros(svc.pid);
      const r = await runLoad({ url: svc.url, requests: s.requests, connections: CONNECTIONS, durationSeconds: SECONDS });
      const cpuUs = (processCpuMicros(svc.pid) - cpu0) / Math.max(1, r.total);
      const expected = s.service === 'tracker' ? '302' : '200';
      if (r.errors || (r.statusCounts[expected] ?? 0) < r.total * 0.99) throw new Error(`${s.name} ${v}: ${JSON.stringify(r.statusCounts)}`);
      rows[v].push({ rps: r.requestsPerSecond, p99: r.latencyP99Ms, cpuUs });
      console.log(
        `  ${s.name.padEnd(24)} round ${round + 1} tracing ${v.padEnd(3)} ${r.requestsPerSecond.toFixed(0).padStart(6)} req/s  p99 ${r.latencyP99Ms} ms  ${cpuUs.toFixed(0)} µs CPU/request`,
      );
    }
  }
  const ratios = rows.on.map((on, i) => on.rps / rows.off[i]!.rps);
  console.log(
    `${s.name}: off ${median(rows.off.map((x) => x.rps)).toFixed(0)} req/s, on ${median(rows.on.map((x) => x.rps)).toFixed(0)} req/s; on/off ${median(ratios).toFixed(3)} (median of rounds); CPU/request off ${median(rows.off.map((x) => x.cpuUs)).toFixed(0)} µs, on ${median(rows.on.map((x) => x.cpuUs)).toFixed(0)} µs\n`,
  );
}
console.log(`collector received ${exported.requests} exports, ${(exported.bytes / 1024).toFixed(0)} KiB`);

for (const v of Object.values(variants)) for (const svc of Object.values(v)) await svc.stop();
await engine.stop();
collector.close();
process.exit(0);
