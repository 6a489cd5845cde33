import { collectDefaultMetrics, Registry, type Metric } from 'prom-client';
import type { Context, Middleware, Next } from 'koa';

export interface HttpMetrics {
  registry: Registry;
  middleware(service: string): Middleware;
  /** Counts one answered request (for node routes outside Koa: the tracker's redirect). */
  observe(service: string, method: string, route: string, status: number, seconds: number): void;
}

const DURATION_BOUNDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

type RouteLabels = { service: string; method: string; route: string };

/** One route's latency histogram: per bound, not cumulative; the last slot is above every bound. */
interface RouteSeries {
  labels: RouteLabels;
  count: number;
  sum: number;
  buckets: Float64Array;
}

/** One label set's request count, and its route's histogram. */
interface StatusSeries {
  labels: RouteLabels & { status: string };
  count: number;
  route: RouteSeries;
}

/**
 * `http_requests_total` and `http_request_duration_seconds`, kept per label set and given to
 * prom-client's registry as metrics of its own shape (`get()`, what it formats and serves): the
 * same series, in the same order, with the same values (sums added in the same order) as its
 * Counter and Histogram would give for the same requests (metrics.test.ts compares them). Why not
 * those: they hash the labels on every call, even on a labelled child, a visible part of each
 * redirect (bench/README.md, the redirect); here a request costs one map lookup.
 */
class HttpSeries {
  private readonly statuses = new Map<string, StatusSeries>();
  private readonly routes = new Map<string, RouteSeries>();

  observe(service: string, method: string, route: string, status: string, seconds: number): void {
    const key = `${service} ${method} ${route} ${status}`;
    let s = this.statuses.get(key);
    if (!s) this.statuses.set(key, (s = { labels: { service, method, route, status }, count: 0, route: this.route(service, method, route) }));
    s.count++;
    // A time that is not a number (never from a clock) is counted as a request, not timed.
    if (!Number.isFinite(seconds)) return;
    const r = s.route;
    let i = 0;
    while (i < DURATION_BOUNDS.length && seconds > DURATION_BOUNDS[i]!) i++;
    r.buckets[i]!++;
    r.sum += seconds;
    r.count++;
  }

  private route(service: string, method: string, route: string): RouteSeries {
    const key = `${service} ${method} ${route}`;
    let r = this.routes.get(key);
    if (!r) this.routes.set(key, (r = { labels: { service, method, route }, count: 0, sum: 0, buckets: new Float64Array(DURATION_BOUNDS.length + 1) }));
    return r;
  }

  /** prom-client's Counter of requests, by service, method, route and status. */
  readonly requests = this.metric('http_requests_total', 'HTTP requests', 'counter', () =>
    [...this.statuses.values()].map((s) => ({ labels: s.labels, value: s.count })),
  );

  /** prom-client's Histogram of durations, by service, method and route. */
  readonly duration = this.metric('http_request_duration_seconds', 'HTTP request duration', 'histogram', () =>
    [...this.routes.values()].flatMap((r) => {
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
    }),
  );

  private metric(name: string, help: string, type: 'counter' | 'histogram', values: () => unknown[]): Metric {
    const metric = {
      name,
      help,
      type,
      aggregator: 'sum',
      // The registry's name (it renames counters for OpenMetrics), not the one given here.
      get: async () => ({ name: metric.name, help, type, aggregator: 'sum', values: values() }),
      reset: () => {
        this.statuses.clear();
        this.routes.clear();
      },
    };
    return metric as unknown as Metric;
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
