/**
 * Attacks on agent attribution tokens: another merchant's token, an expired one, a forged or
 * altered one are all 422 `attribution_invalid` (and verify says why without naming whom another
 * merchant's token credits), as are a backdated order (dated before the token's issue) and a token
 * presented more than 30 days after its expiry; a click beside a token wins and leaves the token unspent; no token
 * appears in any answer or in the tracker's log lines.
 */
import { Writable } from 'node:stream';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueMerchantToken } from '@cw/auth';
import { createLogger } from '@cw/logging';
import { ATTRIBUTION_TOKEN_TTL_MS, ensureLinks, signAttributionToken } from '@cw/links';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp, type TrackerApp } from '../src/app';

let deps: TestDeps;
let app: TrackerApp;
let tracker: ReturnType<TrackerApp['callback']>;
let merchant: string;
let otherMerchant: string;
let linkCode: string;
const logLines: string[] = [];
let orders = 0;
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20, env: { RATELIMIT_IP_PER_MIN: '100000', CLICK_FLUSH_INTERVAL_MS: '60000' } });
  const sink = new Writable({ write: (c, _e, cb) => (logLines.push(String(c)), cb()) });
  app = createApp({ ...deps, logger: createLogger({ name: 'tracker', destination: sink }) });
  tracker = app.callback();
  merchant = (await issueMerchantToken(deps.data.auth, 501)).secret;
  otherMerchant = (await issueMerchantToken(deps.data.auth, 502)).secret;
  [{ code: linkCode }] = await ensureLinks(
    deps.data.links,
    deps.config.secretKey,
    [{ publisherId: deps.demo!.publishers[1].account_id, programId: 1001, merchantId: 501, landingUrl: 'https://www.example.com/', subid: 'sec' }],
    { source: 'api', listed: true },
  );
});
afterAll(async () => {
  await app?.clicks.close();
  await deps?.close();
});

const issued: string[] = [];
const tokenFor = (over: Partial<Parameters<typeof signAttributionToken>[1]> = {}) => {
  const t = signAttributionToken(deps.config.keys, {
    merchantId: 501,
    programId: 1001,
    publisherId: deps.demo!.publishers[0].account_id,
    productId: 'p_security',
    subid: '',
    ...over,
  });
  issued.push(t);
  return t;
};
const report = (body: Record<string, unknown>, bearer = merchant) =>
  request(tracker).post('/api/v1/track/conversions/').set('Authorization', `Bearer ${bearer}`).send(body);
const verify = (token: string, bearer = merchant) =>
  request(tracker).post('/api/v1/track/attributions/verify').set('Authorization', `Bearer ${bearer}`).send({ token });
const sale = (extra: Record<string, unknown>) => ({ order_id: `SEC-ORD-${++orders}`, amount: '10.00', currency: 'EUR', ...extra });

describe('agent attribution tokens under attack', () => {
  it("refuse another merchant's token with 422, and verify tells that merchant nothing about whom it credits", async () => {
    const token = tokenFor();
    const r = await report(sale({ attribution_token: token }), otherMerchant);
    expectErrorShape(r, 422, 'attribution_invalid');
    expect(JSON.stringify(r.body)).not.toContain(token);
    const v = await verify(token, otherMerchant);
    expect(v.status).toBe(200);
    expect(v.body).toEqual({ valid: false, reason: 'wrong_merchant', publisher_id: null, program_id: null, expires_at: null, spent: false });
    // Nothing was spent: the token still credits its own merchant's order.
    expect((await report(sale({ attribution_token: token }))).status).toBe(201);
  });

  it('refuse an expired token, at intake and at verify', async () => {
    const token = tokenFor({ expiresAt: new Date(Date.now() - 60_000) });
    expectErrorShape(await report(sale({ affiliate_attribution: { token } })), 422, 'attribution_invalid');
    expect((await verify(token)).body).toMatchObject({ valid: false, reason: 'expired', spent: false });
    // A sale before the expiry, reported later, still credits.
    const late = await report(sale({ attribution_token: token, occurred_at: new Date(Date.now() - 10 * 60_000).toISOString() }));
    expect(late.status).toBe(201);
  });

  it('refuse a backdated order: a sale dated before the token was issued is 422 and leaves the token unspent', async () => {
    // Issued now (a 7-day token): an order placed a day ago cannot have come from it.
    const token = tokenFor({ expiresAt: new Date(Date.now() + ATTRIBUTION_TOKEN_TTL_MS) });
    const backdated = await report(sale({ attribution_token: token, occurred_at: new Date(Date.now() - 86_400_000).toISOString() }));
    expectErrorShape(backdated, 422, 'attribution_invalid');
    expect(backdated.body.detail).toBe('The sale is dated before the attribution token was issued.');
    expect(JSON.stringify(backdated.body)).not.toContain(token);
    // A merchant's clock a little behind ours is no backdating; nor was the token spent by the refusal.
    const skewed = await report(sale({ attribution_token: token, occurred_at: new Date(Date.now() - 2 * 60_000).toISOString() }));
    expect(skewed.status).toBe(201);
    expect(skewed.body.channel).toBe('agent');
  });

  it('refuse a token presented more than 30 days after its expiry, even for an order dated while it was valid', async () => {
    const day = 86_400_000;
    const old = tokenFor({ expiresAt: new Date(Date.now() - 31 * day) });
    const late = await report(sale({ attribution_token: old, occurred_at: new Date(Date.now() - 32 * day).toISOString() }));
    expectErrorShape(late, 422, 'attribution_invalid');
    expect(late.body.detail).toMatch(/expired more than 30 days ago/);
    expect((await verify(old)).body).toMatchObject({ valid: false, reason: 'expired', spent: false });
    // Within the 30 days its spend is still kept, so a late report of a sale made in time credits once.
    const recent = tokenFor({ expiresAt: new Date(Date.now() - 29 * day) });
    const inTime = { attribution_token: recent, occurred_at: new Date(Date.now() - 30 * day).toISOString() };
    expect((await report(sale(inTime))).status).toBe(201);
    expectErrorShape(await report(sale(inTime)), 422, 'attribution_invalid');
  });

  it('refuse forged and altered tokens with 422 (400 for what is not a token at all)', async () => {
    const token = tokenFor();
    const raw = Buffer.from(token.slice(4), 'base64url');
    raw[10] = raw[10]! ^ 1;
    const altered = `atp_${raw.toString('base64url')}`;
    issued.push(altered);
    expectErrorShape(await report(sale({ attribution_token: altered })), 422, 'attribution_invalid');
    expect((await verify(altered)).body).toMatchObject({ valid: false, reason: 'malformed', publisher_id: null });
    const forged = `atp_${Buffer.alloc(80, 7).toString('base64url')}`;
    expectErrorShape(await report(sale({ attribution_token: forged })), 422, 'attribution_invalid');
    expectErrorShape(await report(sale({ attribution_token: 'atp_short' })), 400, 'invalid_parameter');
    expectErrorShape(await report(sale({ affiliate_attribution: { provider: 'x' } })), 400, 'invalid_parameter');
    expectErrorShape(await report(sale({ affiliate_attribution: { token, extra: 1 } })), 400, 'unknown_parameter');
    expectErrorShape(await verify(''), 400, 'invalid_parameter');
    expectErrorShape(await request(tracker).post('/api/v1/track/attributions/verify').send({ token }), 401, 'not_authenticated');
  });

  it('leave the token unspent when a click beside it decides the sale', async () => {
    const token = tokenFor();
    const res = await request(tracker).get(`/c/${linkCode}`).set('User-Agent', BROWSER);
    await app.clicks.flush();
    const clickId = new URL(res.headers.location).searchParams.get('cw_click_id')!;
    const both = await report(sale({ click_id: clickId, attribution_token: token }));
    expect(both.status).toBe(201);
    expect(both.body.channel).toBe('link');
    expect((await verify(token)).body).toMatchObject({ valid: true, spent: false });
  });

  it('never show a token in an answer or a log line', async () => {
    const token = tokenFor();
    const answers = [await report(sale({ attribution_token: token })), await report(sale({ attribution_token: token })), await verify(token)];
    for (const a of answers) expect(JSON.stringify(a.body)).not.toContain(token.slice(4, 40));
    const logs = logLines.join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const t of issued) expect(logs).not.toContain(t.slice(4, 40));
  });
});
