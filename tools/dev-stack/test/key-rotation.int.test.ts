/**
 * Rotating the platform's keys (SECRET_KEYS) through HTTP: everything made before the rotation
 * keeps working (links, clicks, feed URLs, postback signatures), new seals and signatures use the
 * new key, and the operator CLI re-seals stored postback secrets under it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueMerchantToken } from '@cw/auth';
import { keyRing } from '@cw/config';
import { open } from '@cw/postbacks';
import { runCli } from '@cw-tools/admin-cli';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp as feedService } from '@cw/app-feed-service';
import { createApp as trackerApp, type TrackerApp } from '@cw/app-tracker';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const NEW_KEY = randomBytes(32);
let deps: TestDeps;
let rotated: TestDeps;
const trackers: TrackerApp[] = [];
let receiver: http.Server;
let receiverUrl: string;
const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  deps = await createTestDeps({
    seedProducts: 20,
    env: { RATELIMIT_IP_PER_MIN: '100000', RATELIMIT_POSTBACKS_PER_MIN: '1000', RATELIMIT_LINKS_PER_MIN: '1000', POSTBACK_ALLOW_INSECURE: 'true' },
  });
  // The rotated tracker keeps its clicks in memory for the test's length: a stored click converts
  // by its row whatever its signature, and the test shows what the signature alone allows.
  rotated = { ...deps, config: { ...deps.config, clickFlushIntervalMs: 60_000, keys: keyRing(deps.config.secretKey, [{ id: 'k2', key: NEW_KEY }]) } };
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/pb`;
});
afterAll(async () => {
  for (const t of trackers) await t.clicks.close();
  receiver?.close();
  await deps?.close();
});

const tracker = (d: TestDeps) => {
  const t = trackerApp(d);
  trackers.push(t);
  return t.callback();
};
const pub = () => deps.demo!.publishers[0];
const verifies = (secret: string, r: { headers: http.IncomingHttpHeaders; body: string }) => {
  const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
    .update(`${r.headers['x-cw-delivery']}.${r.headers['x-cw-timestamp']}.${r.body}`)
    .digest('base64');
  return String(r.headers['x-cw-signature']).split(' ').includes(`v1,${expected}`);
};

describe('key rotation', () => {
  it('keeps links, clicks, feed URLs and postback signatures of before working, and signs and seals anew with the new key', async () => {
    const before = { api: publisherApi(deps).callback(), feeds: feedService(deps).callback(), tracker: tracker(deps) };
    const after = { api: publisherApi(rotated).callback(), feeds: feedService(rotated).callback(), tracker: tracker(rotated) };
    const key = { 'X-API-Key': pub().keys.live };

    // Before: a link, a click on it, a feed URL, a postback and its secret.
    const link = await request(before.api).post('/api/v1/publisher/links/').set(key).send({ program_id: 1001, subid: 'rotation' });
    expect(link.status).toBe(201);
    const click = new URL((await request(before.tracker).get(`/c/${link.body.id}`).set('User-Agent', BROWSER)).headers.location).searchParams.get(
      'cw_click_id',
    )!;
    const oldFeed = new URL((await request(before.feeds).get('/api/v1/affiliates/feed/?country=DE&format=csv').set(key)).body.url);
    expect(oldFeed.searchParams.has('sk')).toBe(false);
    const put = await request(before.api)
      .put('/api/v1/publisher/postback/')
      .set('Authorization', `Bearer ${pub().portal_token}`)
      .send({ url: receiverUrl, http_method: 'POST' });
    expect(put.status).toBe(201);
    const secret = put.body.secret as string;

    // After adding k2: the same link identity, the old click converts, the old feed URL serves.
    const again = await request(after.api).post('/api/v1/publisher/links/').set(key).send({ program_id: 1001, subid: 'rotation' });
    expect(again).toMatchObject({ status: 200, body: { id: link.body.id } });
    expect((await request(after.tracker).get(`/c/${link.body.id}`).set('User-Agent', BROWSER)).status).toBe(302);
    const merchant = `Bearer ${(await issueMerchantToken(deps.data.auth, 501)).secret}`;
    const sale = await request(after.tracker)
      .post('/api/v1/track/conversions/')
      .set('Authorization', merchant)
      .send({ click_id: click, order_id: 'ROT-1', amount: '10.00', currency: 'EUR' });
    expect(sale.status).toBe(201);
    expect((await request(after.feeds).get(`${oldFeed.pathname}${oldFeed.search}`)).status).toBe(200);

    // New signatures carry k2: valid where k2 is in the ring, refused where it is not.
    const newFeed = new URL((await request(after.feeds).get('/api/v1/affiliates/feed/?country=DE&format=csv').set(key)).body.url);
    expect(newFeed.searchParams.get('sk')).toBe('k2');
    expect((await request(after.feeds).get(`${newFeed.pathname}${newFeed.search}`)).status).toBe(200);
    expect((await request(before.feeds).get(`${newFeed.pathname}${newFeed.search}`)).status).toBe(403);
    expect((await request(after.feeds).get(`${newFeed.pathname}${newFeed.search.replace('sk=k2', 'sk=base')}`)).status).toBe(403);
    const newClick = new URL((await request(after.tracker).get(`/c/${link.body.id}`).set('User-Agent', BROWSER)).headers.location).searchParams.get(
      'cw_click_id',
    )!;
    expect(
      (
        await request(before.tracker)
          .post('/api/v1/track/conversions/')
          .set('Authorization', merchant)
          .send({ click_id: newClick, order_id: 'ROT-2', amount: '10.00', currency: 'EUR' })
      ).status,
    ).toBe(404);
    expect(
      (
        await request(after.tracker)
          .post('/api/v1/track/conversions/')
          .set('Authorization', merchant)
          .send({ click_id: newClick, order_id: 'ROT-3', amount: '10.00', currency: 'EUR' })
      ).status,
    ).toBe(201);

    // The postback secret sealed under the base key still signs; the CLI re-seals it under k2.
    const portal = { Authorization: `Bearer ${pub().portal_token}` };
    expect((await request(after.api).post('/api/v1/publisher/postback/test/').set(portal)).body.status).toBe('succeeded');
    expect(verifies(secret, received.at(-1)!)).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'rotation-'));
    const cli = await runCli(['postback:reseal', '--json'], { MONGODB_URI: deps.tdb.uri, SECRET_KEYS: `k2:${NEW_KEY.toString('base64')}` }, dir);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.out)).toMatchObject({ key: 'k2', resealed: 1 });
    const stored = (await deps.models.PostbackConfig.findById(pub().account_id).lean())!;
    expect((stored.secret as { kid?: string }).kid).toBe('k2');
    expect(open(rotated.config.keys, stored.secret as never)).toBe(secret);
    expect((await request(after.api).post('/api/v1/publisher/postback/test/').set(portal)).body.status).toBe('succeeded');
    expect(verifies(secret, received.at(-1)!)).toBe(true);
    expect(
      JSON.parse((await runCli(['postback:reseal', '--json'], { MONGODB_URI: deps.tdb.uri, SECRET_KEYS: `k2:${NEW_KEY.toString('base64')}` }, dir)).out),
    ).toMatchObject({ resealed: 0 });
  });
});
