/**
 * Attacks on the portal's OAuth 2.1 server that an outside probe found, each performed through
 * HTTP against the real portal (issuer = its own origin, a listening server) so none regresses:
 *
 * - sign-out (RP-initiated logout) as an open redirect without a click, and its confirmation
 *   posted from another origin; the sign-out and error pages' security headers;
 * - a refused refresh spending the refresh token (the app's retry then taken for a replay);
 * - registrations that make the consent page read like the portal's own text, or hide its buttons;
 * - a public client handed a client secret;
 * - the metadata hiding the scopes an app may ask for;
 * - an access token the app revokes still working at the resource servers.
 *
 * Each test tries its variants and reports every one that was not refused, not just the first.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '@cw/auth';
import { RESOURCE_SCOPES, resourceIndicators, STATIC_SCOPES } from '@cw/oauth';
import { isDisplayText } from '@cw/validation';
import { startPortal, type PortalHarness } from './support/portal-harness';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, read field by field in assertions
type Json = Record<string, any>;

let p: PortalHarness;
let server: http.Server;
let base: string;
let resources: ReturnType<typeof resourceIndicators>;
const REDIRECT = 'http://127.0.0.1:9/callback';
/** An address an app may register for after sign-out; a probe's page, as far as the person knows. */
const EVIL = 'https://evil.example/landing';

beforeAll(async () => {
  // The issuer is the server's own origin: listen first, then configure the portal with it.
  server = http.createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  p = await startPortal({ PORTAL_URL: base, RATELIMIT_OAUTH_REGISTER_PER_MIN: '100000' }, { seedProducts: 5 });
  resources = resourceIndicators(base);
  server.on('request', (req, res) => void p.http(req, res));
}, 60_000);

afterAll(async () => {
  await new Promise((ok) => server?.close(ok));
  await p?.close();
});

const owner = () => p.deps.demo!.publishers[0]!.portal_login;
const ACC = () => p.deps.demo!.publishers[0]!.account_id;

/** The variants an attack tried, and which were not refused (each test expects none). */
class Attempts {
  readonly tried: string[] = [];
  readonly breaches: string[] = [];
  check(variant: string, held: boolean, got: unknown): void {
    this.tried.push(variant);
    if (!held) this.breaches.push(`${variant}: ${(typeof got === 'string' ? got : JSON.stringify(got)).slice(0, 400)}`);
  }
}

let addressNo = 0;

/** What a page the portal answered looks like to the browser. */
interface Landing {
  status: number;
  headers: Headers;
  html: string;
  url: string;
}

/** Where following a link ended: off the portal (the browser was sent to another site) or on a page of it. */
type Outcome = { left: string } | { page: Landing };

interface HtmlForm {
  action: string;
  fields: Record<string, string>;
  /** The page submits it by itself (no click). */
  auto: boolean;
  /** Submit buttons (name=value) the person could press. */
  buttons: Array<{ name: string; value: string; label: string }>;
}

const unescapeHtml = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, e: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (named[e.toLowerCase()]) return named[e.toLowerCase()]!;
    return String.fromCodePoint(e[1]?.toLowerCase() === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });
const attr = (tag: string, name: string) => {
  const m = new RegExp(`\\b${name}="([^"]*)"`, 'i').exec(tag);
  return m ? unescapeHtml(m[1]!) : undefined;
};

/** The page's POST form, its hidden fields and buttons, as a browser would read them. */
function formOf(html: string): HtmlForm | null {
  const open = /<form\b[^>]*>/i.exec(html);
  if (!open || (attr(open[0], 'method') ?? 'get').toLowerCase() !== 'post') return null;
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input\b[^>]*>/gi)) {
    const name = attr(m[0], 'name');
    if (name && (attr(m[0], 'type') ?? 'text').toLowerCase() === 'hidden') fields[name] = attr(m[0], 'value') ?? '';
  }
  const buttons = [...html.matchAll(/<button\b([^>]*)>([\s\S]*?)<\/button>/gi)]
    .filter((m) => (attr(m[1]!, 'type') ?? 'submit') === 'submit')
    .map((m) => ({ name: attr(m[1]!, 'name') ?? '', value: attr(m[1]!, 'value') ?? '', label: m[2]!.replace(/<[^>]+>/g, '').trim() }));
  return { action: attr(open[0], 'action') ?? '', fields, auto: /forms\[0\]\.submit\(\)|\.submit\(\)/.test(html), buttons };
}

/** A browser: cookies kept per path, its own address; it follows redirects and forms a page submits by itself. */
class Browser {
  private readonly cookies = new Map<string, { value: string; path: string }>();
  readonly ip = `203.0.113.${++addressNo}`;
  csrf = '';

  private store(res: Response): void {
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

  hasCookie(name: string): boolean {
    return this.cookies.has(name);
  }

  async fetch(
    url: string,
    init: { method?: string; body?: unknown; form?: Record<string, string>; origin?: string | null; headers?: Record<string, string> } = {},
  ) {
    const u = new URL(url, base);
    const headers: Record<string, string> = { 'X-Forwarded-For': this.ip, cookie: this.cookieHeader(u.pathname), ...init.headers };
    const method = init.method ?? (init.form ? 'POST' : 'GET');
    if (method !== 'GET') {
      if (init.origin !== null) headers.Origin = init.origin ?? base;
      if (this.csrf && !init.form) headers['X-CSRF-Token'] = this.csrf;
    }
    let body: string | undefined;
    if (init.form) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    } else if (init.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.body);
    }
    const res = await fetch(u, { method, headers, redirect: 'manual', body });
    this.store(res);
    return res;
  }

  async json(url: string, init: Parameters<Browser['fetch']>[1] = {}): Promise<{ status: number; body: Json }> {
    const res = await this.fetch(url, init);
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  }

  /**
   * Opens `url` (or posts `form` to it) and does what a browser does with no click: follows
   * redirects on the portal and submits a form the page submits by script, until a page, or a
   * redirect that leaves the portal.
   */
  async open(url: string, form?: { fields: Record<string, string>; origin?: string | null }): Promise<Outcome> {
    let next = new URL(url, base).href;
    let post = form;
    for (let hop = 0; hop < 12; hop++) {
      const to = new URL(next);
      if (to.origin !== base) return { left: to.href };
      const accept = { Accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' };
      const res = post ? await this.fetch(next, { form: post.fields, origin: post.origin, headers: accept }) : await this.fetch(next, { headers: accept });
      post = undefined;
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel();
        next = new URL(location, next).href;
        continue;
      }
      const html = await res.text();
      const f = res.status === 200 ? formOf(html) : null;
      if (f?.auto) {
        next = new URL(f.action, next).href;
        post = { fields: f.fields };
        continue;
      }
      return { page: { status: res.status, headers: res.headers, html, url: next } };
    }
    throw new Error('too many hops');
  }

  /** Presses the page's button whose label matches (a click), from the portal's own page unless `origin` says otherwise. */
  async press(page: Landing, label: RegExp, origin?: string | null): Promise<Outcome> {
    const f = formOf(page.html);
    const button = f?.buttons.find((b) => label.test(b.label));
    if (!f || !button) throw new Error(`no button ${label} on the page: ${page.html.slice(0, 600)}`);
    return this.open(new URL(f.action, page.url).href, { fields: { ...f.fields, ...(button.name ? { [button.name]: button.value } : {}) }, origin });
  }
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

const app = (extra: Record<string, unknown> = {}) => ({
  client_name: 'Probe Agent',
  redirect_uris: [REDIRECT],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  ...extra,
});

async function register(metadata: Record<string, unknown>): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Forwarded-For': `198.18.0.${(addressNo++ % 250) + 1}` },
    body: JSON.stringify(metadata),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

async function token(form: Record<string, string | string[]>): Promise<{ status: number; body: Json }> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const one of [v].flat()) body.append(k, one);
  const res = await fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  return { status: res.status, body: (await res.json()) as Json };
}

async function revoke(form: Record<string, string>): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, text: await res.text() };
}

const interaction = (uid: string, call = '') => `/oauth/interaction/${uid}${call}`;
const uidOf = (o: Outcome) => {
  const m = 'page' in o ? /^\/oauth\/interaction\/([A-Za-z0-9_-]+)$/.exec(new URL(o.page.url).pathname) : null;
  if (!m)
    throw new Error(`not at an interaction: ${JSON.stringify('left' in o ? o : { url: o.page.url, status: o.page.status, html: o.page.html.slice(0, 300) })}`);
  return m[1]!;
};

/** Sends `b` through the authorization to the consent step (signing the owner in when it has no portal session); the consent's uid. */
async function toConsent(b: Browser, clientId: string, opts: { scope?: string; resource?: string } = {}) {
  const { verifier, challenge } = pkce();
  const query = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: opts.scope ?? 'openid offline_access affiliate:read catalog:read',
    state: 'st-1',
    prompt: 'consent',
    resource: opts.resource ?? resources.mcp,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  let uid = uidOf(await b.open(`/oauth/authorize?${query}`));
  const details = await b.json(interaction(uid, '/details'));
  if (details.body.prompt === 'login') {
    const login = await b.json(interaction(uid, '/login'), { method: 'POST', body: b.csrf ? {} : owner() });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    uid = uidOf(await b.open(login.body.redirect_to));
  }
  const consent = await b.json(interaction(uid, '/details'));
  expect(consent.body.prompt).toBe('consent');
  b.csrf = consent.body.csrf_token;
  return { uid, verifier, details: consent.body };
}

interface Connected {
  clientId: string;
  tokens: Json;
  browser: Browser;
}

/**
 * An app connected the way a person does it: registered, sent to the portal, the owner signs in
 * and allows it for their account; its code exchanged. `openid` asked for: an ID token too.
 */
async function connect(
  opts: { metadata?: Record<string, unknown>; scope?: string; resource?: string; browser?: Browser; account?: string } = {},
): Promise<Connected> {
  const b = opts.browser ?? new Browser();
  const reg = await register(app(opts.metadata));
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  const clientId = reg.body.client_id as string;
  const resource = opts.resource ?? resources.mcp;
  const { uid, verifier } = await toConsent(b, clientId, { scope: opts.scope, resource });
  const allowed = await b.json(interaction(uid, '/consent'), { method: 'POST', body: { account_id: opts.account ?? ACC() } });
  expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
  const back = await b.open(allowed.body.redirect_to);
  if (!('left' in back)) throw new Error(`consent did not lead back to the app: ${back.page.status} ${back.page.html.slice(0, 300)}`);
  const code = new URL(back.left).searchParams.get('code');
  expect(code).toBeTruthy();
  const exchanged = await token({
    grant_type: 'authorization_code',
    code: code!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
    resource,
  });
  expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
  return { clientId, tokens: exchanged.body, browser: b };
}

const SIGNED_OUT = /You are signed out/;
const endSession = (params: Record<string, string>) => `/oauth/session/end?${new URLSearchParams(params)}`;
const described = (o: Outcome) =>
  'left' in o ? `left for ${o.left}` : `${o.page.status} at ${new URL(o.page.url).pathname}: ${o.page.html.replace(/\s+/g, ' ').slice(0, 160)}`;
const claimsOf = (jwt: unknown): Json => JSON.parse(Buffer.from(String(jwt).split('.')[1]!, 'base64url').toString()) as Json;
const forged = (jwt: string) => jwt.replace(/\.[^.]+$/, `.${randomBytes(64).toString('base64url')}`);

describe('signing out of apps (RP-initiated logout)', () => {
  it('never sends the browser to an address an app registered unless that app shows its ID token for the signed-in person, and the person confirms', async () => {
    const registered = await connect({ metadata: { post_logout_redirect_uris: [EVIL] } });
    const other = await connect({ metadata: { post_logout_redirect_uris: ['https://other.example/bye'] } });
    const idToken = String(registered.tokens.id_token);
    expect(idToken.split('.')).toHaveLength(3);
    const attempts = new Attempts();

    // No session at all: nothing to sign out of, so nowhere to go (the probe's zero-click redirect).
    const noSession: Array<[string, Record<string, string>]> = [
      ['client_id and a registered address', { client_id: registered.clientId, post_logout_redirect_uri: EVIL, state: 's' }],
      ['a registered address alone', { post_logout_redirect_uri: EVIL }],
      ["the app's valid ID token and a registered address", { id_token_hint: idToken, post_logout_redirect_uri: EVIL, state: 's' }],
      ['a forged ID token', { id_token_hint: forged(idToken), post_logout_redirect_uri: EVIL }],
    ];
    for (const [name, params] of noSession) {
      const o = await new Browser().open(endSession(params));
      attempts.check(`no session, ${name}`, 'page' in o && o.page.status === 200 && SIGNED_OUT.test(o.page.html) && !formOf(o.page.html), described(o));
    }

    // A session, without a valid ID token of the app: the person may sign out (a click), and stays on the portal.
    const withSession: Array<[string, Record<string, string>]> = [
      ['client_id and a registered address', { client_id: registered.clientId, post_logout_redirect_uri: EVIL, state: 's' }],
      ['a forged ID token', { id_token_hint: forged(idToken), post_logout_redirect_uri: EVIL }],
      ["another app's ID token with this app's address", { id_token_hint: String(other.tokens.id_token), post_logout_redirect_uri: EVIL }],
      ['an access token in place of the ID token', { id_token_hint: String(registered.tokens.access_token), post_logout_redirect_uri: EVIL }],
      ['an address the app did not register', { id_token_hint: idToken, post_logout_redirect_uri: 'https://evil.example/other' }],
    ];
    for (const [name, params] of withSession) {
      const { browser } = await connect({ metadata: { post_logout_redirect_uris: [EVIL] } });
      const o = await browser.open(endSession(params));
      if (!('page' in o) || o.page.status !== 200 || !formOf(o.page.html)) {
        attempts.check(`session, ${name}: asks first`, false, described(o));
        continue;
      }
      const after = await browser.press(o.page, /sign me out/i);
      attempts.check(
        `session, ${name}: signed out on the portal`,
        'page' in after && after.page.status === 200 && SIGNED_OUT.test(after.page.html),
        described(after),
      );
    }

    // A valid ID token of another person (the prober's own app and account) does not send this person anywhere.
    const prober = await connect({ metadata: { post_logout_redirect_uris: [EVIL] } });
    const victim = new Browser();
    const signin = await victim.json('/portal/api/signin', { method: 'POST', body: p.deps.demo!.publishers[1]!.portal_login });
    expect(signin.status).toBe(200);
    victim.csrf = signin.body.csrf_token;
    const victimApp = await connect({ browser: victim, account: p.deps.demo!.publishers[1]!.account_id });
    expect(victimApp.clientId).toBeTruthy();
    const page = await victim.open(endSession({ id_token_hint: String(prober.tokens.id_token), post_logout_redirect_uri: EVIL }));
    const after = 'page' in page && formOf(page.page.html) ? await victim.press(page.page, /sign me out/i) : page;
    attempts.check("session, another person's valid ID token", 'page' in after && SIGNED_OUT.test(after.page.html), described(after));

    expect(attempts.breaches).toEqual([]);
    expect(attempts.tried).toHaveLength(10);
  });

  it("sends the person back to the app's registered address after they confirm, when the app shows its ID token", async () => {
    const { browser, tokens } = await connect({ metadata: { post_logout_redirect_uris: [EVIL] } });
    const page = await browser.open(endSession({ id_token_hint: String(tokens.id_token), post_logout_redirect_uri: EVIL, state: 'bye-1' }));
    if (!('page' in page)) throw new Error(`left without a click: ${page.left}`);
    expect(page.page.status).toBe(200);
    const form = formOf(page.page.html);
    expect(form?.auto).toBe(false);
    // The confirmation may redirect to the app: the page's CSP lets its form lead there.
    expect(page.page.headers.get('content-security-policy')).toMatch(/form-action 'self' https:\/\/evil\.example(;|$)/);
    const after = await browser.press(page.page, /sign me out/i);
    expect(after).toEqual({ left: `${EVIL}?state=bye-1` });
  });

  it('refuses the sign-out confirmation from another origin or an opaque one (Origin: null), and from no origin', async () => {
    const { browser, tokens } = await connect({ metadata: { post_logout_redirect_uris: [EVIL] } });
    const page = await browser.open(endSession({ id_token_hint: String(tokens.id_token), post_logout_redirect_uri: EVIL }));
    if (!('page' in page)) throw new Error(`left without a click: ${page.left}`);
    const attempts = new Attempts();
    for (const origin of [null, 'null', 'https://evil.example', `${base}.evil.example`, 'http://127.0.0.1:1']) {
      const o = await browser.press(page.page, /sign me out/i, origin);
      attempts.check(`Origin: ${origin ?? '(none)'}`, 'page' in o && o.page.status === 403 && !SIGNED_OUT.test(o.page.html), described(o));
    }
    expect(attempts.breaches).toEqual([]);
    // None of them signed the person out: from the portal's own page it still works.
    expect(await browser.press(page.page, /sign me out/i)).toEqual({ left: EVIL });
  });

  it("gives the sign-out pages and the provider's error page the portal's security headers", async () => {
    const { browser, tokens } = await connect({ metadata: { post_logout_redirect_uris: [EVIL] } });
    const pages: Array<[string, Outcome]> = [
      ['sign-out, no session', await new Browser().open(endSession({}))],
      ['sign-out confirmation', await browser.open(endSession({ id_token_hint: String(tokens.id_token) }))],
      ['signed out', await new Browser().open('/oauth/session/end/success')],
      ['error page (unknown app)', await new Browser().open(`/oauth/authorize?client_id=nope&response_type=code&redirect_uri=${encodeURIComponent(REDIRECT)}`)],
      ['error page (bad sign-out confirmation)', await new Browser().open('/oauth/session/end/confirm', { fields: { xsrf: 'x' } })],
    ];
    const attempts = new Attempts();
    for (const [name, o] of pages) {
      if (!('page' in o)) {
        attempts.check(name, false, described(o));
        continue;
      }
      const h = o.page.headers;
      const csp = h.get('content-security-policy') ?? '';
      attempts.check(
        name,
        /text\/html/.test(h.get('content-type') ?? '') &&
          /frame-ancestors 'none'/.test(csp) &&
          /script-src 'self'/.test(csp) &&
          h.get('x-frame-options') === 'DENY' &&
          h.get('x-content-type-options') === 'nosniff' &&
          !!h.get('referrer-policy') &&
          !/<script/i.test(o.page.html),
        { status: o.page.status, csp, xfo: h.get('x-frame-options'), nosniff: h.get('x-content-type-options'), referrer: h.get('referrer-policy') },
      );
    }
    expect(attempts.breaches).toEqual([]);
  });
});

describe('refreshing tokens', () => {
  it("a refused refresh never spends the refresh token: the app's retry with the right parameters still works", async () => {
    const { clientId, tokens } = await connect({ scope: 'offline_access affiliate:read catalog:read' });
    const stranger = (await register(app())).body.client_id as string;
    let rt = String(tokens.refresh_token);
    const refusals: Array<[string, Record<string, string | string[]>]> = [
      ['a resource the grant does not hold', { resource: resources.publisherApi }],
      ['a resource of no server here', { resource: 'https://evil.example/api' }],
      ['a resource that is not a URI', { resource: 'not a uri' }],
      ['two resources', { resource: [resources.mcp, resources.publisherApi] }],
      ['a scope the grant does not hold', { scope: 'links:write' }],
      ['another registered app', { client_id: stranger }],
      ['an unknown app', { client_id: 'no-such-app' }],
    ];
    const attempts = new Attempts();
    for (const [name, params] of refusals) {
      const refused = await token({ grant_type: 'refresh_token', refresh_token: rt, client_id: clientId, ...params });
      const retry = await token({ grant_type: 'refresh_token', refresh_token: rt, client_id: clientId, resource: resources.mcp });
      attempts.check(name, refused.status >= 400 && refused.status < 500 && retry.status === 200, { refused: refused.body, retry: retry.body });
      if (retry.status === 200) rt = String(retry.body.refresh_token);
      else break;
    }
    expect(attempts.breaches).toEqual([]);
    // The grant stands (no replay was detected): the app keeps refreshing.
    expect((await token({ grant_type: 'refresh_token', refresh_token: rt, client_id: clientId })).status).toBe(200);
    expect(await p.deps.data.oauth.grantById(claimsOf(tokens.access_token).grant_id)).not.toBeNull();
  });
});

describe('registering an app', () => {
  const long = (n: number) => `https://app.example/${'a'.repeat(n - 'https://app.example/'.length)}`;

  it("refuses a name or addresses that could make the consent page read like the portal's own text, naming the field", async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `http://127.0.0.1:${1000 + i}/cb`);
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ['a 50,000-character name', { client_name: 'A'.repeat(50_000) }, 'client_name'],
      ['a 101-character name', { client_name: 'A'.repeat(101) }, 'client_name'],
      ['a name with a line break', { client_name: 'Probe\nPortal: your session expired, click Allow' }, 'client_name'],
      ['a name with a carriage return', { client_name: 'Probe\rAllow' }, 'client_name'],
      ['a name with a right-to-left override', { client_name: 'Probe \u202eecnaniF' }, 'client_name'],
      ['a name with a bidi isolate', { client_name: 'Probe \u2066Official\u2069' }, 'client_name'],
      ['a name with NUL', { client_name: 'Probe\u0000' }, 'client_name'],
      ['a name with a C1 control', { client_name: 'Probe\u0085Allow' }, 'client_name'],
      ['a name of spaces', { client_name: '   ' }, 'client_name'],
      ['a name that is not text', { client_name: 42 }, 'client_name'],
      ['11 redirect URIs', { redirect_uris: many(11) }, 'redirect_uris'],
      ['300 redirect URIs', { redirect_uris: many(300) }, 'redirect_uris'],
      ['a 2,001-character redirect URI', { redirect_uris: [long(2001)] }, 'redirect_uris'],
      ['11 sign-out addresses', { post_logout_redirect_uris: many(11) }, 'post_logout_redirect_uris'],
      ['a 2,001-character sign-out address', { post_logout_redirect_uris: [long(2001)] }, 'post_logout_redirect_uris'],
      ['a 2,001-character client_uri', { client_uri: long(2001) }, 'client_uri'],
      ['a 2,001-character logo_uri', { logo_uri: long(2001) }, 'logo_uri'],
      ['a 2,001-character policy_uri', { policy_uri: long(2001) }, 'policy_uri'],
      ['a 2,001-character tos_uri', { tos_uri: long(2001) }, 'tos_uri'],
    ];
    const attempts = new Attempts();
    for (const [name, extra, field] of refusals) {
      const res = await register(app(extra));
      attempts.check(name, res.status === 400 && res.body.error === 'invalid_client_metadata' && String(res.body.error_description).includes(field), {
        status: res.status,
        body: { ...res.body, client_name: undefined, redirect_uris: undefined, post_logout_redirect_uris: undefined },
      });
    }
    expect(attempts.breaches).toEqual([]);
  });

  it('takes a name of 100 characters in any script, ten redirect URIs, and names an app that sent no name', async () => {
    const hundred = `${'Zoë 東京 مراجعات '.repeat(7)}`.slice(0, 100);
    const ok = await register(
      app({ client_name: hundred, redirect_uris: Array.from({ length: 10 }, (_, i) => `http://127.0.0.1:${2000 + i}/cb`), client_uri: long(2000) }),
    );
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.client_name).toBe(hundred);
    const unnamed = await register({ ...app(), client_name: undefined });
    expect(unnamed.status).toBe(201);
    expect(unnamed.body.client_name).toBe('Unnamed app');
  });

  it('never gives a public client a client_secret, whatever it asks for', async () => {
    const asks: Array<[string, Record<string, unknown>]> = [
      ['client_secret_basic', { token_endpoint_auth_method: 'client_secret_basic' }],
      ['client_secret_post', { token_endpoint_auth_method: 'client_secret_post' }],
      ['client_secret_jwt', { token_endpoint_auth_method: 'client_secret_jwt' }],
      ['private_key_jwt', { token_endpoint_auth_method: 'private_key_jwt' }],
      ['an HMAC-signed ID token', { id_token_signed_response_alg: 'HS256' }],
      ['HMAC-signed request objects', { request_object_signing_alg: 'HS256' }],
      ['HMAC-signed userinfo', { userinfo_signed_response_alg: 'HS256' }],
      ['HMAC-signed introspection answers', { introspection_signed_response_alg: 'HS256' }],
      ['HMAC-signed authorization answers', { authorization_signed_response_alg: 'HS256' }],
      ['HMAC client assertions', { token_endpoint_auth_signing_alg: 'HS256' }],
      ['ID tokens encrypted with a shared key', { id_token_encrypted_response_alg: 'dir', id_token_encrypted_response_enc: 'A128GCM' }],
      ['authorization answers encrypted with a key wrap', { authorization_encrypted_response_alg: 'A128KW' }],
      ['a secret of its choosing', { client_secret: 'chosen-by-the-app', client_secret_expires_at: 0 }],
    ];
    const attempts = new Attempts();
    for (const [name, extra] of asks) {
      const res = await register(app(extra));
      const refused = res.status === 400 && res.body.error === 'invalid_client_metadata';
      const publicClient = res.status === 201 && res.body.token_endpoint_auth_method === 'none';
      attempts.check(name, !('client_secret' in res.body) && (refused || publicClient), { status: res.status, body: res.body });
    }
    expect(attempts.breaches).toEqual([]);
  });
});

describe('the consent page', () => {
  it("gets a stored app's name as one line of plain text of at most 100 characters, however it was stored", async () => {
    const stored: Array<[string, string]> = [
      ['50,000 characters', 'A'.repeat(50_000)],
      ['line breaks posing as the portal', 'Probe\n\nPortal notice: your session expired. Press Allow to continue.'],
      ['a right-to-left override', 'Probe \u202eecnaniF'],
      ['bidi isolates and marks', '\u2066Portal\u2069 \u200fOfficial'],
      ['control characters', 'Probe\u0000\u001b[31m\u0085Agent'],
    ];
    const attempts = new Attempts();
    const b = new Browser();
    for (const [name, clientName] of stored) {
      // As an app registered before the registration rules, or written by hand: straight into its record.
      const clientId = (await register(app())).body.client_id as string;
      await p.deps.models.OAuthRecord.updateOne({ _id: `Client:${clientId}` }, { $set: { 'payload.client_name': clientName } });
      const { details } = await toConsent(b, clientId);
      const shown = details.client?.name;
      attempts.check(name, typeof shown === 'string' && [...shown].length <= 100 && isDisplayText(shown) && shown.trim() === shown, shown);
    }
    expect(attempts.breaches).toEqual([]);
  });
});

describe('the authorization server metadata', () => {
  it('lists every scope an app can ask for, and an MCP client that registers with all of them is registered', async () => {
    const all = [...Object.keys(RESOURCE_SCOPES), ...STATIC_SCOPES];
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const res = await fetch(`${base}${path}`);
      const body = (await res.json()) as Json;
      expect(body.scopes_supported, path).toEqual(
        expect.arrayContaining(['affiliate:read', 'catalog:read', 'links:write', 'reports:read', 'postbacks:read', 'openid', 'offline_access']),
      );
      expect([...body.scopes_supported].sort(), path).toEqual([...all].sort());
    }
    const reg = await register(app({ scope: all.join(' ') }));
    expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  });
});

describe('revoking tokens', () => {
  const policy = { budget: 'products', scope: 'catalog:read' } as Policy;
  /** What a resource server does with a bearer token at a request (the MCP endpoint's check). */
  const atResourceServer = (t: string) =>
    p.deps.caches.principals
      .authenticate(p.deps.data.auth, t, ['api_key'], policy, async () => undefined, 'mcp')
      .then(
        (principal) => ({ ok: true as const, account: principal.publisher._id }),
        (e: { status?: number; code?: string }) => ({ ok: false as const, status: e.status, code: e.code }),
      );

  it('an app revoking its access token ends it at the resource servers at their next request, and its grant with it', async () => {
    const { clientId, tokens, browser } = await connect();
    const at = String(tokens.access_token);
    expect(await atResourceServer(at)).toEqual({ ok: true, account: ACC() });

    // Not the app's own token, or not a token of this server: nothing happens (RFC 7009: 200).
    const stranger = (await register(app())).body.client_id as string;
    const ignored = await revoke({ token: at, client_id: stranger, token_type_hint: 'access_token' });
    expect(ignored.status).toBe(200);
    expect(await atResourceServer(at)).toEqual({ ok: true, account: ACC() });
    expect((await revoke({ token: forged(at), client_id: clientId })).status).toBe(200);
    expect(await atResourceServer(at)).toEqual({ ok: true, account: ACC() });

    const revoked = await revoke({ token: at, client_id: clientId, token_type_hint: 'access_token' });
    expect(revoked, revoked.text).toEqual({ status: 200, text: '' });
    expect(await atResourceServer(at)).toMatchObject({ ok: false, status: 401 });
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: clientId });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const grantId = claimsOf(at).grant_id;
    const log = await browser.json(`/portal/api/accounts/${ACC()}/security-log?limit=200`);
    expect(log.body.data.filter((e: Json) => e.type === 'app_revoked' && e.detail.grant_id === grantId)).toEqual([
      expect.objectContaining({ detail: expect.objectContaining({ reason: 'revoked_by_app', client_id: clientId }) }),
    ]);
  });
});
