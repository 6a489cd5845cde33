import { collectDefaultMetrics, Registry, type Metric } from 'prom-client';
import type { Context, Middleware, Next } from 'koa';

export interface HttpMetrics {
  registry: Registry;
  middleware(service: string): Middleware;
  /** Counts one answered request (for node routes outside Koa: the tracker's redirect). */
  observe(service: string, method: string, route: string, status: number, seconds: number): void;
}

const DURATION_BOUNDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** One label set's request count and latency histogram (per bound, not cumulative; the last slot is above every bound). */
interface Series {
  service: string;
  method: string;
  route: string;
  status: string;
  count: number;
  sum: number;
  buckets: Float64Array;
}

/**
 * `http_requests_total` and `http_request_duration_seconds`, kept per label set and given to
 * prom-client's registry as metrics of its own shape (`get()`, what it formats and serves): the
 * same series, names and values as its Counter and Histogram would give for the same requests
 * (metrics.test.ts compares them). Why not those: they hash the labels on every call, even on a
 * labelled child, which was 1.3-2.5 µs of each redirect; here a request costs one map lookup.
 */
class HttpSeries {
  private readonly series = new Map<string, Series>();

  observe(service: string, method: string, route: string, status: string, seconds: number): void {
    const key = `${service} ${method} ${route} ${status}`;
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { service, method, route, status, count: 0, sum: 0, buckets: new Float64Array(DURATION_BOUNDS.length + 1) }));
    let i = 0;
    while (i < DURATION_BOUNDS.length && seconds > DURATION_BOUNDS[i]!) i++;
    s.buckets[i]!++;
    s.sum += seconds;
    s.count++;
  }

  /** prom-client's Counter of requests, by service, method, route and status. */
  readonly requests = this.metric('http_requests_total', 'HTTP requests', 'counter', () =>
    [...this.series.values()].map((s) => ({ labels: { service: s.service, method: s.method, route: s.route, status: s.status }, value: s.count })),
  );

  /** prom-client's Histogram of durations, by service, method and route (statuses summed). */
  readonly duration = this.metric('http_request_duration_seconds', 'HTTP request duration', 'histogram', () => {
    const byRoute = new Map<string, { labels: { service: string; method: string; route: string }; count: number; sum: number; buckets: Float64Array }>();
    for (const s of this.series.values()) {
      const key = `${s.service} ${s.method} ${s.route}`;
      let r = byRoute.get(key);
      if (!r)
        byRoute.set(
          key,
          (r = { labels: { service: s.service, method: s.method, route: s.route }, count: 0, sum: 0, buckets: new Float64Array(s.buckets.length) }),
        );
      r.count += s.count;
      r.sum += s.sum;
      s.buckets.forEach((n, i) => (r.buckets[i]! += n));
    }
    return [...byRoute.values()].flatMap((r) => {
      let below = 0;
      return [
        ...DURATION_BOUNDS.map((le, i) => ({
          labels: { le, ...r.labels },
          value: (below += r.buckets[i]!),
          metricName: 'http_request_duration_seconds_bucket',
        })),
        { labels: { le: '+Inf', ...r.labels }, value: r.count, metricName: 'http_request_duration_seconds_bucket' },
        { labels: r.labels, value: r.sum, metricName: 'http_request_duration_seconds_sum' },
        { labels: r.labels, value: r.count, metricName: 'http_request_duration_seconds_count' },
      ];
    });
  });

  private metric(name: string, help: string, type: 'counter' | 'histogram', values: () => unknown[]): Metric {
    return {
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
      reset: () => this.series.clear(),
    } as unknown as Metric;
  }
}

/** One registry per process; request counts and latencies labelled by service, route and status. */
export function createHttpMetrics(opts: { defaultMetrics?: boolean } = {}): HttpMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const http = new HttpSeries();
  registry.registerMetric(http.requests);
  registry.registerMetric(http.duration);
  return {
    registry,
    observe: (service, method, route, status, seconds) => http.observe(service, method, route, String(status), seconds),
    middleware: (service) => async (ctx: Context, next: Next) => {
      const started = process.hrtime.bigint();
      try {
        await next();
      } finally {
        // The matched route pattern keeps label cardinality bounded (never the raw path).
        const route = (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
        http.observe(service, ctx.method, String(route), String(ctx.status), Number(process.hrtime.bigint() - started) / 1e9);
      }
    },
  };
}
