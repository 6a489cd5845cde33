/**
 * What the postback integration tests share: a real local receiver whose behaviour a test sets per
 * request (answer, fail, hang, or be down), a publisher with a postback configured through the
 * publisher API, and sales reported through the tracker with a merchant token.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import { issueMerchantToken } from '@cw/auth';
import { countPendingChanges } from '@cw/stats';
import { ensureLinks } from '@cw/links';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import type { PlatformConfig } from '@cw/config';
import { createWorker, type Worker } from '@cw/app-postback-worker';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp as trackerApi, type TrackerApp } from '@cw/app-tracker';

export interface Received {
  at: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** 'ok' answers 204, a number answers that status, 'hang' never answers, `{ delayMs }` answers 204 that much later. */
export type Behaviour = 'ok' | 'hang' | number | { delayMs: number };

export interface Receiver {
  url: string;
  received: Received[];
  /** Decides the answer to each request (default: 'ok'). */
  behave: (r: Received) => Behaviour;
  /** Called when a request arrives, before it is answered. */
  onRequest?: (r: Received) => void;
  /** Requests open now (arrived, connection not closed), and the most ever open at once. */
  open: number;
  maxOpen: number;
  /** Stops listening and drops every connection: the receiver is down (connection refused). */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const server = http.createServer((req, res) => {
    let body = '';
    receiver.maxOpen = Math.max(receiver.maxOpen, ++receiver.open);
    res.once('close', () => receiver.open--);
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const r: Received = { at: Date.now(), headers: req.headers, body };
      receiver.received.push(r);
      receiver.onRequest?.(r);
      const b = receiver.behave(r);
      if (b === 'hang') return;
      if (typeof b === 'object') setTimeout(() => res.writeHead(204).end(), b.delayMs);
      else res.writeHead(b === 'ok' ? 204 : b).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hook?e={event}`,
    received: [],
    behave: () => 'ok',
    open: 0,
    maxOpen: 0,
    down: async () => {
      const closed = new Promise((ok) => server.close(ok));
      server.closeAllConnections();
      await closed;
    },
    up: () => new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok)),
    close: async () => {
      if (!server.listening) return;
      await receiver.down();
    },
  };
  return receiver;
}

export async function until<T>(fn: () => Promise<T | undefined | null> | T | undefined | null, ms = 10_000, every = 20): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, every));
  }
}

export interface PostbackFixture {
  tracker: TrackerApp;
  /** The signing secret of the configured postback. */
  secret: string;
  /** Merchant 501's token, for status changes on the tracker. */
  merchantToken: string;
  /**
   * Reports a sale on a link of the publisher, one link per sub-ID (new by default: more than 10
   * clicks a minute on one link from one address would be flagged as a bot); answers the conversion id.
   */
  sale(subid?: string): Promise<string>;
  /** The verified SaleEvent of a received request. */
  verify(r: Received): { type: string; event: string; test?: boolean; conversion: { id: string; commission: string; subid: string } };
  close(): Promise<void>;
}

let linkSeq = 0;

/** Configures a demo publisher's postback (the first by default) to `url` and readies sales on program 1001. */
export async function postbackFixture(deps: TestDeps, url: string, publisher = 0): Promise<PostbackFixture> {
  const pub = deps.demo!.publishers[publisher];
  const put = await request(publisherApi(deps).callback()).put('/api/v1/publisher/postback/').set('Authorization', `Bearer ${pub.portal_token}`).send({ url });
  expect(put.status).toBe(201);
  const secret: string = put.body.secret;
  const tracker = trackerApi(deps);
  const merchantToken = (await issueMerchantToken(deps.data.auth, 501)).secret;
  return {
    tracker,
    secret,
    merchantToken,
    sale: async (subid = `h${linkSeq++}`) => {
      const [{ code }] = await ensureLinks(
        deps.data.links,
        deps.config.secretKey,
        [{ publisherId: pub.account_id, programId: 1001, merchantId: 501, landingUrl: 'https://www.example.com/', subid }],
        { source: 'api', listed: true },
      );
      const r = await request(tracker.callback()).get(`/c/${code}`).set('User-Agent', 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0');
      await tracker.clicks.flush();
      const clickId = new URL(r.headers.location).searchParams.get('cw_click_id');
      const res = await request(tracker.callback())
        .post('/api/v1/track/conversions/')
        .set('Authorization', `Bearer ${merchantToken}`)
        .send({ click_id: clickId, order_id: `H-${Date.now()}-${Math.random()}`, amount: '50.00', currency: 'EUR' });
      expect(res.status).toBe(201);
      return res.body.id as string;
    },
    verify: (r) =>
      new Webhook(secret).verify(r.body, {
        'webhook-id': String(r.headers['x-cw-delivery']),
        'webhook-timestamp': String(r.headers['x-cw-timestamp']),
        'webhook-signature': String(r.headers['x-cw-signature']),
      }) as ReturnType<PostbackFixture['verify']>,
    close: () => tracker.clicks.close(),
  };
}

export interface FaultBed {
  deps: TestDeps;
  receiver: Receiver;
  fx: PostbackFixture;
  /** An in-process worker polling every 25 ms (config overrides for this worker only); stopped by `reset()`. */
  startWorker(config?: Partial<PlatformConfig>): Promise<Worker>;
  /** Stops the workers and makes the receiver answer 204 again. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The fault tests' bed: an own embedded engine keeping its data on disk (so it can be restarted),
 * the schedule's minute shortened to `unitMs` and an attempt's budget to `timeoutMs`.
 */
export async function faultBed(opts: { unitMs: number; timeoutMs: number }): Promise<FaultBed> {
  const deps = await createTestDeps({
    seedProducts: 20,
    durable: true,
    serverSelectionTimeoutMS: 10_000,
    env: {
      RATELIMIT_POSTBACKS_PER_MIN: '100000',
      RATELIMIT_IP_PER_MIN: '100000',
      POSTBACK_RETRY_UNIT_MS: String(opts.unitMs),
      POSTBACK_TIMEOUT_MS: String(opts.timeoutMs),
      // The receiver is local (http on 127.0.0.1).
      POSTBACK_ALLOW_INSECURE: 'true',
    },
  });
  // The seeded sales counted in the stats now, so the workers under test spend their first rounds on
  // postbacks, not on the seed's stats (a loaded machine could otherwise outlast an attempt's lease).
  await countPendingChanges(deps);
  const receiver = await startReceiver();
  const fx = await postbackFixture(deps, receiver.url);
  const workers: Worker[] = [];
  return {
    deps,
    receiver,
    fx,
    startWorker: async (config = {}) => {
      const w = createWorker({
        db: deps.db.connection.db!,
        logger: deps.logger,
        config: { ...deps.config, ...config },
        data: deps.data,
        processEveryMs: 25,
      });
      await w.start();
      workers.push(w);
      return w;
    },
    reset: async () => {
      await Promise.all(workers.splice(0).map((w) => w.stop()));
      receiver.behave = () => 'ok';
      receiver.onRequest = undefined;
    },
    close: async () => {
      await Promise.all(workers.splice(0).map((w) => w.stop()));
      await fx.close();
      await receiver.close();
      await deps.close();
    },
  };
}

/** The conversion a received SaleEvent is about. */
export const conversionOf = (body: string) => (JSON.parse(body) as { conversion: { id: string } }).conversion.id;
/**
 * A delivery's sub-ID: how a receiver can tell a sale's deliveries before the sale's own answer (with
 * its id) is back, which the first delivery may beat (the write counts its stats change first).
 */
export const subidOf = (body: string) => (JSON.parse(body) as { conversion: { subid: string | null } }).conversion.subid;
