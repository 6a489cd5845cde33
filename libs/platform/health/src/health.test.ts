import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry, Counter } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withProbes } from './health';

let server: http.Server;
let base: string;
let database = true;
let draining = false;
let appCalls = 0;
const TOKEN = 'scraper-token-0123456789abcdef';

beforeAll(async () => {
  const registry = new Registry();
  new Counter({ name: 'probe_test_total', help: 'a metric', registers: [registry] }).inc();
  const app: http.RequestListener = (_req, res) => {
    appCalls++;
    res.writeHead(429).end();
  };
  server = http.createServer(
    withProbes(app, {
      checks: [
        {
          name: 'mongodb',
          check: async () => {
            if (!database) throw new Error('down');
          },
        },
      ],
      registry,
      metricsToken: TOKEN,
      draining: () => draining,
      requestId: () => 'req_probe',
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, { headers });
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type'), nosniff: res.headers.get('x-content-type-options') };
};
const scraper = { Authorization: `Bearer ${TOKEN}` };

describe('probes in front of the app', () => {
  it('answer liveness, readiness and metrics without reaching the app (no budget of it can refuse them)', async () => {
    expect(await get('/healthz')).toMatchObject({ status: 200, body: '{"status":"ok"}', nosniff: 'nosniff' });
    expect(JSON.parse((await get('/readyz/')).body)).toEqual({ status: 'ok', checks: { mongodb: 'ok' } });
    const metrics = await get('/metrics', scraper);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('probe_test_total 1');
    expect(appCalls).toBe(0);
    expect((await get('/healthzz')).status).toBe(429);
    expect(appCalls).toBe(1);
  });

  it('serve metrics only to the scraper with the token, and not at all without one configured', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { Authorization: 'Bearer wrong-token-0123456789abcdef' },
      { Authorization: TOKEN },
      { Authorization: `Basic ${TOKEN}` },
    ];
    for (const headers of attempts) {
      const refused = await get('/metrics', headers);
      expect(refused, JSON.stringify(headers)).toMatchObject({ status: 401, nosniff: 'nosniff' });
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'not_authenticated', request_id: 'req_probe' });
      expect(refused.body).not.toContain('probe_test_total');
    }
    const open = http.createServer(
      withProbes((_req, res) => void res.writeHead(404).end('app'), { checks: [], registry: new Registry(), requestId: () => 'r' }),
    );
    await new Promise<void>((r) => open.listen(0, '127.0.0.1', () => r()));
    try {
      const res = await fetch(`http://127.0.0.1:${(open.address() as AddressInfo).port}/metrics`);
      expect({ status: res.status, body: await res.text() }).toEqual({ status: 404, body: 'app' });
    } finally {
      await new Promise((r) => open.close(r));
    }
  });

  it('keeps liveness at 200 while a dependency is down; readiness answers 503 naming it', async () => {
    database = false;
    try {
      expect((await get('/healthz')).status).toBe(200);
      const ready = await get('/readyz');
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.body)).toMatchObject({ code: 'service_unavailable', request_id: 'req_probe', checks: { mongodb: 'failing: down' } });
    } finally {
      database = true;
    }
  });

  it('turns readiness to 503 while the process drains, liveness staying 200', async () => {
    draining = true;
    try {
      expect((await get('/readyz')).status).toBe(503);
      expect((await get('/healthz')).status).toBe(200);
    } finally {
      draining = false;
    }
  });
});
