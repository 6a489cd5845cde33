import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { Context, Middleware, Next } from 'koa';

export interface HttpMetrics {
  registry: Registry;
  middleware(service: string): Middleware;
  /** Counts one answered request (for node routes outside Koa: the tracker's redirect). */
  observe(service: string, method: string, route: string, status: number, seconds: number): void;
}

/** One registry per process; request counts and latencies labelled by service, route and status. */
export function createHttpMetrics(opts: { defaultMetrics?: boolean } = {}): HttpMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests',
    labelNames: ['service', 'method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['service', 'method', 'route'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  // A node route's label sets are few: each one's children are looked up once, not hashed per request.
  const children = new Map<string, { duration: ReturnType<typeof duration.labels>; requests: ReturnType<typeof requests.labels> }>();
  return {
    registry,
    observe: (service, method, route, status, seconds) => {
      const key = `${service} ${method} ${route} ${status}`;
      let child = children.get(key);
      if (!child) {
        if (children.size >= 1000) children.clear();
        children.set(key, (child = { duration: duration.labels(service, method, route), requests: requests.labels(service, method, route, String(status)) }));
      }
      child.duration.observe(seconds);
      child.requests.inc();
    },
    middleware: (service) => async (ctx: Context, next: Next) => {
      const end = duration.startTimer();
      try {
        await next();
      } finally {
        // The matched route pattern keeps label cardinality bounded (never the raw path).
        const route = (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
        end({ service, method: ctx.method, route: String(route) });
        requests.inc({ service, method: ctx.method, route: String(route), status: String(ctx.status) });
      }
    },
  };
}
