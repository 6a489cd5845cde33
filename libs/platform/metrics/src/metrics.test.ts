/**
 * The HTTP metrics give the registry exactly what prom-client's own Counter and Histogram would for
 * the same requests (the oracle: those, fed the same observations), in the text format and as JSON.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createHttpMetrics } from './metrics';

/** The registry's lines of the two HTTP metrics (the process's default metrics aside). */
const httpLines = async (registry: Registry) =>
  (await registry.metrics())
    .split('\n')
    .filter((l) => l.includes('http_request'))
    .join('\n');

function oracle() {
  const registry = new Registry();
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
  return {
    registry,
    observe(service: string, method: string, route: string, status: number, seconds: number) {
      duration.observe({ service, method, route }, seconds);
      requests.inc({ service, method, route, status: String(status) });
    },
  };
}

describe('HTTP metrics', () => {
  it("serve the same series and values as prom-client's Counter and Histogram for the same requests", async () => {
    const metrics = createHttpMetrics({ defaultMetrics: false });
    const expected = oracle();
    // Every bucket, its bounds exactly, above the last, several statuses of one route, two services.
    const durations = [0, 0.0005, 0.001, 0.0011, 0.005, 0.007, 0.01, 0.02, 0.025, 0.04, 0.05, 0.1, 0.2, 0.25, 0.4, 0.5, 0.9, 1, 2, 2.5, 3, 60];
    durations.forEach((s, i) => {
      for (const [service, method, route, status] of [
        ['tracker', 'GET', '/c/:code', 302],
        ['tracker', i % 2 ? 'HEAD' : 'GET', '/c/:code', 302],
        ['publisher-api', 'GET', '/api/v1/clicks/', [200, 400, 429][i % 3]!],
      ] as const) {
        metrics.observe(service, method, route, status, s);
        expected.observe(service, method, route, status, s);
      }
    });
    // Durations whose sum depends on the order they are added in, across a route's statuses.
    for (let i = 0; i < 300; i++) {
      const s = ((i * 7919) % 997) / 3001 + i * 1.3e-7;
      metrics.observe('tracker', 'GET', '/c/:code', [302, 404, 429][i % 3]!, s);
      expected.observe('tracker', 'GET', '/c/:code', [302, 404, 429][i % 3]!, s);
    }
    expect(await httpLines(metrics.registry)).toEqual(await httpLines(expected.registry));
    const json = async (r: Registry) =>
      (await r.getMetricsAsJSON())
        .filter((m) => m.name.startsWith('http_request'))
        .map((m) => ({ ...m, values: m.values.map((v) => ({ labels: v.labels, value: v.value, metricName: (v as { metricName?: string }).metricName })) }));
    expect(await json(metrics.registry)).toEqual(await json(expected.registry));
    // In the OpenMetrics format too (counters named without their _total, series with it).
    metrics.registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE as never);
    expected.registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE as never);
    expect(await httpLines(metrics.registry)).toEqual(await httpLines(expected.registry));
    // Before any request: the names are known, with no series.
    const empty = createHttpMetrics({ defaultMetrics: false });
    expect(await httpLines(empty.registry)).toEqual(await httpLines(oracle().registry));
  });

  it("count a Koa app's requests by its matched route and status, and time them", async () => {
    const metrics = createHttpMetrics({ defaultMetrics: false });
    const app = new Koa();
    app.use(metrics.middleware('portal'));
    app.use(async (ctx) => {
      (ctx as Koa.Context & { _matchedRoute?: string })._matchedRoute = ctx.path.startsWith('/a') ? '/a/:id' : undefined;
      await new Promise((r) => setTimeout(r, ctx.path === '/a/slow' ? 30 : 0));
      ctx.status = ctx.path === '/a/missing' ? 404 : 200;
      ctx.body = 'ok';
    });
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const path of ['/a/1', '/a/2', '/a/slow', '/a/missing', '/elsewhere']) await (await fetch(base + path)).text();
    server.close();
    const text = await metrics.registry.metrics();
    expect(text).toContain('http_requests_total{service="portal",method="GET",route="/a/:id",status="200"} 3');
    expect(text).toContain('http_requests_total{service="portal",method="GET",route="/a/:id",status="404"} 1');
    expect(text).toContain('http_requests_total{service="portal",method="GET",route="unmatched",status="200"} 1');
    expect(text).toContain('http_request_duration_seconds_count{service="portal",method="GET",route="/a/:id"} 4');
    // The slow request took at least 30 ms: above the 25 ms bound; all four within the last one.
    const bucket = (le: string) =>
      Number(new RegExp(`http_request_duration_seconds_bucket\\{le="${le}",service="portal",method="GET",route="/a/:id"\\} (\\d+)`).exec(text)?.[1]);
    expect(bucket('0.025')).toBeLessThanOrEqual(3);
    expect(bucket('2.5')).toBe(4);
    const sum = Number(/http_request_duration_seconds_sum\{service="portal",method="GET",route="\/a\/:id"\} ([0-9.e-]+)/.exec(text)?.[1]);
    expect(sum).toBeGreaterThanOrEqual(0.03);
  });
});
