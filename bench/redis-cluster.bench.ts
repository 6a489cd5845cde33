/**
 * The rate limiter and the access stamp on a Redis Cluster vs one Redis server, and a failover.
 *   1. Two one-process platforms on one database: A with REDIS_URL (one redis-server of this run's
 *      own), B with REDIS_CLUSTER_NODES (a six-node cluster of this run's own). Search (a market
 *      page, and distinct pages no cache answers), alternating A B A B; req/s and p99 of each, and
 *      the median ratio B/A. Every search consumes the limiter and reads the stamp in Redis.
 *   2. Failover: steady search load on B, then the primary serving the access keys' slot is
 *      SIGKILLed; the time from the kill to the first 503 and to the first 200 after it, and the
 *      statuses meanwhile (only 200 and 503 expected). The cluster's node timeout sets the floor:
 *      `--node-timeout` (ms, default 1000 here; Redis's default is 15000).
 * `npm run bench:cluster [-- --products 20000 --seconds 5 --rounds 3 --node-timeout 1000]`
 */
import { startPlatform, type Platform } from '@cw-tools/dev-stack';
import { freePort, startRedisCluster, startRedisServer } from '@cw-tools/testing';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { formatResult, runLoad } from './lib/run-load';
import type { LoadResult, LoadSpec } from './lib/load';

const OPTIONS = {
  products: { type: 'string', default: '20000' },
  seconds: { type: 'string', default: '5' },
  rounds: { type: 'string', default: '3' },
  connections: { type: 'string', default: '10' },
  'node-timeout': { type: 'string', default: '1000' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:cluster --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const LIFTED = '10000000';
const B = '/api/v1/publisher';

const single = await startRedisServer({ port: await freePort() });
const cluster = await startRedisCluster({ nodeTimeoutMs: Number(values['node-timeout']) });
const env: Record<string, string | undefined> = {
  ...process.env,
  LOG_LEVEL: 'warn',
  RATELIMIT_PRODUCTS_PER_MIN: LIFTED,
  RATELIMIT_LINKS_PER_MIN: LIFTED,
  RATELIMIT_IP_PER_MIN: LIFTED,
  RATELIMIT_ACCOUNT_PER_MIN: LIFTED,
};
delete env.REDIS_URL;
delete env.REDIS_CLUSTER_NODES;
console.log(`seeding ${values.products} products...`);
const onSingle: Platform = await startPlatform({
  env: { ...env, PORT: String(await freePort()), REDIS_URL: single.url },
  seedProducts: Number(values.products),
  credentialsPath: null,
});
const onCluster: Platform = await startPlatform({
  env: { ...env, PORT: String(await freePort()), MONGODB_URI: onSingle.mongoUri, REDIS_CLUSTER_NODES: cluster.nodes.join(',') },
  credentialsPath: null,
});
const headers = { 'X-API-Key': onSingle.credentials!.publishers[0].keys.live };

interface Scenario {
  name: string;
  paths: string[];
  distinct?: LoadSpec['distinct'];
}
const scenarios: Scenario[] = [
  { name: 'search: market page', paths: [`${B}/products/?country=DE`, `${B}/products/?country=GB&offset=40`] },
  { name: 'search: distinct pages', paths: [`${B}/products/?country=DE&currency=EUR`], distinct: { param: 'min_price' } },
];
for (const p of [onSingle, onCluster]) {
  const res = await fetch(`${p.url}${scenarios[0]!.paths[0]}`, { headers });
  if (res.status !== 200) throw new Error(`${p.url} answered ${res.status}: ${await res.text()}`);
}

const load = (url: string, s: Scenario): Promise<LoadResult> =>
  runLoad({
    url,
    requests: s.paths.map((path) => ({ path, headers })),
    connections: Number(values.connections),
    durationSeconds: SECONDS,
    distinct: s.distinct,
  });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(
  `\n${values.products} products, ${values.connections} connections, ${SECONDS} s per run, ${ROUNDS} rounds A B (A: one Redis, B: Redis Cluster of 3 primaries + 3 replicas)\n`,
);
for (const s of scenarios) {
  const ratios: number[] = [];
  const p99: Array<[number, number]> = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const a = await load(onSingle.url, s);
    const b = await load(onCluster.url, s);
    console.log(formatResult(`${s.name} [one Redis]`, a));
    console.log(formatResult(`${s.name} [cluster]`, b));
    ratios.push(b.requestsPerSecond / a.requestsPerSecond);
    p99.push([a.latencyP99Ms, b.latencyP99Ms]);
  }
  console.log(
    `=> ${s.name}: cluster/one Redis req/s median ${(median(ratios) * 100).toFixed(1)}% (rounds: ${ratios.map((r) => `${(r * 100).toFixed(1)}%`).join(', ')}); p99 one Redis ${p99.map((x) => x[0]).join('/')} ms, cluster ${p99.map((x) => x[1]).join('/')} ms\n`,
  );
}

// Failover: sequential requests from 4 loops, each status timed against the kill.
console.log(`failover (cluster node timeout ${values['node-timeout']} ms): the primary of the access keys' slot SIGKILLed under search load`);
let killedAt = 0;
let stop = false;
const seen: Array<{ at: number; status: number }> = [];
const loops = Array.from({ length: 4 }, async () => {
  while (!stop) {
    const status = await fetch(`${onCluster.url}${scenarios[0]!.paths[0]}`, { headers, signal: AbortSignal.timeout(5_000) }).then(
      async (r) => (await r.arrayBuffer(), r.status),
      () => 0,
    );
    seen.push({ at: performance.now(), status });
  }
});
await new Promise((r) => setTimeout(r, 1_000));
killedAt = performance.now();
const port = await cluster.killPrimaryOf('{access}');
for (let i = 0; i < 600; i++) {
  await new Promise((r) => setTimeout(r, 100));
  const after = seen.filter((s) => s.at > killedAt);
  const firstBad = after.findIndex((s) => s.status !== 200);
  if (firstBad >= 0 && after.slice(firstBad).some((s) => s.status === 200) && performance.now() - killedAt > 2_000) break;
}
await new Promise((r) => setTimeout(r, 1_000));
stop = true;
await Promise.all(loops);
const after = seen.filter((s) => s.at > killedAt);
const firstBad = after.find((s) => s.status !== 200);
const recovered = firstBad && after.find((s) => s.at > firstBad.at && s.status === 200);
const counts = after.reduce<Record<string, number>>((m, s) => ((m[s.status] = (m[s.status] ?? 0) + 1), m), {});
console.log(`  killed the primary on port ${port}`);
console.log(`  first non-200 after the kill: ${firstBad ? `${(firstBad.at - killedAt).toFixed(0)} ms (${firstBad.status})` : 'none'}`);
console.log(`  first 200 again: ${recovered ? `${(recovered.at - killedAt).toFixed(0)} ms after the kill` : firstBad ? 'never' : 'no interruption'}`);
console.log(
  `  statuses after the kill: ${Object.entries(counts)
    .map(([k, v]) => `${k}:${v}`)
    .join(' ')}`,
);

await onCluster.stop();
await onSingle.stop();
await cluster.stop();
await single.stop();
process.exit(0);
