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
const statusCounts: Record<string, number> = {};
const r = await new Promise<autocannon.Result>((resolve, reject) => {
  const instance = autocannon(
    {
      url: spec.url,
      connections: spec.connections,
      duration: spec.durationSeconds,
      overallRate: spec.overallRate,
      requests: spec.requests.map((req) => ({ method: 'GET' as const, path: req.path, headers: req.headers })),
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
