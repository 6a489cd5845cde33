/**
 * OAuth in the portal through HTTP, as a browser and an app would drive it: discovery served by
 * the portal, dynamic registration (loopback only for plain http, limited per address), the code
 * flow with PKCE for the MCP resource through the portal's own sign-in and consent calls (a cookie
 * jar, the portal's Origin and CSRF token), roles limiting what can be granted, Settings, Apps
 * listing and revoking the grant, and the security log.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthKeys, resourceIndicators, verifyAccessToken } from '@cw/oauth';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, read field by field in assertions
type Json = Record<string, any>;

let deps: TestDeps;
let server: http.Server;
let base: string;
let mailDir: string;
let webDir: string;
let resources: ReturnType<typeof resourceIndicators>;
const REDIRECT = 'http://127.0.0.1:9/callback';
const REGISTER_LIMIT = 5;

beforeAll(async () => {
  mailDir = mkdtempSync(join(tmpdir(), 'portal-oauth-mail-'));
  webDir = mkdtempSync(join(tmpdir(), 'portal-oauth-web-'));
  writeFileSync(join(webDir, 'index.html'), '<!doctype html><title>Portal</title><script type="module" src="/assets/app.js"></script>');
  // The issuer is the server's own origin: listen first, then configure the portal with it.
  server = http.createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  deps = await createTestDeps({
    seedProducts: 10,
    env: {
      PORTAL_URL: base,
      MAIL_DIR: mailDir,
      TRUST_PROXY_HOPS: '1',
      RATELIMIT_IP_PER_MIN: '100000',
      RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '100000',
      RATELIMIT_SIGNIN_EMAIL_PER_MIN: '100000',
      RATELIMIT_OAUTH_REGISTER_PER_MIN: String(REGISTER_LIMIT),
    },
  });
  resources = resourceIndicators(base);
  const handle = createApp(deps, { webDir }).callback();
  server.on('request', (req, res) => void handle(req, res));
}, 60_000);

afterAll(async () => {
  await new Promise((ok) => server?.close(ok));
  await deps?.close();
  rmSync(mailDir, { recursive: true, force: true });
  rmSync(webDir, { recursive: true, force: true });
});

const owner = () => deps.demo!.publishers[0]!.portal_login;
const analyst = () => deps.demo!.fixtures.analyst_login;
const ACC = () => deps.demo!.publishers[0]!.account_id;

let addressNo = 0;
const nextAddress = () => `203.0.113.${++addressNo}`;

/** A browser: cookies stored from Set-Cookie and sent where their path applies; its own address. */
class Browser {
  private readonly cookies = new Map<string, { value: string; path: string }>();
  readonly ip = nextAddress();
  csrf = '';

  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      const path = attrs.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const expired = attrs.some((a) => a.toLowerCase().startsWith('expires=') && new Date(a.slice(8)).getTime() < Date.now());
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, { value, path });
    }
  }

  private cookieHeader(pathname: string): string {
    return [...this.cookies]
      .filter(([, c]) => pathname === c.path || pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map(([n, c]) => `${n}=${c.value}`)
      .join('; ');
  }

  async fetch(url: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; origin?: string | null } = {}): Promise<Response> {
    const u = new URL(url, base);
    const headers: Record<string, string> = { 'X-Forwarded-For': this.ip, cookie: this.cookieHeader(u.pathname), ...init.headers };
    const method = init.method ?? 'GET';
    if (method !== 'GET') {
      if (init.origin !== null) headers.Origin = init.origin ?? base;
      if (this.csrf) headers['X-CSRF-Token'] = this.csrf;
    }
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(u, { method, headers, redirect: 'manual', body: init.body === undefined ? undefined : JSON.stringify(init.body) });
    this.store(res);
    return res;
  }

  async json(url: string, init: Parameters<Browser['fetch']>[1] = {}): Promise<{ status: number; body: Json }> {
    const res = await this.fetch(url, init);
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  }

  /**
   * Follows redirects from `url` until the portal's interaction page (its uid) or a redirect off
   * the portal (the app's redirect URI: its query).
   */
  async follow(url: string): Promise<{ uid: string } | { back: URLSearchParams }> {
    let next = new URL(url, base).href;
    for (let hop = 0; hop < 12; hop++) {
      const to = new URL(next);
      if (to.origin !== base) return { back: to.searchParams };
      const m = /^\/oauth\/interaction\/([A-Za-z0-9_-]+)$/.exec(to.pathname);
      if (m) {
        // The page itself: the portal's HTML.
        const page = await this.fetch(next, { headers: { Accept: 'text/html' } });
        expect(page.status).toBe(200);
        expect(page.headers.get('content-type')).toMatch(/text\/html/);
        expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
        await page.body?.cancel();
        return { uid: m[1]! };
      }
      const res = await this.fetch(next);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) throw new Error(`${res.status} at ${next}: ${(await res.text()).slice(0, 400)}`);
      await res.body?.cancel();
      next = new URL(location, next).href;
    }
    throw new Error('too many redirects');
  }
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

const agent = {
  client_name: 'Test <b>Agent</b>',
  redirect_uris: [REDIRECT],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  scope: 'affiliate:read catalog:read links:write reports:read offline_access',
};

async function register(metadata: Record<string, unknown> = agent, ip = nextAddress()): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Forwarded-For': ip },
    body: JSON.stringify(metadata),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function token(form: Record<string, string>): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

const SCOPE = 'affiliate:read catalog:read links:write reports:read offline_access';
const interaction = (uid: string, call = '') => `/oauth/interaction/${uid}${call}`;

/** Starts an authorization for a newly registered app; the browser lands on the sign-in interaction. */
async function start(b: Browser, scope = SCOPE) {
  const clientId = (await register()).body.client_id as string;
  const { verifier, challenge } = pkce();
  const at = await b.follow(
    `/oauth/authorize?${new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope,
      state: 'st-1',
      prompt: 'consent',
      resource: resources.mcp,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })}`,
  );
  if (!('uid' in at)) throw new Error(`no interaction: ${at.back}`);
  return { clientId, verifier, uid: at.uid };
}

/** Signs in at the login interaction with the portal's form; the browser lands on the consent interaction. */
async function signInFor(b: Browser, uid: string, login: { email: string; password: string }): Promise<string> {
  const details = await b.json(interaction(uid, '/details'));
  expect(details.status).toBe(200);
  expect(details.body.prompt).toBe('login');
  const res = await b.json(interaction(uid, '/login'), { method: 'POST', body: login });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const at = await b.follow(res.body.redirect_to);
  if (!('uid' in at)) throw new Error(`no consent interaction: ${at.back}`);
  const consent = await b.json(interaction(at.uid, '/details'));
  b.csrf = consent.body.csrf_token;
  return at.uid;
}

/** Consents and follows back to the app; its code exchanged. */
async function consentAndExchange(b: Browser, uid: string, clientId: string, verifier: string, body: Record<string, unknown>) {
  const res = await b.json(interaction(uid, '/consent'), { method: 'POST', body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const at = await b.follow(res.body.redirect_to);
  if (!('back' in at)) throw new Error('the consent did not lead back to the app');
  expect(at.back.get('error_description') ?? at.back.get('error')).toBeNull();
  expect(at.back.get('state')).toBe('st-1');
  expect(at.back.get('iss')).toBe(base);
  const exchanged = await token({
    grant_type: 'authorization_code',
    code: at.back.get('code')!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
    resource: resources.mcp,
  });
  expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
  return exchanged.body;
}

const verify = (t: unknown) => verifyAccessToken(String(t), { issuer: base, audience: resources.mcp, jwks: oauthKeys(deps.config.keys).jwks });

async function securityLog(b: Browser, account: string) {
  const log = await b.json(`/portal/api/accounts/${account}/security-log?limit=200`);
  expect(log.status).toBe(200);
  return log.body.data as Array<{ type: string; actor: { email?: string } | null; detail: Json }>;
}

describe('discovery and registration', () => {
  it('serves the authorization server metadata at both well-known paths, issuer = the portal URL', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(200);
      expect(await res.json()).toMatchObject({
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        registration_endpoint: `${base}/oauth/register`,
        revocation_endpoint: `${base}/oauth/revoke`,
        jwks_uri: `${base}/oauth/jwks`,
        code_challenge_methods_supported: ['S256'],
      });
    }
  });

  it('registers a public loopback client and refuses plain http off loopback', async () => {
    const ok = await register();
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ client_name: agent.client_name, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    expect(ok.body).not.toHaveProperty('client_secret');
    const bad = await register({ ...agent, redirect_uris: ['http://evil.example/cb'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^invalid_(client_metadata|redirect_uri)$/);
  });

  it('limits registrations per client address (429 with Retry-After), other addresses unaffected', async () => {
    const ip = nextAddress();
    for (let i = 0; i < REGISTER_LIMIT; i++) expect((await register(agent, ip)).status).toBe(201);
    const res = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Forwarded-For': ip },
      body: JSON.stringify(agent),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await res.json()) as { code: string }).code).toBe('rate_limited');
    expect((await register(agent, nextAddress())).status).toBe(201);
  });
});

describe('sign-in and consent', () => {
  it('the whole code flow with PKCE for the MCP resource: the portal signs the person in, they consent for their account, the token acts for it', async () => {
    const b = new Browser();
    const { clientId, verifier, uid } = await start(b);
    const consentUid = await signInFor(b, uid, owner());
    const details = await b.json(interaction(consentUid, '/details'));
    expect(details.body).toMatchObject({
      prompt: 'consent',
      client: { client_id: clientId, name: agent.client_name, redirect_host: '127.0.0.1:9' },
      signed_in: { email: owner().email },
      person_matches: true,
      reauthentication_required: false,
    });
    expect(details.body.access.resources).toEqual([
      {
        resource: resources.mcp,
        label: expect.any(String),
        scopes: ['affiliate:read', 'catalog:read', 'links:write', 'reports:read'].map((scope) => ({ scope, description: expect.any(String) })),
      },
    ]);
    expect(details.body.access.offline_access).toMatchObject({ scope: 'offline_access' });
    const account = details.body.accounts.find((a: { account_id: string }) => a.account_id === ACC());
    expect(account).toMatchObject({ role: 'owner', grantable_scopes: ['affiliate:read', 'catalog:read', 'links:write', 'reports:read'] });

    const tokens = await consentAndExchange(b, consentUid, clientId, verifier, { account_id: ACC() });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const claims = await verify(tokens.access_token);
    expect(claims).toMatchObject({ accountId: ACC(), clientId, scopes: ['affiliate:read', 'catalog:read', 'links:write', 'reports:read'] });
    const me = await b.json('/portal/api/session');
    expect(claims.sub).toBe(me.body.user.id);

    const log = await securityLog(b, ACC());
    expect(log.find((e) => e.type === 'app_granted' && e.detail.grant_id === claims.grantId)).toMatchObject({
      actor: { email: owner().email },
      detail: { client_id: clientId, app: agent.client_name, resources: [resources.mcp], redirect_host: '127.0.0.1:9', offline_access: true },
    });
  });

  it('a person already signed in to the portal is signed in for the app with that session', async () => {
    const b = new Browser();
    const signin = await b.json('/portal/api/signin', { method: 'POST', body: owner() });
    expect(signin.status).toBe(200);
    b.csrf = signin.body.csrf_token;
    const { uid } = await start(b);
    const details = await b.json(interaction(uid, '/details'));
    expect(details.body).toMatchObject({ prompt: 'login', signed_in: { email: owner().email }, csrf_token: b.csrf });
    const res = await b.json(interaction(uid, '/login'), { method: 'POST', body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const at = await b.follow(res.body.redirect_to);
    expect('uid' in at).toBe(true);
  });

  it("answers the portal's one sign-in error for any mistake, and needs the portal's Origin", async () => {
    const b = new Browser();
    const { uid } = await start(b);
    const wrong = await b.json(interaction(uid, '/login'), { method: 'POST', body: { email: owner().email, password: 'not the password' } });
    const unknown = await b.json(interaction(uid, '/login'), { method: 'POST', body: { email: 'nobody@nowhere.example', password: 'whatever it is' } });
    expect(wrong).toMatchObject({ status: 401, body: { code: 'invalid_credentials' } });
    expect(unknown).toMatchObject({ status: 401, body: { code: 'invalid_credentials', detail: wrong.body.detail } });
    expect(wrong.body.request_id).toEqual(expect.any(String));
    const foreign = await b.json(interaction(uid, '/login'), { method: 'POST', body: owner(), origin: 'https://evil.example' });
    expect(foreign).toMatchObject({ status: 403, body: { code: 'csrf_failed' } });
    const none = await b.json(interaction(uid, '/login'), { method: 'POST', body: {} });
    expect(none).toMatchObject({ status: 401, body: { code: 'not_authenticated' } });
  });

  it('an interaction unknown or without its cookie is 404 in the portal’s shape', async () => {
    const stranger = new Browser();
    const b = new Browser();
    const { uid } = await start(b);
    const res = await stranger.json(interaction(uid, '/details'));
    expect(res).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });

  it('an analyst cannot grant links:write; by default they grant what their role allows', async () => {
    const b = new Browser();
    const { clientId, verifier, uid } = await start(b);
    const consentUid = await signInFor(b, uid, analyst());
    const details = await b.json(interaction(consentUid, '/details'));
    expect(details.body.accounts.find((a: { account_id: string }) => a.account_id === ACC())).toMatchObject({
      role: 'analyst',
      grantable_scopes: ['affiliate:read', 'catalog:read', 'reports:read'],
    });
    const refused = await b.json(interaction(consentUid, '/consent'), {
      method: 'POST',
      body: { account_id: ACC(), scopes: ['catalog:read', 'links:write'] },
    });
    expect(refused).toMatchObject({ status: 403, body: { code: 'role_not_allowed' } });
    const tokens = await consentAndExchange(b, consentUid, clientId, verifier, { account_id: ACC() });
    const claims = await verify(tokens.access_token);
    expect(claims).toMatchObject({ accountId: ACC(), scopes: ['affiliate:read', 'catalog:read', 'reports:read'] });
  });

  it('consent needs the password given in the last 10 minutes, and an account of the person', async () => {
    const b = new Browser();
    const { uid } = await start(b);
    const consentUid = await signInFor(b, uid, owner());
    const other = deps.demo!.publishers[1]!.account_id;
    expect(await b.json(interaction(consentUid, '/consent'), { method: 'POST', body: { account_id: other } })).toMatchObject({
      status: 404,
      body: { code: 'not_found' },
    });
    const me = await b.json('/portal/api/session');
    await deps.models.PortalSession.updateMany({ user_id: me.body.user.id }, { $set: { reauthenticated_until: new Date(Date.now() - 1000) } });
    expect((await b.json(interaction(consentUid, '/details'))).body.reauthentication_required).toBe(true);
    const stale = await b.json(interaction(consentUid, '/consent'), { method: 'POST', body: { account_id: ACC() } });
    expect(stale).toMatchObject({ status: 403, body: { code: 'reauthentication_required' } });
    const reauth = await b.json('/portal/api/reauth', { method: 'POST', body: { password: owner().password } });
    expect(reauth.status).toBe(200);
    const ok = await b.json(interaction(consentUid, '/consent'), { method: 'POST', body: { account_id: ACC() } });
    expect(ok.status).toBe(200);
  });

  it('Deny sends the app access_denied', async () => {
    const b = new Browser();
    const { uid } = await start(b);
    const consentUid = await signInFor(b, uid, owner());
    const res = await b.json(interaction(consentUid, '/abort'), { method: 'POST' });
    expect(res.status).toBe(200);
    const at = await b.follow(res.body.redirect_to);
    if (!('back' in at)) throw new Error('not sent back');
    expect(at.back.get('error')).toBe('access_denied');
    expect(at.back.get('code')).toBeNull();
  });
});

describe('Settings, Apps', () => {
  it('lists the grant (app, who, scopes, resource, created, last used); an analyst cannot revoke; revoking ends the refresh token and is logged', async () => {
    const b = new Browser();
    const { clientId, verifier, uid } = await start(b);
    const consentUid = await signInFor(b, uid, owner());
    const tokens = await consentAndExchange(b, consentUid, clientId, verifier, {
      account_id: ACC(),
      scopes: ['catalog:read', 'reports:read', 'offline_access'],
    });
    const grantId = (await verify(tokens.access_token)).grantId!;

    const list = await b.json(`/portal/api/accounts/${ACC()}/apps`);
    expect(list.status).toBe(200);
    const row = list.body.data.find((g: { id: string }) => g.id === grantId);
    expect(row).toMatchObject({
      app: { client_id: clientId, name: agent.client_name, redirect_hosts: ['127.0.0.1:9'], disabled: false },
      granted_by: { email: owner().email },
      resources: [{ resource: resources.mcp, scopes: ['catalog:read', 'reports:read'] }],
      scopes: ['catalog:read', 'reports:read'],
      offline_access: true,
      created_at: expect.any(String),
      last_used_at: null,
    });

    const a = new Browser();
    const signin = await a.json('/portal/api/signin', { method: 'POST', body: analyst() });
    a.csrf = signin.body.csrf_token;
    expect((await a.json(`/portal/api/accounts/${ACC()}/apps`)).body.data.map((g: { id: string }) => g.id)).toContain(grantId);
    expect(await a.json(`/portal/api/accounts/${ACC()}/apps/${grantId}`, { method: 'DELETE' })).toMatchObject({
      status: 403,
      body: { code: 'role_not_allowed' },
    });
    const other = deps.demo!.publishers[1]!.account_id;
    expect((await b.json(`/portal/api/accounts/${other}/apps`)).status).toBe(404);

    const revoked = await b.fetch(`/portal/api/accounts/${ACC()}/apps/${grantId}`, { method: 'DELETE' });
    expect(revoked.status).toBe(204);
    expect((await b.fetch(`/portal/api/accounts/${ACC()}/apps/${grantId}`, { method: 'DELETE' })).status).toBe(404);
    expect((await b.json(`/portal/api/accounts/${ACC()}/apps`)).body.data.map((g: { id: string }) => g.id)).not.toContain(grantId);
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: clientId });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    const log = (await securityLog(b, ACC())).filter((e) => e.type === 'app_revoked' && e.detail.grant_id === grantId);
    expect(log).toEqual([
      expect.objectContaining({ actor: { email: owner().email }, detail: expect.objectContaining({ reason: 'revoked_in_portal', client_id: clientId }) }),
    ]);
  });

  it('an app revoking its own refresh token ends its grant, and the log says the app did', async () => {
    const b = new Browser();
    const { clientId, verifier, uid } = await start(b);
    const consentUid = await signInFor(b, uid, owner());
    const tokens = await consentAndExchange(b, consentUid, clientId, verifier, { account_id: ACC() });
    const grantId = (await verify(tokens.access_token)).grantId!;
    const res = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: String(tokens.refresh_token), token_type_hint: 'refresh_token', client_id: clientId }),
    });
    expect(res.status).toBe(200);
    expect((await b.json(`/portal/api/accounts/${ACC()}/apps`)).body.data.map((g: { id: string }) => g.id)).not.toContain(grantId);
    const log = (await securityLog(b, ACC())).filter((e) => e.type === 'app_revoked' && e.detail.grant_id === grantId);
    expect(log).toEqual([expect.objectContaining({ actor: null, detail: expect.objectContaining({ reason: 'revoked_by_app', app: agent.client_name }) })]);
  });

  it('a refresh token used twice revokes the grant, and the log says why', async () => {
    const b = new Browser();
    const { clientId, verifier, uid } = await start(b);
    const consentUid = await signInFor(b, uid, owner());
    const tokens = await consentAndExchange(b, consentUid, clientId, verifier, { account_id: ACC() });
    const grantId = (await verify(tokens.access_token)).grantId!;
    const first = await token({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: clientId });
    expect(first.status).toBe(200);
    const reused = await token({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: clientId });
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await b.json(`/portal/api/accounts/${ACC()}/apps`)).body.data.map((g: { id: string }) => g.id)).not.toContain(grantId);
    const log = (await securityLog(b, ACC())).filter((e) => e.type === 'app_revoked' && e.detail.grant_id === grantId);
    expect(log).toEqual([expect.objectContaining({ actor: null, detail: expect.objectContaining({ reason: 'refresh_token_reused', client_id: clientId }) })]);
  });
});
