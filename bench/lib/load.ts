/**
 * Load generator, run as its own process so it does not share the server's event loop:
 * `tsx bench/lib/load.ts '<json LoadSpec>'` prints one JSON LoadResult line.
 */
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  /** Requests cycled by every connection (path + headers). */
  requests: Array<{ path: string; headers?: Record<string, string> }>;
  connections: number;
  durationSeconds: number;
  /** Fixed offered load (requests/s over all connections); omitted = as fast as possible. */
  overallRate?: number;
  /**
   * Makes every request a page nobody asked for: `&{param}=` a value no other request of the run
   * had. Without `pool`, a decimal counter (0.0001, 0.0002, …); with it, `pick` members of the pool
   * in a new combination each time (comma-separated).
   */
  distinct?: { param: string; pool?: string[]; pick?: number };
}

export interface LoadResult {
  requestsPerSecond: number;
  latencyMeanMs: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  total: number;
  non2xx: number;
  errors: number;
  statusCounts: Record<string, number>;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
let issued = 0;
/** The n-th distinct value: a counter, or a combination of the pool no earlier request used. */
function distinctValue(d: NonNullable<LoadSpec['distinct']>, n: number): string {
  if (!d.pool) return (n / 10_000).toFixed(4);
  // An arithmetic progression through the pool: start n mod P, a step coprime to P, so `pick`
  // distinct members, and P x (steps) different lists before one comes back.
  const pool = d.pool;
  const size = pool.length;
  const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
  let step = 1 + (Math.floor(n / size) % Math.max(1, size - 1));
  while (gcd(step, size) !== 1) step++;
  return Array.from({ length: Math.min(d.pick ?? 1, size) }, (_, j) => pool[(n + j * step) % size]).join(',');
}
const setupRequest = spec.distinct
  ? (req: { path?: string }) => ({ ...req, path: `${req.path}&${spec.distinct!.param}=${distinctValue(spec.distinct!, ++issued)}` })
  : undefined;
const statusCounts: Record<string, number> = {};
const r = await new Promise<autocannon.Result>((resolve, reject) => {
  const instance = autocannon(
    {
      url: spec.url,
      connections: spec.connections,
      duration: spec.durationSeconds,
      overallRate: spec.overallRate,
      requests: spec.requests.map((req) => ({ method: 'GET' as const, path: req.path, headers: req.headers, ...(setupRequest ? { setupRequest } : {}) })),
    },
    (err, result) => (err ? reject(err) : resolve(result)),
  );
  instance.on('response', (_client, statusCode) => {
    statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
  });
});
const result: LoadResult = {
  requestsPerSecond: r.requests.average,
  latencyMeanMs: r.latency.average,
  latencyP50Ms: r.latency.p50,
  latencyP99Ms: r.latency.p99,
  total: r.requests.total,
  non2xx: r.non2xx,
  errors: r.errors,
  statusCounts,
};
console.log(JSON.stringify(result));
