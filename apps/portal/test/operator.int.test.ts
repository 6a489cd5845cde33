/**
 * The portal's operator area through HTTP against the real engine: who may call it (a session whose
 * person carries an operator role; everyone else 403, no session 401, an API credential 401), the
 * CSRF check on its acts, support reading but refused every act (nothing changed), an admin's acts
 * with their 4xx (unknown, already decided, malformed), the audit entries naming the person with the
 * request id of the call, the audit list's filters and cursor, merchants and programs (listed by
 * support, created by an admin), and a role taken away stopping at once.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorIssueCredential } from '@cw/account';
import type { OperatorPrincipal } from '@cw/auth';
import { createPerson, operatorGrantRole, operatorRevokeRole } from '@cw/people';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp, openApiDocument } from '../src/app';

let deps: TestDeps;
let http: ReturnType<ReturnType<typeof createApp>['callback']>;
let origin: string;

const ROOT: OperatorPrincipal = { type: 'operator', email: 'root@network.test', role: 'admin' };
const PASSWORD = 'operator passphrase long enough';
const ADMIN = 'ada.admin@network.test';
const SUPPORT = 'sam.support@network.test';
const NOBODY = 'nora.publisher@network.test';

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 10, env: { RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '100000', RATELIMIT_SIGNIN_EMAIL_PER_MIN: '100000' } });
  http = createApp(deps, { webDir: '/nonexistent' }).callback();
  origin = new URL(deps.config.portalUrl).origin;
  const home = deps.demo!.publishers[0]!.account_id;
  for (const email of [ADMIN, SUPPORT, NOBODY]) await createPerson(deps, { email, password: PASSWORD }, [{ accountId: home, role: 'analyst' }]);
  await operatorGrantRole(deps, ROOT, { email: ADMIN, role: 'admin' });
  await operatorGrantRole(deps, ROOT, { email: SUPPORT, role: 'support' });
  await deps.data.auth.createPublishers([
    { _id: 'pub_int_pending', name: 'Int Pending', status: 'pending' },
    { _id: 'pub_int_pending2', name: 'Int Pending Two', status: 'pending' },
  ]);
}, 60_000);
afterAll(async () => {
  await deps?.close();
});

const API = '/portal/api';
let addressNo = 0;

async function signedIn(email: string) {
  const agent = request.agent(http);
  const ip = `203.0.113.${++addressNo}`;
  const res = await agent.post(`${API}/signin`).set('Origin', origin).set('X-Forwarded-For', ip).send({ email, password: PASSWORD });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const csrf = res.body.csrf_token as string;
  return {
    session: res.body as { operator: unknown },
    get: (path: string) => agent.get(`${API}${path}`).set('X-Forwarded-For', ip),
    post: (path: string, body?: object, opts: { csrf?: boolean } = {}) => {
      const r = agent.post(`${API}${path}`).set('Origin', origin).set('X-Forwarded-For', ip);
      if (opts.csrf !== false) r.set('X-CSRF-Token', csrf);
      return body ? r.send(body) : r;
    },
  };
}

/** Every operation of the operator area in the portal's document, with placeholders filled. */
function operatorOperations(): Array<{ method: 'get' | 'post'; path: string }> {
  const doc = openApiDocument(deps) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths)
    .filter(([p]) => p.startsWith(`${API}/operator/`))
    .flatMap(([p, methods]) =>
      Object.keys(methods).map((m) => ({ method: m as 'get' | 'post', path: p.replace(API, '').replace(/\{[a-z_]+\}/g, 'pub_int_pending') })),
    );
}

describe('who may call the operator area', () => {
  it('answers 403 forbidden to a person without a role, 401 without a session or with an API key, on every operation', async () => {
    const ops = operatorOperations();
    expect(ops.length).toBeGreaterThanOrEqual(10);
    const nobody = await signedIn(NOBODY);
    expect(nobody.session.operator).toBeNull();
    const key = deps.demo!.publishers[0]!.keys.live;
    for (const { method, path } of ops) {
      const what = `${method.toUpperCase()} ${path}`;
      const res = method === 'get' ? await nobody.get(path) : await nobody.post(path, {});
      expectErrorShape(res, 403, 'forbidden');
      expect(res.body.detail, what).toContain('not an operator');
      const anonymous = method === 'get' ? await request(http).get(`${API}${path}`) : await request(http).post(`${API}${path}`).set('Origin', origin).send({});
      expect(anonymous.status, what).toBe(401);
      const withKey = await request(http)[method](`${API}${path}`).set('Origin', origin).set('X-API-Key', key);
      expect(withKey.status, what).toBe(401);
    }
    expect((await deps.data.auth.publisherById('pub_int_pending'))?.status).toBe('pending');
  });

  it('refuses an act without the CSRF token (403 csrf_failed), even for an admin', async () => {
    const admin = await signedIn(ADMIN);
    expectErrorShape(await admin.post('/operator/publishers/pub_int_pending/approve', undefined, { csrf: false }), 403, 'csrf_failed');
    expect((await deps.data.auth.publisherById('pub_int_pending'))?.status).toBe('pending');
  });
});

describe('a support operator', () => {
  it('reads every list but is refused every act with 403 role_not_allowed, changing nothing', async () => {
    const support = await signedIn(SUPPORT);
    expect(support.session.operator).toEqual({ role: 'support' });
    const pending = await support.get('/operator/publishers');
    expect(pending.status).toBe(200);
    expect(pending.body.data.map((p: { account_id: string }) => p.account_id)).toEqual(expect.arrayContaining(['pub_int_pending', 'pub_int_pending2']));
    expect((await support.get('/operator/claims')).status).toBe(200);
    expect((await support.get('/operator/audit')).status).toBe(200);
    expect((await support.get(`/operator/publishers/${deps.demo!.publishers[0]!.account_id}/keys`)).status).toBe(200);
    expect((await support.get(`/operator/publishers/${deps.demo!.publishers[0]!.account_id}/deliveries`)).status).toBe(200);
    const key = (await support.get(`/operator/publishers/${deps.demo!.publishers[0]!.account_id}/keys`)).body.data.find(
      (k: { status: string }) => k.status === 'active',
    );
    for (const path of [
      '/operator/publishers/pub_int_pending/approve',
      '/operator/publishers/pub_int_pending/reject',
      `/operator/keys/${key.id}/revoke`,
      '/operator/claims/app_x/approve',
      '/operator/publishers/pub_int_pending/deliveries/x/redeliver',
    ]) {
      const res = await support.post(path, {});
      expectErrorShape(res, 403, 'role_not_allowed');
      expect(res.body.detail, path).toMatch(/support.*needs admin/);
    }
    expect((await deps.data.auth.publisherById('pub_int_pending'))?.status).toBe('pending');
    expect((await deps.data.auth.credentialById(key.id))?.status).toBe('active');
  });
});

describe('an admin operator', () => {
  it('approves and rejects accounts pending review, audited with the request id of the call; 409 once decided, 404 unknown', async () => {
    const admin = await signedIn(ADMIN);
    const approved = await admin.post('/operator/publishers/pub_int_pending/approve');
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({ account_id: 'pub_int_pending', status: 'active' });
    expect((await admin.post('/operator/publishers/pub_int_pending2/reject')).body).toEqual({ account_id: 'pub_int_pending2', status: 'inactive' });
    expectErrorShape(await admin.post('/operator/publishers/pub_int_pending/approve'), 409, 'invalid_transition');
    expectErrorShape(await admin.post('/operator/publishers/pub_nobody/approve'), 404, 'not_found');
    const queue = await admin.get('/operator/publishers');
    expect(queue.body.data.map((p: { account_id: string }) => p.account_id)).not.toContain('pub_int_pending');

    const log = await admin.get('/operator/audit?account=pub_int_pending&action=publisher_reviewed');
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({
      account_id: 'pub_int_pending',
      actor: { email: ADMIN, operator_role: 'admin' },
      detail: { decision: 'approve', status: 'active' },
      request_id: approved.headers['x-request-id'],
      address_hash: expect.any(String),
    });
  });

  it('revokes a key (401 at its next use), 400 for a malformed id, 404 for an unknown or revoked one; lists never show a secret', async () => {
    const admin = await signedIn(ADMIN);
    const publisher = deps.demo!.publishers[1]!.account_id;
    const c = await operatorIssueCredential(deps, ROOT, { publisher, type: 'api_key', kind: 'test' });
    const listed = await admin.get(`/operator/publishers/${publisher}/keys`);
    expect(listed.body.data).toEqual(expect.arrayContaining([{ id: c.id, type: 'api_key', kind: 'test', prefix: c.prefix, status: 'active' }]));
    expect(JSON.stringify(listed.body)).not.toContain(c.secret);
    expect((await admin.post(`/operator/keys/${c.id}/revoke`)).body).toEqual({ id: c.id, status: 'revoked' });
    expect((await deps.data.auth.credentialById(c.id))?.status).toBe('revoked');
    expectErrorShape(await admin.post(`/operator/keys/${c.id}/revoke`), 404, 'not_found');
    expectErrorShape(await admin.post('/operator/keys/not-an-id/revoke'), 400, 'invalid_parameter');
    expectErrorShape(await admin.post(`/operator/keys/${'0'.repeat(24)}/revoke`), 404, 'not_found');
    expectErrorShape(await admin.get('/operator/publishers/pub_nobody/keys'), 404, 'not_found');
    const log = await admin.get(`/operator/audit?action=credential_revoked&actor=${encodeURIComponent(ADMIN)}`);
    expect(log.body.data[0]).toMatchObject({ account_id: publisher, detail: { credential_id: c.id, prefix: c.prefix } });
    expect(JSON.stringify(log.body)).not.toContain(c.secret);
  });

  it('answers 4xx, never 500, for claims and deliveries that do not exist and for bad list input', async () => {
    const admin = await signedIn(ADMIN);
    expectErrorShape(await admin.post('/operator/claims/app_nothing/approve'), 404, 'not_found');
    expectErrorShape(await admin.post('/operator/claims/app_nothing/reject', { note: 'spam' }), 404, 'not_found');
    expectErrorShape(await admin.post('/operator/claims/app_nothing/reject', { note: 5 }), 400, 'invalid_parameter');
    expectErrorShape(await admin.post('/operator/claims/app_nothing/reject', { other: 1 }), 400, 'unknown_parameter');
    const publisher = deps.demo!.publishers[0]!.account_id;
    const redeliver = await admin.post(`/operator/publishers/${publisher}/deliveries/dlv_nothing/redeliver`);
    expect(redeliver.status).toBeGreaterThanOrEqual(400);
    expect(redeliver.status).toBeLessThan(500);
    expectErrorShape(await admin.get('/operator/publishers?status=gone'), 400, 'invalid_parameter');
    expectErrorShape(await admin.get('/operator/claims?limit=0'), 400, 'invalid_parameter');
    expectErrorShape(await admin.get('/operator/audit?since=yesterday'), 400, 'invalid_parameter');
    expectErrorShape(await admin.get('/operator/audit?action=no_such_act'), 400, 'invalid_parameter');
    expectErrorShape(await admin.get('/operator/audit?cursor=sev_nope'), 400, 'invalid_parameter');
    expectErrorShape(await admin.get('/operator/audit?whatever=1'), 400, 'unknown_parameter');
  });

  it('pages the audit log by cursor, newest first, every entry once', async () => {
    const admin = await signedIn(ADMIN);
    const seen: string[] = [];
    let cursor: string | null = '';
    for (let pages = 0; cursor !== null && pages < 50; pages++) {
      const res = await admin.get(`/operator/audit?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((e: { id: string }) => e.id));
      cursor = res.body.next_cursor;
      expect(res.body.has_more).toBe(cursor !== null);
    }
    expect(seen.length).toBeGreaterThan(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort().reverse()).toEqual(seen);
    expect((await admin.get(`/operator/audit?since=${new Date(Date.now() + 3_600_000).toISOString()}`)).body.data).toEqual([]);
  });
});

describe('merchants and programs', () => {
  it('lists them for support, creates them for an admin (audited), 409 for a taken id, 404 for an unknown merchant, 403 for support', async () => {
    const support = await signedIn(SUPPORT);
    const admin = await signedIn(ADMIN);
    const merchants = await support.get('/operator/merchants');
    expect(merchants.status).toBe(200);
    expect(merchants.body.data.length).toBeGreaterThan(0);
    const programs = await support.get('/operator/programs?status=active');
    expect(programs.body.data[0]).toMatchObject({ id: expect.any(Number), merchant: { id: expect.any(Number) }, status: 'active' });
    expectErrorShape(await support.post('/operator/merchants', { id: 990001, name: 'Support Shop' }), 403, 'role_not_allowed');

    const created = await admin.post('/operator/merchants', { id: 990001, name: 'Operator Shop', domains: ['operator-shop.example'] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: 990001, name: 'Operator Shop', domains: ['operator-shop.example'] });
    expectErrorShape(await admin.post('/operator/merchants', { id: 990001, name: 'Again' }), 409, 'conflict');
    expectErrorShape(await admin.post('/operator/merchants', { id: 'x', name: 'Bad' }), 400, 'invalid_parameter');
    const program = await admin.post('/operator/programs', {
      id: 990101,
      merchant: 990001,
      name: 'Operator Shop DE',
      country: 'DE',
      landing_url: 'https://operator-shop.example/',
      commission: '8% of the sale',
    });
    expect(program.status, JSON.stringify(program.body)).toBe(201);
    expect(program.body).toMatchObject({ id: 990101, merchant_id: 990001, countries: ['DE'] });
    expectErrorShape(
      await admin.post('/operator/programs', { id: 990102, merchant: 990999, name: 'Nobody', country: 'DE', landing_url: 'https://x.example/' }),
      404,
      'not_found',
    );
    expectErrorShape(
      await admin.post('/operator/programs', { id: 990103, merchant: 990001, name: 'Bad URL', country: 'DE', landing_url: 'not a url' }),
      400,
      'invalid_parameter',
    );
    expect((await admin.get('/operator/programs?merchant=990001')).body.data.map((p: { id: number }) => p.id)).toEqual([990101]);
    const log = await admin.get(`/operator/audit?actor=${encodeURIComponent(ADMIN)}&action=merchant_created`);
    expect(log.body.data[0]).toMatchObject({ detail: { merchant_id: 990001 }, actor: { email: ADMIN, operator_role: 'admin' } });
  });
});

describe('a role taken away', () => {
  it('stops at the next request of the open session, and the session says so', async () => {
    await createPerson(deps, { email: 'tmp.operator@network.test', password: PASSWORD }, []);
    await operatorGrantRole(deps, ROOT, { email: 'tmp.operator@network.test', role: 'support' });
    const s = await signedIn('tmp.operator@network.test');
    expect((await s.get('/operator/audit')).status).toBe(200);
    await operatorRevokeRole(deps, ROOT, { email: 'tmp.operator@network.test' });
    expectErrorShape(await s.get('/operator/audit'), 403, 'forbidden');
    expect((await s.get('/session')).body.operator).toBeNull();
  });
});
