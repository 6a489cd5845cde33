/**
 * The authorization server alone, mounted at the root of a bare Koa app on the embedded engine,
 * driven like a browser and an OAuth client would: discovery, dynamic registration, authorization
 * code with PKCE, token exchange, refresh with rotation, revocation. Sign-in and consent are a
 * tiny interaction handler written here (a fixed person, consenting for one account).
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import mount from 'koa-mount';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyRing } from '@cw/config';
import { connectDatabase, migrateIndexes, type Database } from '@cw/db';
import { startTestEngine, type TestEngine } from '@cw-tools/test-engine';
import {
  createOAuthProvider,
  grantConsent,
  InvalidAccessTokenError,
  oauthDomain,
  oauthKeys,
  resourceIndicators,
  verifyAccessToken,
  type GrantRevoked,
  type OAuthData,
  type Provider,
} from '../src/index';

const PERSON = 'usr_oauth_1';
const ACCOUNT = 'pub_oauth_1';
const ring = keyRing(Buffer.alloc(32, 5), [{ id: 'k2', key: Buffer.alloc(32, 6) }]);
const keys = oauthKeys(ring);
const REDIRECT = 'http://127.0.0.1:9/callback';

let engine: TestEngine;
let db: Database;
let oauth: OAuthData;
let provider: Provider;
let server: http.Server;
let base: string;
let resources: ReturnType<typeof resourceIndicators>;
/** The account the test's consent step grants for. */
let consentAccount = ACCOUNT;
/** People who may no longer act (findPerson answers undefined). */
const gone = new Set<string>();
/** Accounts the person may no longer act for (mayActFor answers false). */
const leftAccounts = new Set<string>();
const revoked: GrantRevoked[] = [];

beforeAll(async () => {
  engine = await startTestEngine();
  db = await connectDatabase(engine.uri);
  const opened = oauthDomain.open(db.connection);
  await migrateIndexes(opened.models);
  oauth = opened.handle;
  oauth.onGrantRevoked((e) => void revoked.push(e));

  // The issuer is the server's own origin: listen first, then build the provider and the app.
  const app = new Koa();
  server = http.createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  resources = resourceIndicators(base);
  provider = await createOAuthProvider({
    config: { portalUrl: base, keys: ring },
    data: { oauth },
    findPerson: async (sub) => (gone.has(sub) ? undefined : { claims: { email: `${sub}@example.com` } }),
    mayActFor: async (person, account) => person === PERSON && !leftAccounts.has(account),
  });

  // The parent app signs the provider's cookies (koa-mount runs the provider on the parent's ctx).
  app.keys = keys.cookieKeys;
  // The MCP endpoint's protected resource metadata (RFC 9728), as the portal will serve it.
  app.use(async (ctx, next) => {
    if (ctx.path !== '/.well-known/oauth-protected-resource/api/v1/mcp') return next();
    ctx.body = {
      resource: resources.mcp,
      authorization_servers: [base],
      scopes_supported: ['affiliate:read', 'catalog:read', 'links:write', 'reports:read', 'offline_access'],
      bearer_methods_supported: ['header'],
    };
  });
  // The portal's pages, reduced to: sign in as PERSON, consent to everything asked for consentAccount.
  app.use(async (ctx, next) => {
    if (!/^\/oauth\/interaction\/[^/]+$/.test(ctx.path)) return next();
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const result =
      details.prompt.name === 'login'
        ? { login: { accountId: PERSON } }
        : { consent: { grantId: await grantConsent(provider, oauth, details, { personId: PERSON, accountId: consentAccount }) } };
    ctx.redirect(await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false }));
  });
  app.use(mount(provider));
  const handle = app.callback();
  server.on('request', (req, res) => void handle(req, res));
});

afterAll(async () => {
  await new Promise((ok) => server?.close(ok));
  await db?.connection.dropDatabase();
  await db?.close();
  await engine?.stop();
});

/** A browser's cookies: stored from Set-Cookie, sent where their path applies. */
class CookieJar {
  private readonly cookies = new Map<string, { value: string; path: string }>();
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
  header(pathname: string): string {
    return [...this.cookies]
      .filter(([, c]) => pathname === c.path || pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map(([n, c]) => `${n}=${c.value}`)
      .join('; ');
  }
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

async function register(metadata: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const mcpClient = {
  client_name: 'Test Agent',
  redirect_uris: [REDIRECT],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  // What the MCP SDK sends: the resource's scopes, which are not the provider's static scopes.
  scope: 'affiliate:read catalog:read reports:read offline_access',
};

/**
 * Follows the authorization request through sign-in and consent like a browser; returns the
 * redirect back to the client (its query: code, state, iss, or error).
 */
async function authorize(params: Record<string, string>, jar = new CookieJar()): Promise<URLSearchParams> {
  let next = `${base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', redirect_uri: REDIRECT, state: 'st', ...params })}`;
  for (let hop = 0; hop < 12; hop++) {
    const res = await fetch(next, { redirect: 'manual', headers: { cookie: jar.header(new URL(next).pathname) } });
    jar.store(res);
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) throw new Error(`${res.status} at ${next}: ${(await res.text()).slice(0, 400)}`);
    await res.body?.cancel();
    const to = new URL(location, next);
    if (to.origin !== base) return to.searchParams;
    next = to.href;
  }
  throw new Error('too many redirects');
}

async function token(form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A registered client, a code for `resource` and the exchange; the token response. */
async function connect(
  resource: string | undefined,
  scope = 'affiliate:read catalog:read postbacks:read offline_access',
): Promise<{ clientId: string; tokens: Record<string, unknown> }> {
  const clientId = (await register(mcpClient)).body.client_id as string;
  const { verifier, challenge } = pkce();
  const back = await authorize({
    client_id: clientId,
    scope,
    prompt: 'consent',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(resource ? { resource } : {}),
  });
  expect(back.get('error_description') ?? back.get('error')).toBeNull();
  const exchanged = await token({
    grant_type: 'authorization_code',
    code: back.get('code')!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
    ...(resource ? { resource } : {}),
  });
  expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
  return { clientId, tokens: exchanged.body };
}

const verifyFor = (t: unknown, audience: string) => verifyAccessToken(String(t), { issuer: base, audience, jwks: keys.jwks });

describe('discovery', () => {
  it('serves the authorization server metadata at both well-known paths: issuer, endpoints under /oauth/, PKCE S256 only', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(200);
      const meta = (await res.json()) as Record<string, unknown>;
      expect(meta).toMatchObject({
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        registration_endpoint: `${base}/oauth/register`,
        revocation_endpoint: `${base}/oauth/revoke`,
        jwks_uri: `${base}/oauth/jwks`,
        userinfo_endpoint: `${base}/oauth/userinfo`,
        code_challenge_methods_supported: ['S256'],
        response_types_supported: ['code'],
        token_endpoint_auth_methods_supported: ['none'],
      });
      expect(meta.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
      expect(meta.grant_types_supported).not.toContain('implicit');
      expect(meta).not.toHaveProperty('pushed_authorization_request_endpoint');
      expect(meta).not.toHaveProperty('dpop_signing_alg_values_supported');
    }
  });

  it('publishes the public keys derived from the key ring, newest first, and nothing private', async () => {
    const jwks = (await (await fetch(`${base}/oauth/jwks`)).json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys.map((k) => k.kid)).toEqual(['k2', 'base']);
    for (const [i, k] of jwks.keys.entries()) {
      expect(k).toMatchObject(keys.jwks.keys[i]!);
      expect(k).not.toHaveProperty('d');
    }
  });
});

describe('dynamic client registration', () => {
  it('registers a public client with a loopback redirect (no secret), even when it sends resource scopes', async () => {
    const { status, body } = await register(mcpClient);
    expect(status).toBe(201);
    expect(body).toMatchObject({ client_name: 'Test Agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    expect(body.client_id).toEqual(expect.any(String));
    expect(body).not.toHaveProperty('client_secret');
    expect(body).not.toHaveProperty('scope');
    expect(body).not.toHaveProperty('registration_access_token');
    const clients = await oauth.clientsByIds([body.client_id as string]);
    expect(clients.get(body.client_id as string)).toMatchObject({ clientName: 'Test Agent', redirectUris: [REDIRECT] });
  });

  it('accepts https and every loopback spelling', async () => {
    for (const uri of ['https://app.example/cb', 'http://localhost:3000/cb', 'http://[::1]:8765/cb']) {
      expect((await register({ ...mcpClient, redirect_uris: [uri] })).status, uri).toBe(201);
    }
  });

  it('refuses a redirect URI that is plain http off loopback, a custom scheme, or has a fragment', async () => {
    for (const uri of ['http://evil.example/cb', 'http://127.0.0.2.evil.example/cb', 'com.example.app:/cb', 'https://app.example/cb#x']) {
      const { status, body } = await register({ ...mcpClient, redirect_uris: [uri] });
      expect(status, uri).toBe(400);
      expect(body.error, uri).toMatch(/^invalid_(client_metadata|redirect_uri)$/);
    }
  });

  it('refuses a confidential client', async () => {
    for (const method of ['client_secret_basic', 'client_secret_post', 'private_key_jwt']) {
      const { status, body } = await register({ ...mcpClient, token_endpoint_auth_method: method });
      expect(status, method).toBe(400);
      expect(body.error).toBe('invalid_client_metadata');
    }
  });
});

describe('authorization code with PKCE', () => {
  it('issues an MCP token: a signed JWT for that resource only, with the granted scopes the resource accepts and the account', async () => {
    const { tokens } = await connect(resources.mcp);
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 600 });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const claims = await verifyFor(tokens.access_token, resources.mcp);
    // postbacks:read is not an MCP scope: asked for, never granted on that resource.
    expect(claims).toMatchObject({ sub: PERSON, accountId: ACCOUNT, scopes: ['affiliate:read', 'catalog:read'] });
    expect(claims.grantId).toEqual(expect.any(String));
    const [header] = String(tokens.access_token).split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toMatchObject({ alg: 'ES256', typ: 'at+jwt', kid: 'k2' });
    const grant = await oauth.grantById(claims.grantId!);
    expect(grant).toMatchObject({ accountId: ACCOUNT, personId: PERSON, resources: { [resources.mcp]: ['affiliate:read', 'catalog:read'] } });
    expect(grant!.scopes).toContain('offline_access');
  });

  it('a token for the MCP resource is refused by a check for the publisher API, and the other way round', async () => {
    const mcp = await connect(resources.mcp);
    const e = await verifyFor(mcp.tokens.access_token, resources.publisherApi).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(InvalidAccessTokenError);
    expect((e as InvalidAccessTokenError).problem).toBe('audience');
    const api = await connect(resources.publisherApi);
    expect((await verifyFor(api.tokens.access_token, resources.publisherApi)).scopes).toEqual(['affiliate:read', 'catalog:read', 'postbacks:read']);
    await expect(verifyFor(api.tokens.access_token, resources.mcp)).rejects.toBeInstanceOf(InvalidAccessTokenError);
  });

  it('a request that names no resource gets a publisher API token', async () => {
    const { tokens } = await connect(undefined, 'catalog:read');
    expect((await verifyFor(tokens.access_token, resources.publisherApi)).scopes).toEqual(['catalog:read']);
    expect(tokens).not.toHaveProperty('refresh_token');
  });

  it('refuses an unknown resource, a missing code challenge and the plain method at the authorization endpoint', async () => {
    const clientId = (await register(mcpClient)).body.client_id as string;
    const { challenge } = pkce();
    const unknown = await authorize({
      client_id: clientId,
      scope: 'catalog:read',
      resource: `${resources.mcp}/`,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect(unknown.get('error')).toBe('invalid_target');
    const noChallenge = await authorize({ client_id: clientId, scope: 'catalog:read', resource: resources.mcp });
    expect(noChallenge.get('error')).toBe('invalid_request');
    const plain = await authorize({
      client_id: clientId,
      scope: 'catalog:read',
      resource: resources.mcp,
      code_challenge: challenge,
      code_challenge_method: 'plain',
    });
    expect(plain.get('error')).toBe('invalid_request');
    expect(plain.get('code')).toBeNull();
  });

  it('refuses the exchange without the code verifier or with a wrong one, and a code used twice (which also revokes its grant)', async () => {
    const clientId = (await register(mcpClient)).body.client_id as string;
    const { challenge } = pkce();
    const code = (
      await authorize({
        client_id: clientId,
        scope: 'catalog:read offline_access',
        prompt: 'consent',
        resource: resources.mcp,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      })
    ).get('code')!;
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, resource: resources.mcp };
    const missing = await token(exchange);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_grant');
    const wrong = await token({ ...exchange, code_verifier: pkce().verifier });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    // A fresh code: exchanged once, then replayed.
    const second = pkce();
    const code2 = (
      await authorize({
        client_id: clientId,
        scope: 'catalog:read offline_access',
        prompt: 'consent',
        resource: resources.mcp,
        code_challenge: second.challenge,
        code_challenge_method: 'S256',
      })
    ).get('code')!;
    const first = await token({ ...exchange, code: code2, code_verifier: second.verifier });
    expect(first.status).toBe(200);
    const replay = await token({ ...exchange, code: code2, code_verifier: second.verifier });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: String(first.body.refresh_token), client_id: clientId });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses a redirect URI the client did not register', async () => {
    const clientId = (await register(mcpClient)).body.client_id as string;
    const { challenge } = pkce();
    const res = await fetch(
      `${base}/oauth/authorize?${new URLSearchParams({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: 'http://127.0.0.1:10/callback',
        scope: 'catalog:read',
        resource: resources.mcp,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      })}`,
      { redirect: 'manual' },
    );
    // Never sent back to an unregistered URI: an error page here.
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('redirect_uri');
  });
});

describe('refresh tokens', () => {
  it('rotates the refresh token; the old one used again is invalid_grant and revokes the grant', async () => {
    const { clientId, tokens } = await connect(resources.mcp);
    const grantId = (await verifyFor(tokens.access_token, resources.mcp)).grantId!;
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: clientId });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).toEqual(expect.any(String));
    expect(refreshed.body.refresh_token).not.toBe(tokens.refresh_token);
    const claims = await verifyFor(refreshed.body.access_token, resources.mcp);
    expect(claims).toMatchObject({ accountId: ACCOUNT, grantId, scopes: ['affiliate:read', 'catalog:read'] });

    const reused = await token({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: clientId });
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await oauth.grantById(grantId)).toBeNull();
    expect(revoked).toContainEqual(expect.objectContaining({ grantId, accountId: ACCOUNT, personId: PERSON, clientId }));
    const rotated = await token({ grant_type: 'refresh_token', refresh_token: String(refreshed.body.refresh_token), client_id: clientId });
    expect(rotated).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('a refresh token revoked at the revocation endpoint no longer refreshes, and its grant is gone', async () => {
    const { clientId, tokens } = await connect(resources.mcp);
    const grantId = (await verifyFor(tokens.access_token, resources.mcp)).grantId!;
    const res = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: String(tokens.refresh_token), token_type_hint: 'refresh_token', client_id: clientId }),
    });
    expect(res.status).toBe(200);
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: clientId });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await oauth.grantById(grantId)).toBeNull();
  });

  it('a grant revoked in the portal ends its refresh token', async () => {
    const { clientId, tokens } = await connect(resources.mcp);
    const grantId = (await verifyFor(tokens.access_token, resources.mcp)).grantId!;
    expect((await oauth.grantsOfAccount(ACCOUNT)).map((g) => g.grantId)).toContain(grantId);
    expect(await oauth.revokeGrant(grantId, 'pub_someone_else')).toBe(false);
    expect(await oauth.revokeGrant(grantId, ACCOUNT)).toBe(true);
    expect((await oauth.grantsOfAccount(ACCOUNT)).map((g) => g.grantId)).not.toContain(grantId);
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: clientId });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('an app an operator disabled can no longer refresh, and its grants are gone', async () => {
    const { clientId, tokens } = await connect(resources.mcp);
    const grantId = (await verifyFor(tokens.access_token, resources.mcp)).grantId!;
    expect(await oauth.disableClient(clientId)).toEqual({ found: true, grantsRevoked: 1 });
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: clientId });
    expect(refresh).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(await oauth.grantById(grantId)).toBeNull();
  });

  it('a person who may no longer sign in gets no token from a refresh', async () => {
    const { clientId, tokens } = await connect(resources.mcp);
    gone.add(PERSON);
    try {
      const refresh = await token({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: clientId });
      expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    } finally {
      gone.delete(PERSON);
    }
  });
});

describe('the grant and its account', () => {
  it('a person who left the account gets no token for it, neither from a code nor from a refresh', async () => {
    const { clientId, tokens } = await connect(resources.mcp);
    leftAccounts.add(ACCOUNT);
    try {
      const refresh = await token({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: clientId });
      expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      const { verifier, challenge } = pkce();
      const code = (
        await authorize({ client_id: clientId, scope: 'catalog:read', resource: resources.mcp, code_challenge: challenge, code_challenge_method: 'S256' })
      ).get('code')!;
      expect(code).toMatch(/^[\w-]{20,}$/);
      const exchanged = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: clientId });
      expect(exchanged).toMatchObject({
        status: 400,
        body: { error: 'invalid_grant', error_description: expect.stringContaining('grant request is invalid') },
      });
    } finally {
      leftAccounts.delete(ACCOUNT);
    }
  });

  it('consenting again for another account starts a new grant; the first keeps acting for its own account', async () => {
    const jar = new CookieJar();
    const clientId = (await register(mcpClient)).body.client_id as string;
    const run = async () => {
      const { verifier, challenge } = pkce();
      const code = (
        await authorize(
          { client_id: clientId, scope: 'catalog:read', prompt: 'consent', resource: resources.mcp, code_challenge: challenge, code_challenge_method: 'S256' },
          jar,
        )
      ).get('code')!;
      const t = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: clientId });
      expect(t.status, JSON.stringify(t.body)).toBe(200);
      return verifyFor(t.body.access_token, resources.mcp);
    };
    const first = await run();
    consentAccount = 'pub_oauth_2';
    try {
      const second = await run();
      expect(second.accountId).toBe('pub_oauth_2');
      expect(second.grantId).not.toBe(first.grantId);
      expect(await oauth.grantAccount(first.grantId!)).toBe(ACCOUNT);
      expect((await oauth.grantsOfAccount('pub_oauth_2')).map((g) => g.grantId)).toEqual([second.grantId]);
    } finally {
      consentAccount = ACCOUNT;
    }
    expect(await oauth.bindGrantAccount(first.grantId!, 'pub_oauth_2')).toBe(false);
  });
});

describe("an MCP client (the MCP TypeScript SDK's own OAuth support)", () => {
  it('discovers, registers, is authorized, exchanges the code and refreshes, with the resource and scopes of the MCP endpoint', async () => {
    const jar = new CookieJar();
    const state: { client?: OAuthClientInformationMixed; tokens?: OAuthTokens; verifier?: string; code?: string } = {};
    const client: OAuthClientProvider = {
      get redirectUrl() {
        return REDIRECT;
      },
      get clientMetadata() {
        return {
          client_name: 'SDK Agent',
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        };
      },
      clientInformation: () => state.client,
      saveClientInformation: (info) => void (state.client = info),
      tokens: () => state.tokens,
      saveTokens: (t) => void (state.tokens = t),
      saveCodeVerifier: (v) => void (state.verifier = v),
      codeVerifier: () => state.verifier!,
      // The browser: sign-in and consent, then the redirect back with the code.
      redirectToAuthorization: async (url) => {
        const u = new URL(url);
        expect(u.origin + u.pathname).toBe(`${base}/oauth/authorize`);
        expect(u.searchParams.get('resource')).toBe(resources.mcp);
        expect(u.searchParams.get('code_challenge_method')).toBe('S256');
        const back = await authorize(Object.fromEntries(u.searchParams), jar);
        expect(back.get('iss')).toBe(base);
        state.code = back.get('code')!;
      },
    };
    const serverUrl = resources.mcp;
    expect(await auth(client, { serverUrl })).toBe('REDIRECT');
    expect(state.client?.client_id).toEqual(expect.any(String));
    expect(await auth(client, { serverUrl, authorizationCode: state.code })).toBe('AUTHORIZED');
    const first = await verifyFor(state.tokens?.access_token, resources.mcp);
    expect(first).toMatchObject({ sub: PERSON, accountId: ACCOUNT, scopes: ['affiliate:read', 'catalog:read', 'links:write', 'reports:read'] });
    const firstRefresh = state.tokens?.refresh_token;
    expect(firstRefresh).toEqual(expect.any(String));

    // With a refresh token stored, auth() refreshes (rotated) without the browser.
    expect(await auth(client, { serverUrl })).toBe('AUTHORIZED');
    expect(state.tokens?.refresh_token).not.toBe(firstRefresh);
    expect((await verifyFor(state.tokens?.access_token, resources.mcp)).grantId).toBe(first.grantId);
  });
});
