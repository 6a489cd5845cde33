/**
 * `payout.paid` and `payout.failed` end to end (issue "Money out", DESIGN.md "Money out": Events):
 * a run settled by the sandbox bank and another by a results CSV put each payout's event in its
 * account's feed once (GET /events/ through HTTP, numbered after the sale events, the payout as
 * GET /payouts/{id} shows it, never an account number); settling again adds nothing; a crash
 * between the status write and the append (the marked row written, nothing appended) is repaired
 * by the worker's pass; a postback subscribed to payout.paid gets one signed delivery that
 * verifies, one not subscribed (the default event types) gets none.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperatorPrincipal } from '@cw/auth';
import { appendPendingEvents, PAYOUT_EVENT_SCHEMA, SALE_EVENT_TYPES } from '@cw/events-feed';
import { book, verifyLedger } from '@cw/ledger';
import {
  operatorApprovePayoutRun,
  operatorCreatePayoutRun,
  operatorPayoutRun,
  operatorSettlePayoutRun,
  PAYOUT_SCHEMA,
  payoutEvent,
  setPayoutProfile,
  type PayoutNotice,
  type PayoutRow,
} from '@cw/payouts';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createWorker, type Worker } from '@cw/app-postback-worker';
import { postbackFixture, startReceiver, until, type PostbackFixture, type Receiver } from './support/postback-harness';

let deps: TestDeps;
let receiver: Receiver;
let fx0: PostbackFixture;
let fx1: PostbackFixture;
let worker: Worker | undefined;

const alice: OperatorPrincipal = { type: 'operator', email: 'alice@network.example', role: 'admin' };
const bob: OperatorPrincipal = { type: 'operator', email: 'bob@network.example', role: 'admin' };
const pub = (i: number) => deps.demo!.publishers[i];
const api = () => publisherApi(deps).callback();
const IBAN_0 = 'DE89370400440532013000'; // the demo's publishers[0]
const IBAN_1 = 'DE02120300000000202051';

interface FeedEntry {
  id: string;
  type: string;
  event: string;
  publisher_id: string;
  conversion?: { id: string };
  payout?: Record<string, unknown> & { id: string; status: string };
}

/** The whole feed of the account, through the publisher API. */
async function feed(i: number): Promise<FeedEntry[]> {
  const out: FeedEntry[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await request(api())
      .get(`/api/v1/publisher/events/?limit=500${cursor ? `&cursor=${cursor}` : ''}`)
      .set('X-API-Key', pub(i).keys.live);
    expect(res.status).toBe(200);
    out.push(...(res.body.data as FeedEntry[]));
    cursor = res.body.next_cursor;
    if (!res.body.has_more) return out;
  }
}

const credit = (publisherId: string, amount: string, key: string) =>
  book(deps, {
    key,
    publisher_id: publisherId,
    type: 'commission',
    postings: [
      { account: 'publisher', currency: 'EUR', amount },
      { account: 'merchant_commission', currency: 'EUR', amount: `-${amount}` },
    ],
  });

async function approvedRun(): Promise<{ runId: string; payouts: PayoutRow[] }> {
  const run = await operatorCreatePayoutRun(deps, alice, {});
  await operatorApprovePayoutRun(deps, bob, { runId: run._id });
  const { payouts } = await operatorPayoutRun(deps, alice, { runId: run._id });
  return { runId: run._id, payouts: payouts as PayoutRow[] };
}

let run1: { runId: string; payouts: PayoutRow[] };
let paid0: PayoutRow;
let paid1: PayoutRow;

beforeAll(async () => {
  deps = await createTestDeps({
    seedProducts: 20,
    env: {
      PAYOUT_METHOD_HOLD_HOURS: '0',
      POSTBACK_ALLOW_INSECURE: 'true',
      RATELIMIT_POSTBACKS_PER_MIN: '100000',
      RATELIMIT_IP_PER_MIN: '100000',
      RATELIMIT_REPORTING_PER_MIN: '100000',
    },
  });
  receiver = await startReceiver();
  // publishers[0]: its postback takes sale.created and opts in to payout.paid (not payout.failed).
  fx0 = await postbackFixture(deps, receiver.url, 0);
  const put = await request(api())
    .put('/api/v1/publisher/postback/')
    .set('Authorization', `Bearer ${pub(0).portal_token}`)
    .send({ url: receiver.url, event_types: ['sale.created', 'payout.paid'] });
  expect(put.status).toBe(200);
  // publishers[1]: a postback with the default event types (the sale events only).
  fx1 = await postbackFixture(deps, receiver.url, 1);
  // publishers[1] paid by bank transfer too, with a balance above its threshold.
  await setPayoutProfile(deps, pub(1).account_id, {
    method: { type: 'iban', holder_name: 'Second Publisher Ltd', iban: IBAN_1, bic: 'BYLADEM1001' },
    threshold: '50.00',
    methodChangedAt: new Date(Date.now() - 30 * 86_400_000),
  });
  await credit(pub(1).account_id, '120.00', 'test:payout-events:pub1');
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await fx0?.close();
  await fx1?.close();
  await receiver?.close();
  await deps?.close();
});

describe('payout events in the feed', () => {
  it('keeps the feed schema of a payout event equal to the payout as GET /payouts/{id} answers it', () => {
    expect(PAYOUT_EVENT_SCHEMA.properties.payout).toEqual({ ...PAYOUT_SCHEMA, description: PAYOUT_EVENT_SCHEMA.properties.payout.description });
  });

  it('accepts payout.paid and payout.failed as opt-in postback event types; existing configurations do not get them', async () => {
    const portal = `Bearer ${pub(1).portal_token}`;
    const got = await request(api()).get('/api/v1/publisher/postback/').set('Authorization', portal);
    expect(got.body.event_types).toEqual([...SALE_EVENT_TYPES]);
    const mine = await request(api())
      .get('/api/v1/publisher/postback/')
      .set('Authorization', `Bearer ${pub(0).portal_token}`);
    expect(mine.body.event_types).toEqual(['sale.created', 'payout.paid']);
    expectErrorShape(
      await request(api())
        .put('/api/v1/publisher/postback/')
        .set('Authorization', portal)
        .send({ url: receiver.url, event_types: ['payout.sent'] }),
      400,
      'invalid_parameter',
    );
  });

  it('a crash between the status write and the append: the worker pass logs the event once', async () => {
    // A sale first, so the payout events come after sale events in publishers[1]'s log.
    await fx1.sale('before-payout');
    run1 = await approvedRun();
    paid0 = run1.payouts.find((p) => p.publisher_id === pub(0).account_id)!;
    paid1 = run1.payouts.find((p) => p.publisher_id === pub(1).account_id)!;
    expect(paid0).toMatchObject({ status: 'in_transit' });
    expect(paid1).toMatchObject({ status: 'in_transit' });
    // What settling writes for publishers[1]'s payout, and then the process died: nothing appended.
    const now = new Date();
    const ev = payoutEvent(paid1._id, 'payout.paid', now);
    await deps.models.Payout.updateOne(
      { _id: paid1._id, status: 'in_transit' },
      { $set: { status: 'paid', paid_at: now, updated_at: now, log_pending: true }, $push: { events: ev } },
    );
    expect(await deps.models.SaleEvent.exists({ _id: ev._id })).toBeNull();
    expect(await appendPendingEvents(deps)).toBeGreaterThanOrEqual(1);
    expect(await deps.models.Payout.exists({ _id: paid1._id, log_pending: true })).toBeNull();
    expect(await appendPendingEvents(deps)).toBe(0);
    const entries = (await feed(1)).filter((e) => e.type.startsWith('payout.'));
    expect(entries).toEqual([expect.objectContaining({ id: ev._id, type: 'payout.paid', event: 'paid', payout: expect.objectContaining({ id: paid1._id }) })]);
  });

  it('settled by the sandbox bank: payout.paid once in the feed, after the sale events, the payout as GET /payouts/{id} shows it', async () => {
    worker = createWorker({ db: deps.db.connection.db!, logger: deps.logger, config: deps.config, data: deps.data, processEveryMs: 100 });
    await worker.start();
    await fx0.sale('before-payout');
    const settled = await operatorSettlePayoutRun(deps, alice, { runId: run1.runId, sandbox: true });
    // publishers[1]'s was paid already (above): only publishers[0]'s moved.
    expect(settled).toMatchObject({ paid: 1, failed: 0 });
    // Settling again changes nothing.
    expect(await operatorSettlePayoutRun(deps, alice, { runId: run1.runId, sandbox: true })).toMatchObject({ paid: 0, failed: 0 });

    const entries = await feed(0);
    const payoutEntries = entries.filter((e) => e.type.startsWith('payout.'));
    expect(payoutEntries.map((e) => e.type)).toEqual(['payout.paid']);
    const last = entries.findLastIndex((e) => e.type.startsWith('sale.'));
    expect(entries.findIndex((e) => e.type === 'payout.paid')).toBeGreaterThan(last);
    const body = payoutEntries[0]!;
    const view = await request(api()).get(`/api/v1/publisher/payouts/${paid0._id}/`).set('X-API-Key', pub(0).keys.live);
    expect(view.status).toBe(200);
    expect(body).toMatchObject({ type: 'payout.paid', event: 'paid', publisher_id: pub(0).account_id });
    expect(body.id).toMatch(/^evt_/);
    expect(body.payout).toMatchObject({
      id: paid0._id,
      status: 'paid',
      amount: view.body.amount,
      currency: 'EUR',
      method: { type: 'iban', last4: '3000' },
      fx: view.body.fx,
      created_at: view.body.created_at,
      paid_at: view.body.paid_at,
      failure: null,
    });
    expect(Object.keys(body.payout!).sort()).toEqual(Object.keys(PAYOUT_SCHEMA.properties).sort());
    expect(JSON.stringify(entries)).not.toContain(IBAN_0);
    expect(JSON.stringify(entries)).not.toContain('0532013000');
    // A key that may not read payouts (test) reads the feed without them; its cursor still moves past them.
    const test = await request(api()).get('/api/v1/publisher/events/?limit=500').set('X-API-Key', pub(0).keys.test);
    expect(test.status).toBe(200);
    expect(test.body.data.filter((e: FeedEntry) => e.type.startsWith('payout.'))).toEqual([]);
    const after = await request(api()).get(`/api/v1/publisher/events/?cursor=${test.body.next_cursor}`).set('X-API-Key', pub(0).keys.test);
    expect(after.body).toMatchObject({ data: [], has_more: false });
  });

  it('delivers payout.paid once, signed, to the postback that opted in; none to the one that did not', async () => {
    const got = await until(() => receiver.received.find((r) => r.headers['x-cw-event'] === 'payout.paid'));
    const verified = fx0.verify(got) as unknown as FeedEntry;
    expect(verified).toMatchObject({ type: 'payout.paid', event: 'paid', publisher_id: pub(0).account_id, payout: { id: paid0._id, status: 'paid' } });
    // {event} in the URL is the type's last part; the sale macros are empty.
    expect(got.headers['x-cw-delivery']).toMatch(/^dlv_/);
    await new Promise((r) => setTimeout(r, 1000)); // the worker's rounds go on: nothing more may arrive
    const payoutHooks = receiver.received.filter((r) => String(r.headers['x-cw-event']).startsWith('payout.'));
    expect(payoutHooks).toHaveLength(1);
    expect(fx0.verify(payoutHooks[0]!)).toMatchObject({ payout: { id: paid0._id } });
    // The delivery log and its filter.
    const list = await request(api()).get('/api/v1/publisher/postback/deliveries/?event=payout.paid').set('X-API-Key', pub(0).keys.live);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([expect.objectContaining({ event: 'payout.paid', status: 'succeeded', conversion_id: null, attempts: 1 })]);
    const other = await request(api()).get('/api/v1/publisher/postback/deliveries/?event=payout.paid').set('X-API-Key', pub(1).keys.live);
    expect(other.body.data).toEqual([]);
  });

  it('settled failed by a results CSV: payout.failed once, with the reason; not delivered to a postback that took only payout.paid', async () => {
    await credit(pub(0).account_id, '80.00', 'test:payout-events:pub0-second');
    const run2 = await approvedRun();
    const second = run2.payouts.find((p) => p.publisher_id === pub(0).account_id)!;
    expect(second).toMatchObject({ status: 'in_transit' });
    const csv = `payout_id,status,reason_code,reason_message\r\n${second._id},failed,AC04,Account closed\r\n`;
    // The owners are told (the portal and the CLI pass the notification queue as `notify`), once.
    const notices: PayoutNotice[] = [];
    const told = { ...deps, notify: async (n: PayoutNotice) => void notices.push(n) };
    expect(await operatorSettlePayoutRun(told, alice, { runId: run2.runId, file: csv })).toMatchObject({ failed: 1 });
    expect(await operatorSettlePayoutRun(told, alice, { runId: run2.runId, file: csv })).toMatchObject({ failed: 0 });
    expect(notices).toEqual([{ kind: 'payout_failed', publisherId: pub(0).account_id, payoutId: second._id }]);

    const entries = await feed(0);
    expect(entries.filter((e) => e.type.startsWith('payout.')).map((e) => [e.type, e.payout!.id])).toEqual([
      ['payout.paid', paid0._id],
      ['payout.failed', second._id],
    ]);
    expect(entries.at(-1)).toMatchObject({ type: 'payout.failed', event: 'failed', payout: { status: 'failed', failure: { code: 'AC04' }, paid_at: null } });
    // Each event once across the log, ids unique.
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    // The postbacks consumer reads past it (its checkpoint at the head), and sends nothing.
    await until(
      async () => ((await deps.models.EventLogHead.findById(pub(0).account_id).lean()) as { behind?: { postbacks?: boolean } })?.behind?.postbacks !== true,
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.filter((r) => r.headers['x-cw-event'] === 'payout.failed')).toEqual([]);
    expect((await verifyLedger(deps)).problems).toEqual([]);
  });
});
