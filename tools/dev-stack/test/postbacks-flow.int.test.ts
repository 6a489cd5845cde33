/**
 * Postbacks end to end: a conversion's events travel through the outbox and the Agenda worker to a
 * real local receiver, signed and verified with the stock `standardwebhooks` package; a failing
 * receiver is retried on schedule and can be redelivered under the same delivery id.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueMerchantToken } from '@cw/auth';
import { ensureLinks } from '@cw/links';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp as trackerApi, type TrackerApp } from '@cw/app-tracker';
import { createWorker, type Worker } from '@cw/app-postback-worker';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

let deps: TestDeps;
let tracker: TrackerApp;
let worker: Worker;
let receiver: http.Server;
let hookUrl: string;
let secret: string;
let merchantToken: string;
let code: string;
let failing = false;
const received: Received[] = [];

const pub = () => deps.data!.publishers[0];
const api = () => publisherApi(deps).callback();

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20, env: { RATELIMIT_POSTBACKS_PER_MIN: '100000', RATELIMIT_IP_PER_MIN: '100000' } });
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(failing ? 503 : 204).end();
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook?e={event}`;
  const put = await request(api()).put('/api/v1/publisher/postback/').set('Authorization', `Bearer ${pub().portal_token}`).send({ url: hookUrl });
  expect(put.status).toBe(201);
  secret = put.body.secret;
  tracker = trackerApi(deps);
  merchantToken = (await issueMerchantToken(deps.models, 501)).secret;
  [{ code }] = await ensureLinks(deps.repos.links, deps.config.secretKey, [{ publisherId: pub().account_id, programId: 1001, campaignId: 501, landingUrl: 'https://www.example.com/', subid: 'hooks' }], { source: 'api', listed: true });
  worker = createWorker({ db: deps.db.connection.db!, logger: deps.logger, config: deps.config, models: deps.models, repos: deps.repos, processEveryMs: 100 });
  await worker.start();
});
afterAll(async () => {
  await worker?.stop();
  await tracker?.clicks.close();
  receiver?.closeAllConnections();
  await new Promise((ok) => receiver?.close(ok));
  await deps?.close();
});

async function until<T>(fn: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function sale(link = code): Promise<string> {
  const r = await request(tracker.callback()).get(`/c/${link}`).set('User-Agent', 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0');
  await tracker.clicks.flush();
  const clickId = new URL(r.headers.location).searchParams.get('cw_click_id');
  const res = await request(tracker.callback()).post('/api/v1/track/conversions/').set('Authorization', `Bearer ${merchantToken}`).send({ click_id: clickId, order_id: `H-${Date.now()}-${Math.random()}`, amount: '50.00', currency: 'EUR' });
  expect(res.status).toBe(201);
  return res.body.id;
}

const verify = (r: Received) => new Webhook(secret).verify(r.body, { 'webhook-id': String(r.headers['x-cw-delivery']), 'webhook-timestamp': String(r.headers['x-cw-timestamp']), 'webhook-signature': String(r.headers['x-cw-signature']) }) as { type: string; event: string; conversion: { id: string; commission: string; subid: string } };

describe('postback delivery through the worker', () => {
  it('delivers every event of a conversion once, signed and verifiable with standardwebhooks', async () => {
    const id = await sale();
    await request(tracker.callback()).patch(`/api/v1/track/conversions/${id}/`).set('Authorization', `Bearer ${merchantToken}`).send({ status: 'approved' });
    await request(tracker.callback()).patch(`/api/v1/track/conversions/${id}/`).set('Authorization', `Bearer ${merchantToken}`).send({ status: 'declined' });
    const mine = await until(() => {
      const got = received.map(verify).filter((b) => b.conversion.id === id);
      return got.length >= 3 ? got : undefined;
    });
    await new Promise((r) => setTimeout(r, 500)); // nothing more may arrive
    const events = received.map(verify).filter((b) => b.conversion.id === id).map((b) => b.type);
    expect(events.sort()).toEqual(['sale.approved', 'sale.created', 'sale.reversed']);
    expect(mine[0].conversion).toMatchObject({ commission: '4.00', subid: 'hooks' });
    const deliveries = await request(api()).get('/api/v1/publisher/postback/deliveries/?status=succeeded').set('X-API-Key', pub().keys.live);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.data.filter((d: { conversion_id: string }) => d.conversion_id === id)).toHaveLength(3);
    expect(deliveries.body.data.every((d: { attempts: number }) => d.attempts === 1)).toBe(true);
  });

  it('retries a failing receiver on the schedule, and redelivers under the same delivery id', async () => {
    failing = true;
    const id = await sale();
    const failed = await until(async () => (await deps.models.PostbackDelivery.findOne({ conversion_id: id, status: 'failed' }).lean()) ?? undefined);
    expect(failed).toMatchObject({ attempts: 1, last_response_status: 503, last_error: 'HTTP 503' });
    const wait = failed.next_attempt_at!.getTime() - failed.last_attempt_at!.getTime();
    expect(wait).toBeGreaterThanOrEqual(54_000); // 1 minute, -10% jitter
    expect(wait).toBeLessThanOrEqual(66_000);
    const firstId = received.find((r) => verify(r).conversion.id === id)!.headers['x-cw-delivery'];

    failing = false;
    const again = await request(api()).post(`/api/v1/publisher/postback/deliveries/${failed._id}/redeliver/`).set('X-API-Key', pub().keys.live);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: failed._id, status: 'pending' });
    const ok = await until(async () => (await deps.models.PostbackDelivery.findOne({ _id: failed._id, status: 'succeeded' }).lean()) ?? undefined);
    expect(ok.attempts).toBe(2);
    const ids = received.filter((r) => verify(r).conversion.id === id).map((r) => r.headers['x-cw-delivery']);
    expect(new Set(ids)).toEqual(new Set([firstId]));
    expectErrorShape(await request(api()).post(`/api/v1/publisher/postback/deliveries/${failed._id}/redeliver/`).set('X-API-Key', pub().keys.live), 409, 'invalid_transition');
    expectErrorShape(await request(api()).post(`/api/v1/publisher/postback/deliveries/${failed._id}/redeliver/`).set('X-API-Key', pub().keys.test), 403, 'credential_not_allowed');
    expectErrorShape(await request(api()).post(`/api/v1/publisher/postback/deliveries/${failed._id}/redeliver/`).set('X-API-Key', deps.data!.publishers[1].keys.live), 404, 'not_found');
  });

  it('sends a signed test event on request and answers its outcome; 404 when nothing is configured', async () => {
    const res = await request(api()).post('/api/v1/publisher/postback/test/').set('X-API-Key', pub().keys.live);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', attempts: 1, test: true, event: 'sale.created' });
    const got = received.find((r) => r.headers['x-cw-delivery'] === res.body.delivery_id)!;
    expect(verify(got)).toMatchObject({ type: 'sale.created', test: true });
    expectErrorShape(await request(api()).post('/api/v1/publisher/postback/test/').set('X-API-Key', deps.data!.publishers[1].keys.live), 404, 'not_found');
  });

  it('shares the work between two workers without delivering any attempt twice', async () => {
    const second = createWorker({ db: deps.db.connection.db!, logger: deps.logger, config: deps.config, models: deps.models, repos: deps.repos, processEveryMs: 100 });
    await second.start();
    try {
      // One link each: more than 10 clicks a minute on one link from one address would be flagged as a bot.
      const links = await ensureLinks(deps.repos.links, deps.config.secretKey, Array.from({ length: 25 }, (_, i) => ({ publisherId: pub().account_id, programId: 1001, campaignId: 501, landingUrl: 'https://www.example.com/', subid: `w${i}` })), { source: 'api', listed: true });
      const ids = await Promise.all(links.map((l) => sale(l.code)));
      await until(() => {
        const got = new Set(received.map(verify).filter((b) => ids.includes(b.conversion.id)).map((b) => b.conversion.id));
        return got.size === ids.length ? got : undefined;
      });
      await new Promise((r) => setTimeout(r, 500));
      const deliveryIds = received.filter((r) => ids.includes(verify(r).conversion.id)).map((r) => String(r.headers['x-cw-delivery']));
      expect(deliveryIds).toHaveLength(25);
      expect(new Set(deliveryIds).size).toBe(25);
      expect(await deps.models.PostbackDelivery.countDocuments({ conversion_id: { $in: ids }, status: 'succeeded', attempts: 1 })).toBe(25);
    } finally {
      await second.stop();
    }
  });
});
