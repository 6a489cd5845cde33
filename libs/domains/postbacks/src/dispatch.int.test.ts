/**
 * The dispatcher on the test engine through mongoose, against a real local receiver (node:http):
 * a due delivery is sent signed with its configuration's secret and marked succeeded; a failing
 * receiver gets the same delivery again (same id, same body) on the retry schedule, with a wake-up
 * scheduled for each retry, never before it is due; after the last attempt the delivery is dead and
 * sent no more; two dispatchers (two workers) over the same deliveries send each one once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditDomain } from '@cw/audit';
import { loadConfig, seal } from '@cw/config';
import { conversionsDomain } from '@cw/conversions';
import { eventsFeedDomain } from '@cw/events-feed';
import { programsDomain } from '@cw/programs';
import { createMemorySlots } from '@cw/ratelimit';
import { openDomain, startTestDatabase, type TestDatabase } from '@cw-tools/test-engine';
import { postbacksDomain, postbacksModels } from './data/postbacks.data';
import { createDeliveryAgent, type SaleEventBody } from './delivery';
import type { PostbacksDeps } from './deps';
import { createDispatcher, type DeliveryRow, type Dispatcher } from './dispatch';
import { MAX_ATTEMPTS } from './retry';
import { newSigningSecret } from './secret-box';

type Deps = Pick<PostbacksDeps, 'config' | 'data'>;

/** The platform's config with the retry schedule's minute shortened to `unitMs`. */
const configWith = (unitMs: number) =>
  loadConfig({ NODE_ENV: 'test', POSTBACK_ALLOW_INSECURE: 'true', POSTBACK_RETRY_UNIT_MS: String(unitMs), POSTBACK_TIMEOUT_MS: '2000' }, { port: 0 });
// A minute of 1 ms runs the whole schedule (8 attempts) in about 1 s; one of 50 ms leaves a retry
// due only well after the dispatch pass that failed it ended, so each wait can be read between passes.
const config = configWith(1);
const RETRY_UNIT_MS = 50;

let engine: TestDatabase;
let deps: Deps;
const agent = createDeliveryAgent({ allowInsecure: true, timeoutMs: 2000 });

interface Received {
  at: number;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
/** Each test's receiver answers from its own path (`/<account>`): what it got, and how it answers. */
const received = new Map<string, Received[]>();
const answers = new Map<string, (n: number) => number>();
let server: http.Server;
let base: string;

beforeAll(async () => {
  engine = await startTestDatabase();
  const [postbacks, conversions, eventsFeed, programs, audit] = await Promise.all([
    openDomain(engine, postbacksDomain),
    openDomain(engine, conversionsDomain),
    openDomain(engine, eventsFeedDomain),
    openDomain(engine, programsDomain),
    openDomain(engine, auditDomain),
  ]);
  deps = { config, data: { postbacks, conversions, eventsFeed, programs, audit } };
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const account = req.url!.split('?')[0]!.slice(1);
      const list = received.get(account) ?? [];
      list.push({ at: Date.now(), url: req.url!, headers: req.headers, body });
      received.set(account, list);
      res.writeHead((answers.get(account) ?? (() => 204))(list.length)).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((ok) => server?.close(ok));
  await agent.close();
  await engine?.stop();
});

/** Errors the dispatchers reported (none expected). */
const errors: Error[] = [];
afterEach(() => expect(errors).toEqual([]));

const models = () => postbacksModels(deps.data.postbacks);

/** A postback configuration for `account` whose target is the local receiver; its signing secret in clear. */
async function configure(account: string): Promise<string> {
  const secret = newSigningSecret();
  const now = new Date();
  await models().PostbackConfig.create({
    _id: account,
    url: `${base}/${account}?event={event}`,
    http_method: 'POST',
    event_types: ['sale.approved'],
    active: true,
    secret: seal(config.keys, secret),
    secret_prefix: secret.slice(0, 12),
    created_at: now,
    updated_at: now,
  });
  return secret;
}

const saleEvent = (account: string, n: number): SaleEventBody => ({
  id: `evt_${account}_${n}`,
  type: 'sale.approved',
  event: 'approved',
  created_at: '2026-11-23T10:00:00.000Z',
  publisher_id: account,
  conversion: {
    id: `cnv_${account}_${n}`,
    status: 'approved',
    subid: `sub ${n}`,
    commission: '9.88',
    sale_amount: '123.45',
    currency: 'EUR',
    program_id: 1001,
    campaign_id: 501,
    merchant: { id: 501, name: 'Shop' },
    click_id: `clk_${n}`,
    occurred_at: '2026-11-22T10:00:00.000Z',
  },
});

/** `count` deliveries of sale events to `account`, due now (what the outbox writes). */
async function due(account: string, count = 1): Promise<string[]> {
  const now = new Date();
  const rows = Array.from({ length: count }, (_, i) => ({
    _id: `dlv_${account}_${i}`,
    publisher_id: account,
    event_id: `evt_${account}_${i}`,
    event: 'sale.approved',
    conversion_id: `cnv_${account}_${i}`,
    body: JSON.stringify(saleEvent(account, i)),
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
  }));
  await models().PostbackDelivery.insertMany(rows);
  return rows.map((r) => r._id);
}

const delivery = async (id: string) => (await models().PostbackDelivery.findById(id).lean<DeliveryRow>())!;

/**
 * Runs the dispatchers' passes (first attempts and retries, all of them at once) and waits for their
 * attempts, until `done` holds; as a worker's dispatch round does, again and again.
 */
async function runUntil(dispatchers: Dispatcher[], done: () => Promise<boolean>): Promise<void> {
  for (let round = 0; round < 5_000; round++) {
    for (const kind of ['first', 'retry'] as const) await Promise.all(dispatchers.map((d) => d.pass(kind, Date.now() + 500)));
    await Promise.all(dispatchers.map((d) => d.drain()));
    if (await done()) return;
    await new Promise((ok) => setTimeout(ok, 2));
  }
  throw new Error('the deliveries did not reach the expected state');
}

const dispatcher = (wakeUps: Date[] = [], on: Deps = deps) =>
  createDispatcher(on, {
    agent,
    slots: createMemorySlots(),
    scheduleRetry: async (at) => void wakeUps.push(at),
    onError: (e) => void errors.push(e),
  });

describe('the postback dispatcher', () => {
  it('sends a due delivery once, signed with the configuration secret, and marks it succeeded with its body dropped', async () => {
    const secret = await configure('pub_signed');
    const [id] = await due('pub_signed');
    const d = dispatcher();
    await runUntil([d], async () => (await delivery(id!)).status === 'succeeded');

    const [got, ...more] = received.get('pub_signed')!;
    expect(more).toEqual([]);
    expect(got!.url).toBe('/pub_signed?event=approved');
    expect(got!.headers['x-cw-delivery']).toBe(id);
    expect(got!.headers['x-cw-event']).toBe('sale.approved');
    expect(JSON.parse(got!.body)).toEqual(saleEvent('pub_signed', 0));
    // The receiver verifies it with the stock Standard Webhooks library and the secret it was shown.
    const verified = new Webhook(secret.replace(/^whsec_/, '')).verify(got!.body, {
      'webhook-id': String(got!.headers['x-cw-delivery']),
      'webhook-timestamp': String(got!.headers['x-cw-timestamp']),
      'webhook-signature': String(got!.headers['x-cw-signature']),
    });
    expect(verified).toEqual(saleEvent('pub_signed', 0));
    expect(() =>
      new Webhook(newSigningSecret().replace(/^whsec_/, '')).verify(got!.body, {
        'webhook-id': String(got!.headers['x-cw-delivery']),
        'webhook-timestamp': String(got!.headers['x-cw-timestamp']),
        'webhook-signature': String(got!.headers['x-cw-signature']),
      }),
    ).toThrow();

    const row = await delivery(id!);
    expect(row).toMatchObject({ status: 'succeeded', attempts: 1, last_response_status: 204, last_error: null, next_attempt_at: null });
    expect(row.body).toBeUndefined();

    // Nothing is due any more: later rounds send nothing.
    await runUntil([d], async () => true);
    expect(received.get('pub_signed')).toHaveLength(1);
  });

  it('retries a failed delivery with the same id and body on the growing schedule, never before it is due, until the receiver takes it', async () => {
    await configure('pub_retry');
    answers.set('pub_retry', (n) => (n <= 3 ? 503 : 200));
    const [id] = await due('pub_retry');
    const wakeUps: Date[] = [];
    const d = dispatcher(wakeUps, { ...deps, config: configWith(RETRY_UNIT_MS) });
    // After each failed attempt: the wait it scheduled (the next attempt's time minus the outcome's).
    const waits: number[] = [];
    const scheduled: Date[] = [];
    await runUntil([d], async () => {
      const row = await delivery(id!);
      if (row.status === 'failed' && row.next_attempt_at && scheduled.at(-1)?.getTime() !== row.next_attempt_at.getTime()) {
        scheduled.push(row.next_attempt_at);
        waits.push(row.next_attempt_at.getTime() - row.updated_at.getTime());
      }
      return row.status === 'succeeded';
    });

    const got = received.get('pub_retry')!;
    expect(got).toHaveLength(4);
    expect(new Set(got.map((r) => r.headers['x-cw-delivery']))).toEqual(new Set([id]));
    expect(new Set(got.map((r) => r.body))).toEqual(new Set([JSON.stringify(saleEvent('pub_retry', 0))]));
    // Backoff: the wait before attempt n is the schedule's minute x 4^(n-2), +-10%.
    expect(waits).toHaveLength(3);
    waits.forEach((w, i) => {
      expect(w).toBeGreaterThanOrEqual(Math.floor(0.9 * RETRY_UNIT_MS * 4 ** i));
      expect(w).toBeLessThanOrEqual(Math.ceil(1.1 * RETRY_UNIT_MS * 4 ** i));
    });
    // Each retry was sent once it was due, not before, and each had its wake-up scheduled.
    scheduled.forEach((at, i) => expect(got[i + 1]!.at).toBeGreaterThanOrEqual(at.getTime()));
    expect(wakeUps.map((w) => w.getTime())).toEqual(scheduled.map((s) => s.getTime()));
    expect(await delivery(id!)).toMatchObject({ status: 'succeeded', attempts: 4, last_response_status: 200, last_error: null });
  });

  it(`gives a delivery up after ${MAX_ATTEMPTS} failed attempts: dead, with the last answer, and sent no more`, async () => {
    await configure('pub_dead');
    answers.set('pub_dead', () => 500);
    const [id] = await due('pub_dead');
    const d = dispatcher();
    await runUntil([d], async () => (await delivery(id!)).status === 'dead');

    expect(received.get('pub_dead')).toHaveLength(MAX_ATTEMPTS);
    const row = await delivery(id!);
    expect(row).toMatchObject({ status: 'dead', attempts: MAX_ATTEMPTS, last_response_status: 500, last_error: 'HTTP 500', next_attempt_at: null });
    // Kept with its body for a redelivery by hand.
    expect(row.body).toBe(JSON.stringify(saleEvent('pub_dead', 0)));

    // Later rounds (also the one for retries whose wake-up was lost) leave it alone.
    await d.pass('overdue', Date.now() + 500);
    await runUntil([d], async () => true);
    expect(received.get('pub_dead')).toHaveLength(MAX_ATTEMPTS);
  });

  it('sends each delivery once when two workers dispatch the same deliveries at the same time', async () => {
    await configure('pub_twice');
    const ids = await due('pub_twice', 40);
    const workers = [dispatcher(), dispatcher()];
    await runUntil(workers, async () => (await models().PostbackDelivery.countDocuments({ _id: { $in: ids }, status: 'succeeded' })) === ids.length);

    const got = received.get('pub_twice')!;
    expect(got.map((r) => r.headers['x-cw-delivery']).sort()).toEqual([...ids].sort());
    const rows = await models()
      .PostbackDelivery.find({ _id: { $in: ids } })
      .lean<DeliveryRow[]>();
    expect(rows.map((r) => r.attempts)).toEqual(ids.map(() => 1));

    await runUntil(workers, async () => true);
    expect(received.get('pub_twice')).toHaveLength(ids.length);
  });
});
