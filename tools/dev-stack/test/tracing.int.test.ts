/**
 * Traces exported over OTLP/HTTP JSON to a local receiver (a test collector): a sale's intake request
 * and its postback delivery in one trace (the sale event keeps the request's traceparent), the
 * redirect in a trace of its own; trace ids in the access log lines.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@cw/logging';
import { createHttpServer, closeServer } from '@cw/runtime';
import { startTelemetry, type Telemetry } from '@cw/telemetry';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { createApp as trackerApi } from '@cw/app-tracker';
import { createWorker, type Worker } from '@cw/app-postback-worker';
import { ensureLinks } from '@cw/links';
import { postbackFixture, startReceiver, until, type PostbackFixture, type Receiver } from './support/postback-harness';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

let collector: http.Server;
const spans: OtlpSpan[] = [];
const contentTypes: string[] = [];
let telemetry: Telemetry | undefined;
let deps: TestDeps;
let worker: Worker;
let receiver: Receiver;
let fx: PostbackFixture;
let tracker: http.Server;
let base: string;
const logLines: string[] = [];

beforeAll(async () => {
  collector = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      contentTypes.push(String(req.headers['content-type']));
      if (req.url === '/v1/traces') {
        const doc = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
        for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const env = {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  // The SDK reads the standard variables itself.
  Object.assign(process.env, env);
  telemetry = await startTelemetry(env, 'tracker');
  expect(telemetry).toBeDefined();

  deps = await createTestDeps({
    seedProducts: 20,
    env: { RATELIMIT_POSTBACKS_PER_MIN: '100000', RATELIMIT_IP_PER_MIN: '100000', POSTBACK_ALLOW_INSECURE: 'true' },
  });
  receiver = await startReceiver();
  fx = await postbackFixture(deps, receiver.url);
  const sink = new Writable({ write: (c, _e, cb) => (logLines.push(String(c)), cb()) });
  const app = trackerApi({ ...deps, logger: createLogger({ name: 'tracker', destination: sink }) });
  const serve = app.callback();
  tracker = createHttpServer((req, res) => void serve(req, res));
  await new Promise<void>((r) => tracker.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(tracker.address() as AddressInfo).port}`;
  fx = { ...fx, tracker: app };
  worker = createWorker({ db: deps.db.connection.db!, logger: deps.logger, config: deps.config, data: deps.data, processEveryMs: 100 });
  await worker.start();
});
afterAll(async () => {
  await worker?.stop();
  if (tracker) await closeServer(tracker, 1000);
  await fx?.tracker.clicks.close();
  await receiver?.close();
  await deps?.close();
  await telemetry?.shutdown();
  for (const k of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_BSP_SCHEDULE_DELAY']) delete process.env[k];
  collector?.close();
});

const attr = (s: OtlpSpan, key: string) => s.attributes.find((a) => a.key === key)?.value;

describe('traces over OTLP/HTTP JSON', () => {
  it("puts a sale's intake request and its postback delivery in one trace, and the redirect in its own", async () => {
    const pub = deps.demo!.publishers[0]!;
    const [{ code }] = await ensureLinks(
      deps.data.links,
      deps.config.secretKey,
      [{ publisherId: pub.account_id, programId: 1001, merchantId: 501, landingUrl: 'https://www.example.com/', subid: 'traced' }],
      { source: 'api', listed: true },
    );
    const redirect = await fetch(`${base}/c/${code}`, { redirect: 'manual', headers: { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' } });
    expect(redirect.status).toBe(302);
    await fx.tracker.clicks.flush();
    const clickId = new URL(redirect.headers.get('location')!).searchParams.get('cw_click_id');
    const intake = await fetch(`${base}/api/v1/track/conversions/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${fx.merchantToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ click_id: clickId, order_id: `T-${Date.now()}`, amount: '50.00', currency: 'EUR' }),
    });
    expect(intake.status).toBe(201);
    const conversionId = ((await intake.json()) as { id: string }).id;
    const delivered = await until(
      async () => (await deps.models.PostbackDelivery.findOne({ conversion_id: conversionId, status: 'succeeded' }).lean()) ?? undefined,
    );

    const server = (route: string) => spans.find((s) => s.kind === 2 && attr(s, 'http.route')?.stringValue === route);
    const found = await until(
      async () => {
        await telemetry!.flush();
        const sale = server('/api/v1/track/conversions');
        const delivery = spans.find((s) => s.name === 'postback.deliver' && attr(s, 'cw.delivery_id')?.stringValue === delivered._id);
        const click = spans.find((s) => s.kind === 2 && String(attr(s, 'url.path')?.stringValue).startsWith('/c/'));
        return sale && delivery && click ? { sale, delivery, click } : undefined;
      },
      15_000,
      100,
    );
    expect(contentTypes.every((t) => t.startsWith('application/json'))).toBe(true);
    expect(found.sale.name).toBe('POST /api/v1/track/conversions');
    expect(found.delivery.traceId).toBe(found.sale.traceId);
    const inSaleTrace = spans.filter((s) => s.traceId === found.sale.traceId).map((s) => s.spanId);
    expect(inSaleTrace).toContain(found.delivery.parentSpanId);
    expect(attr(found.delivery, 'cw.delivery_status')?.stringValue).toBe('succeeded');
    expect(found.click.traceId).not.toBe(found.sale.traceId);
    // (Its parent, if any, is this test's own fetch: undici is instrumented in this process too.)
    expect(spans.filter((s) => s.traceId === found.click.traceId).map((s) => s.name)).not.toContain('postback.deliver');
    // The receiver saw the delivery's trace context; the access line of the intake carries its trace id.
    const sent = receiver.received.find((r) => String(r.headers['traceparent'] ?? '').includes(found.sale.traceId));
    expect(sent).toBeDefined();
    const access = logLines
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'request' && l.route === '/api/v1/track/conversions');
    expect(access).toMatchObject({ status: 201, trace_id: found.sale.traceId });
  });

  it("records each Agenda job's run as a trace of its own", async () => {
    await worker.agenda.now('feeds:refresh');
    const job = await until(
      async () => {
        await telemetry!.flush();
        return spans.find((s) => s.name === 'job feeds:refresh');
      },
      15_000,
      100,
    );
    expect(attr(job, 'job.name')?.stringValue).toBe('feeds:refresh');
    expect(job.parentSpanId ?? '').toBe('');
  });
});
