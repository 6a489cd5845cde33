/**
 * The portal's own API through HTTP against the real engine and the real mail files: sign-up,
 * confirmation, sign-in (one answer for every mistake), CSRF and Origin, roles enforced by the use
 * cases (not by hidden buttons), re-authentication, keys, postback, team, security log, sessions,
 * password reset, claims, and that a session never reaches another account.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCredential } from '@cw/auth';
import { approveApplication, requestInstantLinks } from '@cw/monetize';
import { createTestDeps, expectErrorShape, handlerServer, type TestDeps } from '@cw-tools/testing';
import { createApp, mailSettled, openApiDocument } from '../src/app';
import { afterMail } from './support/portal-harness';

let deps: TestDeps;
let http: ReturnType<ReturnType<typeof createApp>['callback']>;
let mailDir: string;
let webDir: string;
let origin: string;
/** The portal mails in the background: a browser reads an answer once the mail it handed off is written. */
let mailSent: () => Promise<void>;

beforeAll(async () => {
  mailDir = mkdtempSync(join(tmpdir(), 'portal-mail-'));
  webDir = mkdtempSync(join(tmpdir(), 'portal-web-'));
  writeFileSync(join(webDir, 'index.html'), '<!doctype html><title>Portal</title><script type="module" src="/assets/app.js"></script>');
  deps = await createTestDeps({
    seedProducts: 20,
    env: {
      MAIL_DIR: mailDir,
      TRUST_PROXY_HOPS: '1',
      RATELIMIT_IP_PER_MIN: '100000',
      RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '100000',
      RATELIMIT_SIGNIN_EMAIL_PER_MIN: '100000',
      // The postback test sends to a receiver on 127.0.0.1 (refused unless the setting allows it).
      POSTBACK_ALLOW_INSECURE: 'true',
    },
  });
  const portal = createApp(deps, { webDir });
  http = portal.callback();
  mailSent = () => mailSettled(portal);
  origin = new URL(deps.config.portalUrl).origin;
}, 60_000);
afterAll(async () => {
  await mailSent?.();
  await deps?.close();
  rmSync(mailDir, { recursive: true, force: true });
  rmSync(webDir, { recursive: true, force: true });
});

const API = '/portal/api';
let addressNo = 0;
/** A browser: its own cookie jar and address; sends the portal's Origin and, once signed in, the CSRF token. */
function browser() {
  const agent = request.agent(http);
  const ip = `198.51.100.${++addressNo}`;
  let csrf = '';
  const send = (method: 'post' | 'put' | 'patch' | 'delete', path: string, body?: object) => {
    const r = afterMail(agent[method](`${API}${path}`).set('Origin', origin).set('X-Forwarded-For', ip), mailSent);
    if (csrf) r.set('X-CSRF-Token', csrf);
    return body ? r.send(body) : r;
  };
  return {
    ip,
    get: (path: string) => agent.get(`${API}${path}`).set('X-Forwarded-For', ip),
    page: (path: string) => agent.get(path).set('X-Forwarded-For', ip).set('Accept', 'text/html').redirects(0),
    post: (path: string, body?: object) => send('post', path, body),
    put: (path: string, body?: object) => send('put', path, body),
    patch: (path: string, body?: object) => send('patch', path, body),
    del: (path: string) => send('delete', path),
    async signIn(email: string, password: string) {
      const res = await send('post', '/signin', { email, password });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      csrf = res.body.csrf_token;
      return res.body as { user: { id: string; email: string }; accounts: Array<{ account_id: string; role: string; status: string }> };
    },
    setCsrf(token: string) {
      csrf = token;
    },
  };
}

/** The newest mail to `to`, and the one-time link in it for `path`. */
function mailTo(to: string): { text: string; link: (path: string) => string } {
  const files = readdirSync(mailDir)
    .filter((f) => f.endsWith(`${to}.eml`))
    .sort();
  expect(files.length, `no mail to ${to}`).toBeGreaterThan(0);
  const text = readFileSync(join(mailDir, files.at(-1)!), 'utf8')
    .replace(/=\r?\n/g, '')
    .replace(/=3D/g, '=');
  return {
    text,
    link: (path) => {
      const m = new RegExp(`${path.replace(/\//g, '\\/')}\\?token=([A-Za-z0-9_-]+)`).exec(text);
      expect(m, `no ${path} link in the mail to ${to}`).toBeTruthy();
      return m![1]!;
    },
  };
}
const mailsTo = (to: string) => readdirSync(mailDir).filter((f) => f.endsWith(`${to}.eml`)).length;

const owner = () => deps.demo!.publishers[0]!.portal_login;
const analyst = () => deps.demo!.fixtures.analyst_login;
const ACC = () => deps.demo!.publishers[0]!.account_id;
const OTHER = () => deps.demo!.publishers[1]!.account_id;

describe('sign-up, confirmation and sign-in', () => {
  it('signs a new publisher up pending review, mails the confirmation, and signs in only once confirmed', async () => {
    const b = browser();
    const email = 'Maya@Trail-Notes.example';
    const up = await b.post('/signup', { email, password: 'a long enough passphrase', account_name: 'Trail Notes', website: 'https://trail-notes.example' });
    expect(up.status).toBe(202);
    expect(up.body).toEqual({ status: 'verification_sent' });
    const early = await b.post('/signin', { email: 'maya@trail-notes.example', password: 'a long enough passphrase' });
    expectErrorShape(early, 403, 'email_not_verified');
    const token = mailTo('maya@trail-notes.example').link('/verify-email');
    const verified = await b.post('/verify-email', { token });
    expect(verified.body).toEqual({ verified: true, email: 'maya@trail-notes.example' });
    expectErrorShape(await b.post('/verify-email', { token }), 404, 'not_found');
    const session = await b.signIn('MAYA@trail-notes.example ', 'a long enough passphrase');
    expect(session.accounts).toEqual([expect.objectContaining({ role: 'owner', status: 'pending', name: 'Trail Notes' })]);
    // Pending review: no credential can be issued yet, and the page says why.
    const issue = await b.post(`/accounts/${session.accounts[0]!.account_id}/keys`, { type: 'api_key', key_kind: 'live' });
    expectErrorShape(issue, 403, 'account_not_active');
  });

  it('answers a sign-up with a taken address exactly as any other, and tells only the owner by mail', async () => {
    const before = mailsTo(owner().email);
    const b = browser();
    const res = await b.post('/signup', { email: owner().email, password: 'another long passphrase', account_name: 'Copycat' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: 'verification_sent' });
    expect(mailsTo(owner().email)).toBe(before + 1);
    expect(mailTo(owner().email).text).toContain('already');
  });

  it('gives one answer for an unknown address and a wrong password', async () => {
    const b = browser();
    const unknown = await b.post('/signin', { email: 'nobody@nowhere.example', password: 'whatever it is' });
    const wrong = await b.post('/signin', { email: owner().email, password: 'not the password' });
    expectErrorShape(unknown, 401, 'invalid_credentials');
    expectErrorShape(wrong, 401, 'invalid_credentials');
    expect(unknown.body.detail).toBe(wrong.body.detail);
  });

  it('refuses bad input with the field named, and passwords shorter than 12 characters', async () => {
    const res = await browser().post('/signup', { email: 'not-an-address', password: 'short', account_name: 'X' });
    expectErrorShape(res, 400, 'invalid_parameter');
    expect(res.body.errors.map((e: { param: string }) => e.param).sort()).toEqual(expect.arrayContaining(['email']));
  });

  it('limits sign-in attempts per e-mail address', async () => {
    const limited = await createTestDeps({ sameDatabaseAs: deps, env: { MAIL_DIR: mailDir, TRUST_PROXY_HOPS: '1', RATELIMIT_SIGNIN_EMAIL_PER_MIN: '3' } });
    try {
      const app = createApp(limited, { webDir }).callback();
      const codes: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await request(app)
          .post(`${API}/signin`)
          .set('Origin', origin)
          .set('X-Forwarded-For', `192.0.2.${i + 1}`)
          .send({ email: 'target@victim.example', password: `guess ${i}` });
        codes.push(r.status);
        if (r.status === 429) expect(r.headers['retry-after']).toBeDefined();
      }
      expect(codes).toEqual([401, 401, 401, 429, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe('sessions, CSRF and credentials of the API', () => {
  it('refuses a change without the CSRF token or from another origin, and API credentials on the portal API', async () => {
    const b = browser();
    await b.signIn(owner().email, owner().password);
    b.setCsrf('');
    const hijack = await b.patch(`/accounts/${ACC()}`, { name: 'Hijacked' });
    expectErrorShape(hijack, 403, 'csrf_failed');
    const foreign = await request(http).post(`${API}/signin`).set('Origin', 'https://evil.example').send({ email: owner().email, password: owner().password });
    expectErrorShape(foreign, 403, 'csrf_failed');
    const withKey = await request(http).get(`${API}/session`).set('X-API-Key', deps.demo!.publishers[0]!.keys.live);
    expectErrorShape(withKey, 401, 'not_authenticated');
    expectErrorShape(await request(http).get(`${API}/session`), 401, 'not_authenticated');
  });

  it('sets an httpOnly, SameSite=Lax session cookie and ends it at sign-out', async () => {
    const res = await request(http).post(`${API}/signin`).set('Origin', origin).send({ email: owner().email, password: owner().password });
    // One session cookie: no signature companion (the value is random and stored hashed); beside it, the sign-in device cookie.
    const sessionCookies = (res.headers['set-cookie'] as unknown as string[]).filter((c) => c.startsWith('cw_session'));
    expect(sessionCookies).toHaveLength(1);
    const cookie = sessionCookies[0]!;
    expect(cookie).toMatch(/cw_session=[A-Za-z0-9_-]{40,}/);
    expect(cookie).toMatch(/httponly/i);
    expect(cookie).toMatch(/samesite=lax/i);
    const jar = cookie.split(';')[0]!;
    expect((await request(http).get(`${API}/session`).set('Cookie', jar)).status).toBe(200);
    const out = await request(http).post(`${API}/signout`).set('Cookie', jar).set('Origin', origin).set('X-CSRF-Token', res.body.csrf_token);
    expect(out.status).toBe(204);
    expect((await request(http).get(`${API}/session`).set('Cookie', jar)).status).toBe(401);
  });

  it('lists a person’s sessions and signs out everywhere', async () => {
    const a = browser();
    const b = browser();
    await a.signIn(owner().email, owner().password);
    await b.signIn(owner().email, owner().password);
    const list = await a.get('/sessions');
    expect(list.body.data.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    expect(list.body.data.length).toBeGreaterThanOrEqual(2);
    // The network as a keyed hash, never the address or its prefix (docs/portal.md).
    expect(list.body.data[0].address).toMatch(/^net_[A-Za-z0-9_-]{12}$/);
    expect((await a.del('/sessions')).status).toBe(204);
    expect((await a.get('/session')).status).toBe(401);
    expect((await b.get('/session')).status).toBe(401);
  });
});

describe('roles are the use cases’ policies', () => {
  it('lets an analyst read the account but not its keys or the postback configuration’s changes', async () => {
    const b = browser();
    const s = await b.signIn(analyst().email, analyst().password);
    expect(s.accounts).toEqual([expect.objectContaining({ account_id: ACC(), role: 'analyst' })]);
    expect((await b.get(`/accounts/${ACC()}`)).status).toBe(200);
    expect((await b.get(`/accounts/${ACC()}/postback`)).status).toBe(200);
    expect((await b.get(`/accounts/${ACC()}/security-log`)).status).toBe(200);
    const keys = await b.get(`/accounts/${ACC()}/keys`);
    expectErrorShape(keys, 403, 'role_not_allowed');
    expect(keys.body.detail).toContain('analyst');
    expectErrorShape(await b.put(`/accounts/${ACC()}/postback`, { url: 'https://example.com/pb' }), 403, 'role_not_allowed');
    expectErrorShape(await b.post(`/accounts/${ACC()}/keys`, { type: 'api_key', key_kind: 'live' }), 403, 'role_not_allowed');
    expectErrorShape(await b.patch(`/accounts/${ACC()}`, { name: 'Renamed' }), 403, 'role_not_allowed');
  });

  it('never reaches an account the person is not a member of (404, whatever the path)', async () => {
    const b = browser();
    await b.signIn(owner().email, owner().password);
    const other = OTHER();
    for (const path of [
      `/accounts/${other}`,
      `/accounts/${other}/keys`,
      `/accounts/${other}/postback`,
      `/accounts/${other}/members`,
      `/accounts/${other}/security-log`,
    ])
      expectErrorShape(await b.get(path), 404, 'not_found');
    expectErrorShape(await b.post(`/accounts/${other}/keys`, { type: 'api_key', key_kind: 'live' }), 404, 'not_found');
    // A credential of the other account, named under one's own: not found either.
    const theirs = (await deps.data.auth.credentialsOf(other)).find((c) => c.status === 'active')!;
    expectErrorShape(await b.del(`/accounts/${ACC()}/keys/${String(theirs._id)}`), 404, 'not_found');
    expect((await deps.data.auth.credentialById(String(theirs._id)))!.status).toBe('active');
  });
});

describe('every account endpoint of the portal’s document', () => {
  it('answers 404 to a person for an account they are not a member of, and changes nothing there', async () => {
    const doc = openApiDocument(deps) as { paths: Record<string, Record<string, unknown>> };
    const b = browser();
    await b.signIn(owner().email, owner().password);
    const theirs = (await deps.data.auth.credentialsOf(OTHER())).filter((c) => c.status === 'active').length;
    const checked: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (!path.includes('{account}')) continue;
      for (const method of Object.keys(methods)) {
        const url = path
          .replace('/portal/api', '')
          .replace('{account}', OTHER())
          .replace(/\{[a-z_]+\}/g, 'x1');
        const res = method === 'get' ? await b.get(url) : await b[method === 'delete' ? 'del' : (method as 'post' | 'put' | 'patch')](url, {});
        // Membership is checked before the input: nothing is said about the other account, not even what it would accept.
        expect(res.status, `${method.toUpperCase()} ${path}: ${JSON.stringify(res.body)}`).toBe(404);
        expect(res.body.code).toBe('not_found');
        checked.push(`${method} ${path}`);
      }
    }
    expect(checked.length).toBeGreaterThanOrEqual(15);
    expect((await deps.data.auth.credentialsOf(OTHER())).filter((c) => c.status === 'active').length).toBe(theirs);
  });
});

describe('Settings, Keys', () => {
  it('issues a key shown once, asks for the password again after 10 minutes, rotates and revokes at the next request', async () => {
    const b = browser();
    const s = await b.signIn(owner().email, owner().password);
    const issued = await b.post(`/accounts/${ACC()}/keys`, { type: 'api_key', key_kind: 'test', label: 'staging server' });
    expect(issued.status).toBe(201);
    expect(issued.body.secret).toMatch(/^test_/);
    expect(issued.body.credential).toMatchObject({
      prefix: expect.stringMatching(/^test_/),
      label: 'staging server',
      created_by: owner().email,
      status: 'active',
    });
    expect((await verifyCredential(deps.data.auth, issued.body.secret, ['api_key'])).publisher._id).toBe(ACC());

    const listed = await b.get(`/accounts/${ACC()}/keys`);
    const row = listed.body.data.find((k: { id: string }) => k.id === issued.body.credential.id);
    expect(row).toMatchObject({ label: 'staging server', created_by: owner().email });
    expect(JSON.stringify(listed.body)).not.toContain(issued.body.secret);
    expect(listed.body.data.some((k: { last_used_at: string | null }) => k.last_used_at !== null)).toBe(true);

    // The password given more than 10 minutes ago: sensitive changes ask for it again.
    await deps.models.PortalSession.updateMany({ user_id: s.user.id }, { $set: { reauthenticated_until: new Date(Date.now() - 1000) } });
    expectErrorShape(await b.post(`/accounts/${ACC()}/keys/${issued.body.credential.id}/rotate`), 403, 'reauthentication_required');
    expectErrorShape(await b.post('/reauth', { password: 'wrong password' }), 401, 'invalid_credentials');
    expect((await b.post('/reauth', { password: owner().password })).status).toBe(200);
    const rotated = await b.post(`/accounts/${ACC()}/keys/${issued.body.credential.id}/rotate`);
    expect(rotated.status).toBe(201);
    await expect(verifyCredential(deps.data.auth, issued.body.secret, ['api_key'])).rejects.toMatchObject({ code: 'not_authenticated' });
    expect((await b.del(`/accounts/${ACC()}/keys/${rotated.body.credential.id}`)).status).toBe(204);
    await expect(verifyCredential(deps.data.auth, rotated.body.secret, ['api_key'])).rejects.toMatchObject({ code: 'not_authenticated' });
    expectErrorShape(await b.del(`/accounts/${ACC()}/keys/${rotated.body.credential.id}`), 404, 'not_found');

    const log = await b.get(`/accounts/${ACC()}/security-log?limit=50`);
    const types = log.body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['credential_issued', 'credential_rotated', 'credential_revoked', 'signin']));
    const revoked = log.body.data.find((e: { type: string }) => e.type === 'credential_revoked');
    expect(revoked.actor).toEqual({ email: owner().email });
    expect(revoked.address).toMatch(/^net_[A-Za-z0-9_-]{12}$/); // the network's keyed hash, never the address
    expect(log.body.data.find((e: { type: string }) => e.type === 'signin').address).toMatch(/^net_[A-Za-z0-9_-]{12}$/);
    expect(JSON.stringify(log.body)).not.toContain(rotated.body.secret);
  });

  it('refuses a key kind with a reporting token, and an API key without a kind', async () => {
    const b = browser();
    await b.signIn(owner().email, owner().password);
    expectErrorShape(await b.post(`/accounts/${ACC()}/keys`, { type: 'api_key' }), 400, 'invalid_parameter');
    expectErrorShape(await b.post(`/accounts/${ACC()}/keys`, { type: 'reporting_token', key_kind: 'live' }), 400, 'invalid_parameter');
    expectErrorShape(await b.post(`/accounts/${ACC()}/keys`, { type: 'merchant_token' }), 400, 'invalid_parameter');
  });
});

describe('Settings, Postback', () => {
  it('creates the postback with its secret once, sends a signed test event to the receiver, and logs the change', async () => {
    const received: Array<{ headers: Record<string, unknown>; body: string }> = [];
    const receiver = handlerServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (receiver.address() as AddressInfo).port;
      const b = browser();
      await b.signIn(owner().email, owner().password);
      const put = await b.put(`/accounts/${ACC()}/postback`, { url: `http://127.0.0.1:${port}/pb?subid={subid}`, http_method: 'POST' });
      expect(put.status).toBe(201);
      expect(put.body.secret).toMatch(/^whsec_/);
      const again = await b.put(`/accounts/${ACC()}/postback`, { url: `http://127.0.0.1:${port}/pb?subid={subid}`, http_method: 'POST', active: true });
      expect(again.status).toBe(200);
      expect(again.body.secret).toBeUndefined();
      const test = await b.post(`/accounts/${ACC()}/postback/test`);
      expect(test.status).toBe(200);
      expect(test.body.status).toBe('succeeded');
      expect(received).toHaveLength(1);
      expect(received[0]!.headers['x-cw-signature']).toMatch(/^v1,/);
      const deliveries = await b.get(`/accounts/${ACC()}/postback/deliveries?page_size=5`);
      expect(deliveries.body.data[0]).toMatchObject({ status: 'succeeded' });
      const log = await b.get(`/accounts/${ACC()}/security-log`);
      const changed = log.body.data.find((e: { type: string }) => e.type === 'postback_changed');
      expect(changed.detail).toMatchObject({ url_host: `127.0.0.1:${port}` });
      expect(JSON.stringify(log.body)).not.toContain(put.body.secret);
    } finally {
      receiver.close();
    }
  });
});

describe('Settings, Team', () => {
  it('invites by mail; the invited person signs up from the link, gets the role’s rights, and the owner changes and removes them', async () => {
    const o = browser();
    await o.signIn(owner().email, owner().password);
    const invited = await o.post(`/accounts/${ACC()}/invitations`, { email: 'Sam@Colleague.example', role: 'analyst' });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ email: 'sam@colleague.example', role: 'analyst', invited_by: owner().email });
    expectErrorShape(await o.post(`/accounts/${ACC()}/invitations`, { email: owner().email, role: 'analyst' }), 409, 'conflict');
    const token = mailTo('sam@colleague.example').link('/invitations/accept');

    const sam = browser();
    const info = await sam.get(`/invitations/preview?token=${token}`);
    expect(info.body).toMatchObject({ account_name: 'Trailhead Reviews', email: 'sam@colleague.example', role: 'analyst' });
    const accepted = await sam.post('/invitations/accept', { token, password: 'sams own passphrase', name: 'Sam' });
    expect(accepted.status).toBe(200);
    sam.setCsrf(accepted.body.csrf_token);
    expect(accepted.body.accounts).toEqual([expect.objectContaining({ account_id: ACC(), role: 'analyst' })]);
    expectErrorShape(await sam.get(`/accounts/${ACC()}/keys`), 403, 'role_not_allowed');
    expectErrorShape(await browser().post('/invitations/accept', { token, password: 'sams own passphrase' }), 404, 'not_found');

    const members = await o.get(`/accounts/${ACC()}/members`);
    const samRow = members.body.data.find((m: { email: string }) => m.email === 'sam@colleague.example');
    expect(samRow.role).toBe('analyst');
    expect((await o.patch(`/accounts/${ACC()}/members/${samRow.user_id}`, { role: 'developer' })).status).toBe(200);
    expect((await sam.get(`/accounts/${ACC()}/keys`)).status).toBe(200);
    expectErrorShape(await sam.post(`/accounts/${ACC()}/invitations`, { email: 'x@y.example', role: 'owner' }), 403, 'role_not_allowed');
    expect((await o.del(`/accounts/${ACC()}/members/${samRow.user_id}`)).status).toBe(204);
    expectErrorShape(await sam.get(`/accounts/${ACC()}`), 404, 'not_found');

    const me = (await o.get('/session')).body.user.id;
    expectErrorShape(await o.patch(`/accounts/${ACC()}/members/${me}`, { role: 'analyst' }), 409, 'last_owner');
    const log = (await o.get(`/accounts/${ACC()}/security-log?limit=100`)).body.data.map((e: { type: string }) => e.type);
    expect(log).toEqual(expect.arrayContaining(['member_invited', 'member_joined', 'member_role_changed', 'member_removed']));
  });
});

describe('passwords', () => {
  it('resets a forgotten password by mail, ending every session; the same answer for unknown addresses', async () => {
    const b = browser();
    await b.post('/signup', { email: 'reset.me@example.org', password: 'the first passphrase', account_name: 'Reset Me' });
    await b.post('/verify-email', { token: mailTo('reset.me@example.org').link('/verify-email') });
    await b.signIn('reset.me@example.org', 'the first passphrase');
    const unknown = await browser().post('/password/forgot', { email: 'ghost@example.org' });
    const known = await browser().post('/password/forgot', { email: 'reset.me@example.org' });
    expect(unknown.status).toBe(202);
    expect(known.body).toEqual(unknown.body);
    const token = mailTo('reset.me@example.org').link('/reset-password');
    expect((await browser().post('/password/reset', { token, password: 'the second passphrase' })).status).toBe(200);
    expect((await b.get('/session')).status).toBe(401);
    expectErrorShape(await browser().post('/signin', { email: 'reset.me@example.org', password: 'the first passphrase' }), 401, 'invalid_credentials');
    await browser().signIn('reset.me@example.org', 'the second passphrase');
  });
});

describe('claiming an instant-monetization application', () => {
  it('binds the application to the signed-in person, who owns the account and issues keys once approved', async () => {
    const app = await requestInstantLinks(
      deps,
      { address: '203.0.113.77' },
      { publisher_url: 'https://trail-notes.example/', placement_description: 'gear list' },
    );
    const b = browser();
    const preview = await b.get(`/claim?application=${app.application_id}&access_secret=${encodeURIComponent(app.access_secret)}`);
    expect(preview.body).toMatchObject({ application_id: app.application_id, status: 'provisional' });
    expectErrorShape(await b.get(`/claim?application=${app.application_id}&access_secret=wrong`), 404, 'not_found');
    const claim = {
      application: app.application_id,
      access_secret: app.access_secret,
      display_name: 'Trail Notes',
      website: 'https://trail-notes.example/',
      channels: ['content'],
      country: 'DE',
    };
    expectErrorShape(await b.post('/claim', claim), 401, 'not_authenticated');

    // Signing up to claim: no account name, so no second account is made.
    await b.post('/signup', { email: 'creator@trail-notes.example', password: 'claiming passphrase here' });
    await b.post('/verify-email', { token: mailTo('creator@trail-notes.example').link('/verify-email') });
    await b.signIn('creator@trail-notes.example', 'claiming passphrase here');
    const claimed = await b.post('/claim', claim);
    expect(claimed.body).toMatchObject({ status: 'under_review', account_id: expect.stringMatching(/^pub_mon_/) });
    const accountId = claimed.body.account_id as string;
    const session = (await b.get('/session')).body;
    expect(session.accounts).toEqual([expect.objectContaining({ account_id: accountId, role: 'owner' })]);
    expectErrorShape(await b.post(`/accounts/${accountId}/keys`, { type: 'api_key', key_kind: 'live' }), 403, 'account_not_active');

    const approved = await approveApplication(deps, app.application_id);
    expect(approved).toMatchObject({ claimed_in_portal: true, api_key: null });
    const issued = await b.post(`/accounts/${accountId}/keys`, { type: 'api_key', key_kind: 'live' });
    expect(issued.status).toBe(201);
    expect((await verifyCredential(deps.data.auth, issued.body.secret, ['api_key'])).publisher._id).toBe(accountId);
    const other = browser();
    await other.signIn(owner().email, owner().password);
    expectErrorShape(await other.post('/claim', claim), 409, 'conflict');
  });
});

describe('pages', () => {
  it('redirects a page that needs a session to sign-in, keeping where it was going', async () => {
    const res = await browser().page('/settings/keys?tab=1');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`/signin?next=${encodeURIComponent('/settings/keys?tab=1')}`);
  });

  it('serves the app to a signed-in person with a strict Content-Security-Policy and no framing', async () => {
    const b = browser();
    await b.signIn(owner().email, owner().password);
    const res = await b.page('/settings/postback');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(res.headers['x-frame-options']).toBe('DENY');
    const signin = await browser().page('/signin');
    expect(signin.status).toBe(200);
  });
});

describe('protected resource metadata (RFC 9728)', () => {
  it('names this portal as the authorization server of both resources, with and without the trailing slash', async () => {
    const base = new URL(deps.config.portalUrl).origin;
    for (const [path, resource, scopes] of [
      [
        '/.well-known/oauth-protected-resource/api/v1/mcp',
        `${deps.config.portalUrl}/api/v1/mcp`,
        ['affiliate:read', 'catalog:read', 'links:write', 'reports:read', 'offline_access'],
      ],
      [
        '/.well-known/oauth-protected-resource/api/v1/mcp/',
        `${deps.config.portalUrl}/api/v1/mcp`,
        ['affiliate:read', 'catalog:read', 'links:write', 'reports:read', 'offline_access'],
      ],
      [
        '/.well-known/oauth-protected-resource/api/v1/publisher',
        `${deps.config.portalUrl}/api/v1/publisher`,
        ['affiliate:read', 'catalog:read', 'links:write', 'reports:read', 'postbacks:read', 'payouts:write', 'offline_access'],
      ],
    ] as const) {
      const res = await request(http).get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.body).toMatchObject({ resource, authorization_servers: [deps.config.portalUrl], bearer_methods_supported: ['header'] });
      expect([...res.body.scopes_supported].sort()).toEqual([...scopes].sort());
      expect(resource.startsWith(base)).toBe(true);
    }
  });
});
