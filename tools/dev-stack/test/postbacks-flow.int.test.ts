/**
 * Postbacks end to end: a conversion's events travel through the outbox and the Agenda worker to a
 * real local receiver, signed and verified with the stock `standardwebhooks` package; a failing
 * receiver is retried on schedule and can be redelivered under the same delivery id.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createWorker, type Worker } from '@cw/app-postback-worker';
import { postbackFixture, startReceiver, until, type PostbackFixture, type Receiver } from './support/postback-harness';

let deps: TestDeps;
let worker: Worker;
let receiver: Receiver;
let fx: PostbackFixture;
let failing = false;

const pub = () => deps.demo!.publishers[0];
const api = () => publisherApi(deps).callback();

beforeAll(async () => {
  // The receiver is local (http on 127.0.0.1): allowed only because the setting says so.
  deps = await createTestDeps({
    seedProducts: 20,
    env: { RATELIMIT_POSTBACKS_PER_MIN: '100000', RATELIMIT_IP_PER_MIN: '100000', POSTBACK_ALLOW_INSECURE: 'true' },
  });
  receiver = await startReceiver();
  receiver.behave = () => (failing ? 503 : 'ok');
  fx = await postbackFixture(deps, receiver.url);
  worker = createWorker({ db: deps.db.connection.db!, logger: deps.logger, config: deps.config, data: deps.data, processEveryMs: 100 });
  await worker.start();
});
afterAll(async () => {
  await worker?.stop();
  await fx?.close();
  await receiver?.close();
  await deps?.close();
});

const received = () => receiver.received;
const verify = (r: Receiver['received'][number]) => fx.verify(r);
const sale = (subid?: string) => fx.sale(subid);

describe('postback delivery through the worker', () => {
  it('delivers every event of a conversion once, signed and verifiable with standardwebhooks', async () => {
    const id = await sale('hooks');
    await request(fx.tracker.callback())
      .patch(`/api/v1/track/conversions/${id}/`)
      .set('Authorization', `Bearer ${fx.merchantToken}`)
      .send({ status: 'approved' });
    await request(fx.tracker.callback())
      .patch(`/api/v1/track/conversions/${id}/`)
      .set('Authorization', `Bearer ${fx.merchantToken}`)
      .send({ status: 'declined' });
    const mine = await until(() => {
      const got = received()
        .map(verify)
        .filter((b) => b.conversion.id === id);
      return got.length >= 3 ? got : undefined;
    });
    await new Promise((r) => setTimeout(r, 500)); // nothing more may arrive
    const events = received()
      .map(verify)
      .filter((b) => b.conversion.id === id)
      .map((b) => b.type);
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
    const firstId = received().find((r) => verify(r).conversion.id === id)!.headers['x-cw-delivery'];

    failing = false;
    const again = await request(api()).post(`/api/v1/publisher/postback/deliveries/${failed._id}/redeliver/`).set('X-API-Key', pub().keys.live);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: failed._id, status: 'pending' });
    const ok = await until(async () => (await deps.models.PostbackDelivery.findOne({ _id: failed._id, status: 'succeeded' }).lean()) ?? undefined);
    expect(ok.attempts).toBe(2);
    const ids = received()
      .filter((r) => verify(r).conversion.id === id)
      .map((r) => r.headers['x-cw-delivery']);
    expect(new Set(ids)).toEqual(new Set([firstId]));
    expectErrorShape(
      await request(api()).post(`/api/v1/publisher/postback/deliveries/${failed._id}/redeliver/`).set('X-API-Key', pub().keys.live),
      409,
      'invalid_transition',
    );
    expectErrorShape(
      await request(api()).post(`/api/v1/publisher/postback/deliveries/${failed._id}/redeliver/`).set('X-API-Key', pub().keys.test),
      403,
      'credential_not_allowed',
    );
    expectErrorShape(
      await request(api()).post(`/api/v1/publisher/postback/deliveries/${failed._id}/redeliver/`).set('X-API-Key', deps.demo!.publishers[1].keys.live),
      404,
      'not_found',
    );
  });

  it('sends a signed test event on request and answers its outcome; 404 when nothing is configured', async () => {
    const res = await request(api()).post('/api/v1/publisher/postback/test/').set('X-API-Key', pub().keys.live);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', attempts: 1, test: true, event: 'sale.created' });
    const got = received().find((r) => r.headers['x-cw-delivery'] === res.body.delivery_id)!;
    expect(verify(got)).toMatchObject({ type: 'sale.created', test: true });
    expectErrorShape(await request(api()).post('/api/v1/publisher/postback/test/').set('X-API-Key', deps.demo!.publishers[1].keys.live), 404, 'not_found');
  });

  it('lets the portal token, which configures the postback, also send the test event and read and redeliver deliveries', async () => {
    const portal = `Bearer ${pub().portal_token}`;
    const res = await request(api()).post('/api/v1/publisher/postback/test/').set('Authorization', portal);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', test: true });
    expect(verify(received().find((r) => r.headers['x-cw-delivery'] === res.body.delivery_id)!)).toMatchObject({ test: true });
    const list = await request(api()).get('/api/v1/publisher/postback/deliveries/').set('Authorization', portal);
    expect(list.status).toBe(200);
    expect(list.body.data.length).toBeGreaterThan(0);
    expect((await request(api()).get('/api/v1/publisher/postback/').set('Authorization', portal)).body).toMatchObject({ configured: true });
    // The portal token is no API key: the rest of the publisher API still refuses it.
    expectErrorShape(await request(api()).get('/api/v1/publisher/links/').set('Authorization', portal), 401, 'not_authenticated');
  });

  it('shares the work between two workers without delivering any attempt twice', async () => {
    const second = createWorker({
      db: deps.db.connection.db!,
      logger: deps.logger,
      config: deps.config,
      data: deps.data,
      processEveryMs: 100,
    });
    await second.start();
    try {
      const ids = await Promise.all(Array.from({ length: 25 }, () => sale()));
      await until(() => {
        const got = new Set(
          received()
            .map(verify)
            .filter((b) => ids.includes(b.conversion.id))
            .map((b) => b.conversion.id),
        );
        return got.size === ids.length ? got : undefined;
      });
      await new Promise((r) => setTimeout(r, 500));
      const deliveryIds = received()
        .filter((r) => ids.includes(verify(r).conversion.id))
        .map((r) => String(r.headers['x-cw-delivery']));
      expect(deliveryIds).toHaveLength(25);
      expect(new Set(deliveryIds).size).toBe(25);
      expect(await deps.models.PostbackDelivery.countDocuments({ conversion_id: { $in: ids }, status: 'succeeded', attempts: 1 })).toBe(25);
    } finally {
      await second.stop();
    }
  });
});
