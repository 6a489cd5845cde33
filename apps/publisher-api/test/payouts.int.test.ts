/**
 * Money out through the publisher API: `GET /balance/transactions/` (the ledger's entries, cursor
 * paged), `GET /payouts/`, `GET /payouts/{id}`, `POST /payouts/` (Idempotency-Key; the 409 codes),
 * the payment-status key rules on each, another account's payout never found, and no account
 * number in any answer.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDecimals, compareDecimals, formatDecimal } from '@cw/money';
import { verifyLedger } from '@cw/ledger';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let server: ReturnType<ReturnType<typeof createApp>['callback']>;
const B = '/api/v1/publisher';

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20 });
  server = createApp(deps).callback();
}, 60_000);
afterAll(async () => deps?.close());

const get = (path: string, key: string) => request(server).get(`${B}${path}`).set('X-API-Key', key);
const post = (path: string, key: string, idem?: string) => {
  const r = request(server).post(`${B}${path}`).set('X-API-Key', key).set('Content-Type', 'application/json');
  return (idem ? r.set('Idempotency-Key', idem) : r).send('{}');
};
const pub = (i = 0) => deps.demo!.publishers[i]!;
const IBAN = 'DE89370400440532013000';

describe('GET /balance/transactions/', () => {
  it("lists the ledger's entries newest first, whose sum per currency is the payment status's approved unpaid", async () => {
    const entries: Array<{ type: string; amount: string; currency: string; created_at: string }> = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/balance/transactions/?page_size=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, pub().keys.live);
      expect(res.status).toBe(200);
      entries.push(...res.body.data);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(entries.length).toBeGreaterThan(10);
    const times = entries.map((e) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const sums = new Map<string, string[]>();
    for (const e of entries) sums.set(e.currency, [...(sums.get(e.currency) ?? []), e.amount]);
    const status = await get('/payment-status/', pub().keys.live);
    for (const b of status.body.approved_unpaid.by_currency) expect(formatDecimal(addDecimals(sums.get(b.currency)!), 2)).toBe(b.amount);
    expect(new Set(entries.map((e) => e.type))).toEqual(new Set(['commission', 'reversal', 'correction', 'payout']));
  });

  it('refuses test, sandbox, read-only and demo keys with 403, and no key with 401', async () => {
    for (const kind of ['test', 'sandbox', 'read_only', 'demo'] as const)
      expectErrorShape(await get('/balance/transactions/', pub().keys[kind]), 403, 'credential_not_allowed');
    expect((await request(server).get(`${B}/balance/transactions/`)).status).toBe(401);
    expectErrorShape(await get('/balance/transactions/?type=bonus', pub().keys.live), 400, 'invalid_parameter');
  });
});

describe('payouts', () => {
  let payoutId: string;
  it('requests the whole available balance once under an Idempotency-Key, then answers payout_in_progress', async () => {
    const first = await post('/payouts/', pub().keys.live, 'payout-request-1');
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ status: 'pending', currency: 'EUR', method: { type: 'iban', last4: '3000' }, hold: null, paid_at: null, failure: null });
    expect(compareDecimals(first.body.amount, '50.00')).toBeGreaterThanOrEqual(0);
    // DESIGN.md's fields, at least: id po_…, a decimal string amount, created_at, fx, statement.
    expect(first.body.id).toMatch(/^po_[0-9a-f]{24}$/);
    expect(first.body.amount).toMatch(/^\d+\.\d{2}$/);
    expect(first.body).toMatchObject({ fx: expect.any(Array), statement: null, created_at: expect.any(String) });
    expect(Object.keys(first.body.method).sort()).toEqual(['last4', 'type']);
    payoutId = first.body.id;
    const replay = await post('/payouts/', pub().keys.live, 'payout-request-1');
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(payoutId);
    expectErrorShape(await post('/payouts/', pub().keys.live), 409, 'payout_in_progress');
  });

  it('lists and shows the payout with its method as type and last 4, never the account number; another account gets 404', async () => {
    const list = await get('/payouts/', pub().keys.live);
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { id: string }) => p.id)).toContain(payoutId);
    const one = await get(`/payouts/${payoutId}/`, pub().keys.live);
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(payoutId);
    for (const body of [list.text, one.text]) expect(body).not.toContain(IBAN);
    expectErrorShape(await get(`/payouts/${payoutId}/`, pub(1).keys.live), 404, 'not_found');
    expectErrorShape(await get('/payouts/po_nope/', pub().keys.live), 404, 'not_found');
    expectErrorShape(await get('/payouts/?status=sent', pub().keys.live), 400, 'invalid_parameter');
    const ids = async (status: string) => (await get(`/payouts/?status=${status}`, pub().keys.live)).body.data.map((p: { id: string }) => p.id);
    expect(await ids('pending')).toContain(payoutId);
    for (const other of ['in_transit', 'paid', 'failed', 'canceled']) expect(await ids(other)).not.toContain(payoutId);
  });

  it('answers no_payout_method for an account without one; refuses test, sandbox, read-only and demo keys on every payout route', async () => {
    expectErrorShape(await post('/payouts/', pub(1).keys.live), 409, 'no_payout_method');
    for (const kind of ['test', 'sandbox', 'read_only', 'demo'] as const)
      expectErrorShape(await post('/payouts/', pub().keys[kind]), 403, 'credential_not_allowed');
    for (const kind of ['test', 'sandbox', 'read_only', 'demo'] as const) {
      expectErrorShape(await get('/payouts/', pub().keys[kind]), 403, 'credential_not_allowed');
      expectErrorShape(await get('/payouts/po_000000000000000000000000/', pub().keys[kind]), 403, 'credential_not_allowed');
      expectErrorShape(await get('/payouts/po_000000000000000000000000/statement', pub().keys[kind]), 403, 'credential_not_allowed');
    }
    expect((await verifyLedger(deps)).problems).toEqual([]);
  });
});
