/**
 * Attacks on the portal's OAuth that an outside probe tried and that held, kept so none regresses
 * (RFC 9700, the OAuth 2.0 Security BCP; OWASP ASVS 4.0.3 V51 and V3.5): PKCE bent or skipped,
 * codes replayed or swapped, redirect URIs that are not exactly the registered one, and access
 * tokens forged, altered or carried to the wrong resource server.
 *
 * Everything goes over real HTTP: the portal (the authorization server) listens on its issuer's
 * origin, and both resource servers run as their own processes (`apps/<app>/src/main.ts`) on the
 * same database, as in production: the publisher API (`/api/v1/publisher/me/`) and MCP
 * (`/api/v1/mcp/`, a tool that needs the account). Real tokens come from the real code flow.
 */
import { createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, importJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { looksLikeAccessToken, oauthKeys, resourceIndicators } from '@cw/oauth';
import { spawnService } from '@cw-tools/testing';
import { startPortal, type PortalHarness } from './support/portal-harness';
import { authorize, authorizeUrl, LOOPBACK_REDIRECT, OAuthBrowser, pkce, REDIRECT, register, token, type Json } from './support/oauth-browser';
import { Tally } from './support/security-probe';

let p: PortalHarness;
let server: http.Server;
let base: string;
let resources: ReturnType<typeof resourceIndicators>;
const children: ChildProcess[] = [];
let publisherApi: string;
let mcp: string;
const tally = new Tally();

beforeAll(async () => {
  // The issuer is the portal's own origin: listen first, then configure the portal with it.
  server = http.createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  p = await startPortal({ PORTAL_URL: base, RATELIMIT_PORTAL_PER_MIN: '100000', RATELIMIT_OAUTH_REGISTER_PER_MIN: '100000' }, { seedProducts: 10 });
  server.on('request', (req, res) => void p.http(req, res));
  resources = resourceIndicators(base);
  const env = { PORTAL_URL: base, RATELIMIT_ACCOUNT_PER_MIN: '100000', RATELIMIT_MCP_PER_MIN: '100000', RATELIMIT_PRODUCTS_PER_MIN: '100000' };
  const [api, tools] = await Promise.all([spawnService('publisher-api', p.deps.tdb.uri, env), spawnService('mcp-server', p.deps.tdb.uri, env)]);
  children.push(api.child, tools.child);
  publisherApi = api.base;
  mcp = tools.base;
}, 120_000);

afterAll(async () => {
  console.log(tally.summary());
  for (const c of children) c.kill('SIGTERM');
  await new Promise((ok) => server?.close(ok));
  await p?.close();
});

const owner = () => p.deps.demo!.publishers[0]!.portal_login;
const ACC1 = () => p.deps.demo!.publishers[0]!.account_id;
const ACC2 = () => p.deps.demo!.publishers[1]!.account_id;

/** A browser signed in to the portal as publishers[0]'s owner. */
async function signedIn(): Promise<OAuthBrowser> {
  const b = new OAuthBrowser(base);
  await b.signIn(owner());
  return b;
}

/** A registered public client (both redirect URIs of the probe: an https one and a loopback one). */
async function newClient(name = 'Probe Agent'): Promise<string> {
  const r = await register(base, { client_name: name });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.client_id as string;
}

/** A code for `clientId` through the real flow (sign-in with the portal session, consent for account 1). */
async function codeFor(b: OAuthBrowser, clientId: string, opts: { scope?: string; resource?: string; redirectUri?: string; refreshToken?: boolean } = {}) {
  const { verifier, challenge } = pkce();
  const redirectUri = opts.redirectUri ?? REDIRECT;
  const scope = opts.scope ?? 'affiliate:read catalog:read';
  // A refresh token needs offline_access asked with prompt=consent (the provider drops it otherwise).
  const offline = opts.refreshToken ? { scope: `${scope} offline_access`, extra: { prompt: 'consent' } } : { scope };
  const at = await authorize(
    b,
    authorizeUrl(base, { clientId, redirectUri, resource: opts.resource ?? resources.publisherApi, challenge, ...offline }),
    ACC1(),
  );
  if (!('back' in at)) throw new Error(`no redirect back: ${at.page.status} ${at.page.text.slice(0, 300)}`);
  const code = at.back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${at.back.href}`);
  return { code, verifier, redirectUri, clientId };
}

const exchange = (c: { code: string; verifier: string; redirectUri: string; clientId: string }, extra: Record<string, string> = {}) =>
  token(base, {
    grant_type: 'authorization_code',
    code: c.code,
    redirect_uri: c.redirectUri,
    code_verifier: c.verifier,
    client_id: c.clientId,
    ...extra,
  });

/** The token endpoint refused the request with the RFC 6749 error `error` (one of them), and issued nothing. */
const tokenRefused = (r: { status: number; body: Json }, ...errors: string[]) =>
  r.status >= 400 && r.status < 500 && errors.includes(r.body.error as string) && r.body.access_token === undefined && r.body.refresh_token === undefined;

// ---------------------------------------------------------------------------------------------
// The two resource servers, called as an app calls them.

async function callPublisherApi(bearer: string | null, query = ''): Promise<{ status: number; challenge: string | null; body: Json }> {
  const res = await fetch(`${publisherApi}/api/v1/publisher/me/${query}`, { headers: bearer === null ? {} : { Authorization: `Bearer ${bearer}` } });
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: (await res.json()) as Json };
}

async function callMcp(bearer: string | null, query = ''): Promise<{ status: number; challenge: string | null; body: Json }> {
  const res = await fetch(`${mcp}/api/v1/mcp/${query}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(bearer === null ? {} : { Authorization: `Bearer ${bearer}` }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_payment_status', arguments: {} } }),
  });
  const text = await res.text();
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: text.startsWith('{') ? (JSON.parse(text) as Json) : { text } };
}

const SERVERS = {
  'publisher API': { call: callPublisherApi, resource: () => resources.publisherApi },
  MCP: { call: callMcp, resource: () => resources.mcp },
} as const;
type ServerName = keyof typeof SERVERS;

// ---------------------------------------------------------------------------------------------
// Tokens: real ones from the flow, and what an attacker (or a broken issuer) makes of them.

const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const segments = (t: string) => t.split('.') as [string, string, string];
const decoded = (segment: string) => JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as Json;

/** Signs `claims` with the platform's own signing key (what only the authorization server can do). */
async function platformSigned(claims: Json, header: Json = {}): Promise<string> {
  const jwk = oauthKeys(p.deps.config.keys).signing[0]!;
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: jwk.kid, ...header }).sign(await importJWK(jwk, 'ES256'));
}

/** Signs `claims` with a key of the attacker's. */
async function attackerSigned(claims: Json, header: Json, key: KeyObject): Promise<string> {
  return new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(key);
}

interface RealTokens {
  /** Per resource server: a valid access token of publishers[0]'s owner for account 1 (affiliate:read). */
  access: Record<ServerName, string>;
  idToken: string;
}
let obtained: Promise<RealTokens> | undefined;

/** Real tokens of publishers[0]'s owner for account 1 through the code flow, obtained once (each checked on its own server). */
function realTokens(): Promise<RealTokens> {
  obtained ??= (async () => {
    const b = await signedIn();
    const clientId = await newClient();
    const access = {} as Record<ServerName, string>;
    for (const [name, s] of Object.entries(SERVERS) as Array<[ServerName, (typeof SERVERS)[ServerName]]>) {
      const t = await exchange(await codeFor(b, clientId, { scope: 'affiliate:read', resource: s.resource() }), { resource: s.resource() });
      if (t.status !== 200) throw new Error(`${name} token: ${t.status} ${JSON.stringify(t.body)}`);
      access[name] = t.body.access_token as string;
    }
    const t = await exchange(await codeFor(b, clientId, { scope: 'openid affiliate:read', resource: resources.publisherApi }), {
      resource: resources.publisherApi,
    });
    if (t.status !== 200) throw new Error(`openid token: ${t.status} ${JSON.stringify(t.body)}`);
    return { access, idToken: t.body.id_token as string };
  })();
  return obtained;
}

/** The forgeries of a valid token `t` for `server`, each with what it tries. */
async function forgeries(server: ServerName, real: RealTokens): Promise<Array<[string, string]>> {
  const t = real.access[server];
  const other = real.access[server === 'MCP' ? 'publisher API' : 'MCP'];
  const [h, c, s] = segments(t);
  const header = decoded(h);
  const claims = decoded(c);
  const now = Math.floor(Date.now() / 1000);
  const publicJwk = oauthKeys(p.deps.config.keys).jwks.keys[0]!;
  const publicKey = createPublicKey({ key: publicJwk as unknown as JsonWebKey, format: 'jwk' });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const der = publicKey.export({ type: 'spki', format: 'der' });
  const { privateKey: ec } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { privateKey: rsa } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const attackerJwk = await exportJWK(createPublicKey(ec));
  const hmac = (secret: Buffer) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: header.kid as string }).sign(new Uint8Array(secret));
  return [
    ['alg none, no signature', `${enc({ alg: 'none', typ: 'at+jwt' })}.${c}.`],
    ['alg none, the original signature kept', `${enc({ ...header, alg: 'none' })}.${c}.${s}`],
    ['HS256 keyed with the public JWK (JSON)', await hmac(Buffer.from(JSON.stringify(publicJwk)))],
    ['HS256 keyed with the public key (PEM)', await hmac(Buffer.from(pem))],
    ['HS256 keyed with the public key (DER)', await hmac(der)],
    ["ES256 by another key under the platform key's kid", await attackerSigned(claims, { ...header }, ec)],
    ['ES256 by another key with its own kid', await attackerSigned(claims, { ...header, kid: 'attacker-key' }, ec)],
    ['ES256 by another key embedded in the header (jwk)', await attackerSigned(claims, { alg: 'ES256', typ: 'at+jwt', jwk: attackerJwk }, ec)],
    [
      'ES256 by another key whose set the header points to (jku)',
      await attackerSigned(claims, { alg: 'ES256', typ: 'at+jwt', kid: 'attacker-key', jku: 'https://attacker.example/jwks.json' }, ec),
    ],
    ['RS256 by an RSA key of the attacker', await attackerSigned(claims, { alg: 'RS256', typ: 'at+jwt', kid: header.kid }, rsa)],
    ['the signature cut off (two segments)', `${h}.${c}`],
    ['the payload tampered: every scope', `${h}.${enc({ ...claims, scope: 'affiliate:read catalog:read links:write reports:read postbacks:read' })}.${s}`],
    ['the payload tampered: another account', `${h}.${enc({ ...claims, account_id: ACC2() })}.${s}`],
    ['the payload tampered: another person', `${h}.${enc({ ...claims, sub: 'user_someone_else' })}.${s}`],
    ['the payload tampered: a later expiry', `${h}.${enc({ ...claims, exp: now + 86_400 })}.${s}`],
    ['the header tampered: typ JWT', `${enc({ ...header, typ: 'JWT' })}.${c}.${s}`],
    [`a token for the other resource (${server === 'MCP' ? 'publisher API' : 'MCP'})`, other],
    ['the ID token of the same flow', real.idToken],
    // Signed by the platform itself (as a broken issuer would): the resource server's own checks.
    ['signed by the platform: aud the other resource', await platformSigned({ ...claims, aud: server === 'MCP' ? resources.publisherApi : resources.mcp })],
    ['signed by the platform: aud both resources', await platformSigned({ ...claims, aud: [resources.publisherApi, resources.mcp] })],
    ['signed by the platform: aud with a trailing slash', await platformSigned({ ...claims, aud: `${SERVERS[server].resource()}/` })],
    ['signed by the platform: another issuer', await platformSigned({ ...claims, iss: 'https://attacker.example' })],
    ['signed by the platform: the issuer with a trailing slash', await platformSigned({ ...claims, iss: `${base}/` })],
    ['signed by the platform: expired a minute ago', await platformSigned({ ...claims, iat: now - 700, exp: now - 60 })],
    ['signed by the platform: not valid before an hour from now (nbf)', await platformSigned({ ...claims, nbf: now + 3600 })],
    ['signed by the platform: typ JWT (an ID token’s)', await platformSigned(claims, { typ: 'JWT' })],
    ['signed by the platform: sender-constrained (cnf)', await platformSigned({ ...claims, cnf: { jkt: 'x'.repeat(43) } })],
    ['signed by the platform: no account', await platformSigned({ ...claims, account_id: undefined })],
    ['signed by the platform: an account its grant does not act for', await platformSigned({ ...claims, account_id: ACC2() })],
    ['signed by the platform: a grant that does not exist', await platformSigned({ ...claims, grant_id: 'grant_that_never_was' })],
    ['signed by the platform: a kid of no key', await platformSigned(claims, { kid: 'no-such-key' })],
  ];
}

/**
 * Refused: 401, with a Bearer challenge naming invalid_token for anything shaped as an access
 * token (a string of another shape is taken for an API key and refused as one).
 */
const refusedToken = (r: { status: number; challenge: string | null }, sent?: string) =>
  r.status === 401 && (sent === undefined || !looksLikeAccessToken(sent) || /^Bearer error="invalid_token"/.test(r.challenge ?? ''));

// ---------------------------------------------------------------------------------------------

describe('real tokens from the code flow (the baseline every attack is measured against)', () => {
  it('a token for each resource works on its own resource server, and an ID token comes with openid', async () => {
    const { access, idToken } = await realTokens();
    for (const [name, s] of Object.entries(SERVERS) as Array<[ServerName, (typeof SERVERS)[ServerName]]>) {
      const ok = await s.call(access[name]);
      expect(ok.status, `${name}: ${JSON.stringify(ok.body)}`).toBe(200);
    }
    expect(idToken).toEqual(expect.any(String));
    expect(decoded(segments(idToken)[1]).aud).not.toBe(resources.publisherApi);
  }, 60_000);
});

describe('access tokens forged, altered or carried elsewhere, on both resource servers', () => {
  for (const server of Object.keys(SERVERS) as ServerName[]) {
    it(`the ${server} refuses every forgery with 401 (invalid_token), and still takes the real token`, async () => {
      const real = await realTokens();
      const call = SERVERS[server].call;
      for (const [name, forged] of await forgeries(server, real)) {
        const r = await call(forged);
        tally.record(`token: ${server}: ${name}`, refusedToken(r, forged), `${r.status} ${r.challenge ?? ''}`);
      }
      // The real token in the query string (RFC 6750 2.3; MCP: never in the URL) authenticates nothing.
      const inQuery = await call(null, `?access_token=${encodeURIComponent(real.access[server])}`);
      tally.record(`token: ${server}: the real token in the query string`, refusedToken(inQuery), `${inQuery.status}`);
      expect((await call(real.access[server])).status).toBe(200);
      expect(tally.breaches.filter((a) => a.attack.startsWith(`token: ${server}:`))).toEqual([]);
    }, 60_000);
  }
});

describe('PKCE and authorization codes (RFC 9700 2.1.1, 4.5, 4.8)', () => {
  it('issues no code without an S256 challenge', async () => {
    const b = await signedIn();
    const clientId = await newClient();
    // The client consented once (a grant exists): only PKCE can stop the next code.
    await codeFor(b, clientId);
    const { challenge, verifier } = pkce();
    const cases: Array<[string, Parameters<typeof authorizeUrl>[1]]> = [
      ['no code_challenge', { clientId, scope: 'affiliate:read', resource: resources.publisherApi }],
      ['code_challenge_method plain', { clientId, scope: 'affiliate:read', resource: resources.publisherApi, challenge: verifier, method: 'plain' }],
      [
        'a challenge without its method',
        { clientId, scope: 'affiliate:read', resource: resources.publisherApi, challenge, extra: { code_challenge_method: undefined } },
      ],
      ['an unknown method', { clientId, scope: 'affiliate:read', resource: resources.publisherApi, challenge, method: 'S512' }],
      ['a challenge too short to be S256', { clientId, scope: 'affiliate:read', resource: resources.publisherApi, challenge: 'abc' }],
    ];
    for (const [name, params] of cases) {
      const at = await authorize(b, authorizeUrl(base, params), ACC1());
      const code = 'back' in at ? at.back.searchParams.get('code') : null;
      const error = 'back' in at ? at.back.searchParams.get('error') : `page ${at.page.status}`;
      tally.record(`pkce: ${name}`, !code && !!error, `${code ? 'a code' : 'no code'}, ${error}`);
    }
    expect(tally.breaches.filter((a) => a.attack.startsWith('pkce:'))).toEqual([]);
  }, 60_000);

  it('exchanges a code only once, only for its client, its verifier, its redirect URI and its resource', async () => {
    const b = await signedIn();
    const a = await newClient('Probe A');
    const other = await newClient('Probe B');
    await codeFor(b, other);
    const attempts: Array<[string, () => Promise<{ status: number; body: Json }>, string[]]> = [
      ['a wrong verifier', async () => exchange({ ...(await codeFor(b, a)), verifier: pkce().verifier }), ['invalid_grant']],
      [
        'the verifier of another flow',
        async () => {
          const first = await codeFor(b, a);
          const second = await codeFor(b, a);
          return exchange({ ...first, verifier: second.verifier });
        },
        ['invalid_grant'],
      ],
      [
        'no verifier',
        async () => {
          const c = await codeFor(b, a);
          return token(base, { grant_type: 'authorization_code', code: c.code, redirect_uri: c.redirectUri, client_id: a });
        },
        ['invalid_grant', 'invalid_request'],
      ],
      ['the code of another client', async () => exchange({ ...(await codeFor(b, a)), clientId: other }), ['invalid_grant']],
      [
        'another registered redirect URI than the one authorized',
        async () => exchange({ ...(await codeFor(b, a)), redirectUri: LOOPBACK_REDIRECT }),
        ['invalid_grant'],
      ],
      ['no redirect URI', async () => exchange({ ...(await codeFor(b, a)), redirectUri: '' }), ['invalid_grant', 'invalid_request']],
      [
        'a resource it was not authorized for',
        async () => exchange(await codeFor(b, a, { resource: resources.publisherApi }), { resource: resources.mcp }),
        ['invalid_target', 'invalid_grant'],
      ],
      ['a resource that is not ours', async () => exchange(await codeFor(b, a), { resource: 'https://attacker.example/api' }), ['invalid_target']],
      ['a made-up code', async () => exchange({ code: 'x'.repeat(43), verifier: pkce().verifier, redirectUri: REDIRECT, clientId: a }), ['invalid_grant']],
    ];
    for (const [name, attempt, errors] of attempts) {
      const r = await attempt();
      tally.record(`code: ${name}`, tokenRefused(r, ...errors), `${r.status} ${r.body.error ?? ''}`);
    }

    // Replay: the second use is refused, and what the first use issued is revoked with the grant.
    const c = await codeFor(b, a, { refreshToken: true });
    const first = await exchange(c);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.refresh_token).toEqual(expect.any(String));
    expect((await callPublisherApi(first.body.access_token as string)).status).toBe(200);
    const replay = await exchange(c);
    tally.record('code: the same code used twice', tokenRefused(replay, 'invalid_grant'), `${replay.status} ${replay.body.error ?? ''}`);
    const refresh = await token(base, { grant_type: 'refresh_token', refresh_token: String(first.body.refresh_token), client_id: a });
    tally.record('code: the refresh token issued before the replay', tokenRefused(refresh, 'invalid_grant'), `${refresh.status} ${refresh.body.error ?? ''}`);
    const api = await callPublisherApi(first.body.access_token as string);
    tally.record('code: the access token issued before the replay', refusedToken(api), `${api.status}`);
    expect(tally.breaches.filter((x) => x.attack.startsWith('code:'))).toEqual([]);
  }, 120_000);

  it('refuses a refresh token to another client, and a refresh that widens the scope', async () => {
    const b = await signedIn();
    const a = await newClient('Probe RT A');
    const other = await newClient('Probe RT B');
    const issue = async () => {
      const t = await exchange(await codeFor(b, a, { scope: 'affiliate:read', refreshToken: true }));
      expect(t.body.refresh_token).toEqual(expect.any(String));
      return String(t.body.refresh_token);
    };
    const stolen = await token(base, { grant_type: 'refresh_token', refresh_token: await issue(), client_id: other });
    tally.record('refresh: a refresh token of another client', tokenRefused(stolen, 'invalid_grant'), `${stolen.status} ${stolen.body.error ?? ''}`);
    const wider = await token(base, { grant_type: 'refresh_token', refresh_token: await issue(), client_id: a, scope: 'affiliate:read links:write' });
    tally.record('refresh: a scope wider than granted', tokenRefused(wider, 'invalid_scope'), `${wider.status} ${wider.body.error ?? ''}`);
    expect(tally.breaches.filter((x) => x.attack.startsWith('refresh:'))).toEqual([]);
  }, 60_000);
});

describe('redirect URIs: exactly a registered one, or no redirect at all (RFC 9700 4.1)', () => {
  it('sends no browser, code or error to a redirect URI that is not exactly registered', async () => {
    const b = await signedIn();
    const clientId = await newClient();
    await codeFor(b, clientId);
    const variants: Array<[string, string]> = [
      ['an unregistered host', 'https://attacker.example/callback'],
      ['an extra path segment', 'https://app.example/callback/evil'],
      ['a dot-dot path', 'https://app.example/callback/../evil'],
      ['a trailing slash', 'https://app.example/callback/'],
      ['an extra query', 'https://app.example/callback?next=https://attacker.example'],
      ['a fragment', 'https://app.example/callback#x'],
      ['another port for the web client (https)', 'https://app.example:8443/callback'],
      ['another port for the web client (loopback)', 'http://127.0.0.1:43124/callback'],
      ['http instead of https', 'http://app.example/callback'],
      ['userinfo naming the good host before another', 'https://app.example@attacker.example/callback'],
      ['userinfo added in front of the good host', 'https://attacker.example@app.example/callback'],
      ["the good host as another's subdomain", 'https://app.example.attacker.example/callback'],
      ['another letter case', 'https://APP.example/callback'],
      ['a percent-encoded path', 'https://app.example/%63allback'],
      ['a javascript: URI', 'javascript:alert(document.domain)//https://app.example/callback'],
      ['a data: URI', 'data:text/html,<script>alert(1)</script>'],
      ['a custom scheme', 'app-example://callback'],
    ];
    for (const [name, uri] of variants) {
      const at = await authorize(
        b,
        authorizeUrl(base, { clientId, redirectUri: uri, scope: 'affiliate:read', resource: resources.publisherApi, challenge: pkce().challenge }),
        ACC1(),
      );
      // The provider's error page on the portal (400), never a redirect off it.
      const held = 'page' in at && at.page.status === 400 && /redirect_uri/.test(at.page.text);
      tally.record(`redirect: ${name}`, held, 'back' in at ? `sent to ${at.back.href}` : `${at.page.status}`);
    }
    // Registering one that could not be matched safely.
    for (const [name, uri] of [
      ['http off loopback', 'http://app.example/callback'],
      ['a fragment', 'https://app.example/callback#frag'],
      ['javascript:', 'javascript:alert(1)'],
      ['data:', 'data:text/html,hi'],
      ['a custom scheme', 'app-example://callback'],
      ['not a URL', 'callback'],
    ] as const) {
      const r = await register(base, { redirect_uris: [uri] });
      tally.record(
        `register: a redirect URI with ${name}`,
        r.status === 400 && /^invalid_(client_metadata|redirect_uri)$/.test(String(r.body.error)),
        `${r.status} ${r.body.error ?? ''}`,
      );
    }
    expect(tally.breaches.filter((x) => x.attack.startsWith('redirect:') || x.attack.startsWith('register:'))).toEqual([]);
  }, 120_000);

  it('answers other malformed authorization requests without a code', async () => {
    const b = await signedIn();
    const clientId = await newClient();
    await codeFor(b, clientId);
    const { challenge } = pkce();
    const q = { clientId, scope: 'affiliate:read', resource: resources.publisherApi, challenge };
    const cases: Array<[string, Parameters<typeof authorizeUrl>[1]]> = [
      ['the implicit flow (response_type=token)', { ...q, extra: { response_type: 'token' } }],
      ['the hybrid flow (response_type=code token)', { ...q, extra: { response_type: 'code token' } }],
      ['a resource that is not ours', { ...q, resource: 'https://attacker.example/api' }],
      [
        'an unsigned request object naming another redirect URI',
        { ...q, extra: { request: `${enc({ alg: 'none' })}.${enc({ redirect_uri: 'https://attacker.example/cb', client_id: clientId })}.` } },
      ],
      ['a request_uri of the attacker', { ...q, extra: { request_uri: 'https://attacker.example/request.jwt' } }],
      ['response_mode=web_message', { ...q, extra: { response_mode: 'web_message' } }],
      ['an unknown client', { ...q, clientId: 'client_that_never_was' }],
    ];
    for (const [name, params] of cases) {
      const at = await authorize(b, authorizeUrl(base, params), ACC1());
      const code = 'back' in at ? at.back.searchParams.get('code') : null;
      const leaked = 'back' in at && !at.back.href.startsWith(REDIRECT);
      const tokenInFragment = 'back' in at && /access_token|id_token/.test(at.back.hash);
      tally.record(`authorize: ${name}`, !code && !leaked && !tokenInFragment, 'back' in at ? at.back.href : `page ${at.page.status}`);
    }
    expect(tally.breaches.filter((x) => x.attack.startsWith('authorize:'))).toEqual([]);
  }, 60_000);
});
