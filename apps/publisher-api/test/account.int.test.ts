/** GET /me/ and GET /payment-status/ through HTTP, against the engine and the real drivers. */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDecimals, formatDecimal } from '@cw/money';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let server: ReturnType<ReturnType<typeof createApp>['callback']>;
const B = '/api/v1/publisher';

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 50 });
  server = createApp(deps).callback();
});
afterAll(async () => deps?.close());

const get = (path: string, key: string) => request(server).get(`${B}${path}`).set('X-API-Key', key);
const pub = (i = 0) => deps.demo!.publishers[i];

describe('GET /me/', () => {
  it("returns the caller's account, access and limits, and no secrets", async () => {
    const res = await get('/me/', pub().keys.live);
    expect(res.status).toBe(200);
    expect(res.body.account_id).toBe(pub().account_id);
    expect(res.body.credential).toMatchObject({ type: 'api_key', kind: 'live' });
    expect(pub().keys.live.startsWith(res.body.credential.prefix.replace(/…$/, ''))).toBe(true);
    expect(res.body.credential.prefix.length).toBeLessThan(pub().keys.live.length);
    expect(res.body.access).toMatchObject({ feed_access: true, is_demo: false, test_mode: false, payable: true });
    expect(res.body.access.markets).toEqual(expect.arrayContaining(['DE', 'GB']));
    expect(res.body.limits).toMatchObject({ window_seconds: 60, products_per_minute: 60, products_page_size_max: 100 });
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(pub().keys.live);
    expect(text).not.toMatch(/hash|last4|threshold/);
  });

  it('describes test keys as test mode and demo keys are refused', async () => {
    const test = await get('/me/', pub().keys.test);
    expect(test.status).toBe(200);
    expect(test.body.access.test_mode).toBe(true);
    expectErrorShape(await get('/me/', pub().keys.demo), 403, 'credential_not_allowed');
  });

  it("never shows another publisher's account", async () => {
    const a = await get('/me/', pub(0).keys.live);
    const b = await get('/me/', pub(1).keys.live);
    expect(a.body.account_id).not.toBe(b.body.account_id);
    expect(b.body.account_id).toBe(pub(1).account_id);
  });

  it('answers 401 without a credential and 405 for writes', async () => {
    expectErrorShape(await request(server).get(`${B}/me/`), 401, 'not_authenticated');
    const res = await request(server).post(`${B}/me/`).set('X-API-Key', pub().keys.live);
    expectErrorShape(res, 405);
    expect(res.headers.allow).toContain('GET');
  });
});

describe('GET /payment-status/', () => {
  it('sums approved unpaid and recent pending commission per currency, exactly, as decimal strings', async () => {
    const res = await get('/payment-status/', pub().keys.live);
    expect(res.status).toBe(200);
    const convs = await deps.models.Conversion.find({ publisher_id: pub().account_id }).lean();
    const since = Date.now() - 180 * 86_400_000;
    const expected = (pred: (c: (typeof convs)[number]) => boolean) => {
      const by = new Map<string, string[]>();
      for (const c of convs.filter(pred)) by.set(c.currency, [...(by.get(c.currency) ?? []), c.commission.toString()]);
      return [...by.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([currency, v]) => ({ currency, amount: formatDecimal(addDecimals(v)) }));
    };
    const approved = expected((c) => c.status === 'approved' && c.paid !== true);
    const pending = expected((c) => c.status === 'pending' && c.occurred_at.getTime() >= since);
    expect(approved.length).toBeGreaterThan(0);
    expect(res.body.approved_unpaid.by_currency).toEqual(approved);
    expect(res.body.pending_review).toMatchObject({ window_days: 180, by_currency: pending });
    expect(res.body.approved_unpaid.total_usd).toMatch(/^\d+\.\d{2}$/);
    expect(res.body.next_payment).toMatchObject({ currency: 'EUR', threshold: '50.00' });
    expect(typeof res.body.next_payment.threshold_reached).toBe('boolean');
    // The demo account is over its threshold with a bank method: due on the next scheduled payout
    // run's day (the 15th, UTC): this month's until then, else next month's.
    const now = new Date();
    const run = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + (now.getUTCDate() < 15 ? 0 : 1), 15));
    expect(res.body.next_payment).toMatchObject({ threshold_reached: true, estimated_date: run.toISOString().slice(0, 10) });
  });

  it('shows the payment method type with at most the last 4 digits, and nothing forbidden', async () => {
    const res = await get('/payment-status/', pub().keys.live);
    expect(res.body.payment_method.type).toBe('bank_account');
    expect(res.body.payment_method.last4).toMatch(/^\d{4}$/);
    expect(JSON.stringify(res.body)).not.toMatch(/iban|account_number|address|postal|tax|swift|paypal_email/i);
  });

  it("never counts another publisher's commission", async () => {
    const a = await get('/payment-status/', pub(0).keys.live);
    const b = await get('/payment-status/', pub(1).keys.live);
    expect(a.body.account_id).toBe(pub(0).account_id);
    expect(b.body.account_id).toBe(pub(1).account_id);
    expect(a.body.approved_unpaid).not.toEqual(b.body.approved_unpaid);
  });

  it('refuses test, sandbox, read-only and demo keys with 403', async () => {
    for (const kind of ['test', 'sandbox', 'read_only', 'demo'] as const) {
      expectErrorShape(await get('/payment-status/', pub().keys[kind]), 403, 'credential_not_allowed');
    }
  });

  it('answers 401 for a revoked key and for an inactive account', async () => {
    expectErrorShape(await get('/payment-status/', pub().keys.revoked), 401, 'not_authenticated');
    expectErrorShape(await get('/payment-status/', deps.demo!.special_keys.inactive_account), 401, 'not_authenticated');
  });
});
