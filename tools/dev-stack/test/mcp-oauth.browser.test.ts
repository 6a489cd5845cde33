/**
 * The MCP TypeScript SDK's own client OAuth support against the local platform (issue 44):
 * discovery, registration, authorization (sign-in and consent in a real headless Chromium),
 * token exchange and tool calls; a refresh with rotation; revocation in Settings, Apps making
 * the next call 401; an MCP token refused by the publisher API.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { auth, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { InvalidGrantError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { freePort } from '@cw-tools/testing';
import { startPlatform, type Platform } from './support/test-platform';
import { CHROMIUM_ARGS, chromiumPath, portalEnv, type PortalEnv } from '../src/portal-journeys';

const APP = 'MCP e2e agent';
const STEP_MS = 15_000;
let platform: Platform;
let env: PortalEnv;
let browser: Browser;
let page: Page;
let mailDir: string;
let callback: http.Server;
let redirectUri: string;
let codeWaiter: { resolve(code: string): void } | null = null;
const clients: Client[] = [];

/** The app's store: what the SDK saves, kept unchanged (issuer stamping). */
class Provider implements OAuthClientProvider {
  constructor(readonly name = APP) {}
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  redirects: URL[] = [];
  get redirectUrl(): string {
    return redirectUri;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  redirectToAuthorization(url: URL) {
    this.redirects.push(url);
  }
}

/** The person signs in on the portal's page and allows on the consent page; the code arrives at the loopback listener. */
async function authorizeInBrowser(url: URL, app: string, signIn: boolean): Promise<string> {
  const code = new Promise<string>((resolve) => (codeWaiter = { resolve }));
  await page.goto(url.href);
  const person = env.credentials.publishers[0]!.portal_login;
  const main = page.getByRole('main');
  if (signIn) {
    await main.getByRole('heading', { level: 1, name: `Connect ${app}` }).waitFor({ timeout: STEP_MS });
    await page.getByLabel('E-mail').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await main.getByRole('heading', { level: 1, name: `Allow ${app} to act for your account?` }).waitFor({ timeout: STEP_MS });
  await page.getByRole('button', { name: 'Allow' }).click();
  const got = await code;
  // The callback server answers before the browser has loaded its page: wait until it has, or the
  // test's next navigation is interrupted by this one (seen in CI).
  await page.waitForURL((u) => u.pathname === '/callback', { timeout: STEP_MS });
  return got;
}

const mcpUrl = () => new URL(`${platform.url}/api/v1/mcp`);

async function connect(provider: Provider): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
  const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  return { client, transport };
}

beforeAll(async () => {
  const problem = inject('chromiumProblem');
  if (problem) throw new Error(problem);
  mailDir = mkdtempSync(join(tmpdir(), 'mcp-oauth-browser-mail-'));
  const port = String(await freePort());
  platform = await startPlatform({ env: { PORT: port, NODE_ENV: 'test', LOG_LEVEL: 'silent' }, seedProducts: 50, credentialsPath: null, mailDir });
  env = portalEnv(platform, mailDir);
  callback = http.createServer((req, res) => {
    const code = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('code');
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('Back in the app.');
    if (code && codeWaiter) codeWaiter.resolve(code);
  });
  const cbPort = await freePort();
  await new Promise<void>((ok) => callback.listen(cbPort, '127.0.0.1', ok));
  redirectUri = `http://127.0.0.1:${cbPort}/callback`;
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
}, 120_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await browser?.close();
  await new Promise<void>((ok) => (callback ? callback.close(() => ok()) : ok()));
  await platform?.stop();
  if (mailDir) rmSync(mailDir, { recursive: true, force: true });
});

describe('the MCP SDK client over OAuth', () => {
  const provider = new Provider();
  let firstAccess = '';

  it('runs discovery, registration, browser sign-in and consent, token exchange, then tool calls', async () => {
    const anon = await connect(provider);
    const tools = await anon.client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('search_products');
    const err = await anon.client.callTool({ name: 'search_products', arguments: { country: 'DE' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(provider.redirects).toHaveLength(1);
    const authorize = provider.redirects[0]!;
    expect(authorize.searchParams.get('resource')).toBe(`${platform.url}/api/v1/mcp`);
    expect(authorize.searchParams.get('scope')!.split(' ')).toContain('offline_access');
    expect(provider.info?.client_id).toEqual(expect.any(String));

    const code = await authorizeInBrowser(authorize, APP, true);
    await anon.transport.finishAuth(code);
    expect(provider.saved).toMatchObject({
      token_type: expect.stringMatching(/^bearer$/i),
      access_token: expect.any(String),
      refresh_token: expect.any(String),
    });
    firstAccess = provider.saved!.access_token;

    const { client } = await connect(provider);
    const found = (await client.callTool({ name: 'search_products', arguments: { country: 'DE' } })) as CallToolResult;
    expect(found.isError, JSON.stringify(found.content)).toBeFalsy();
    expect(JSON.stringify(found.structuredContent)).toContain(`${platform.url}/c/`);
    const status = (await client.callTool({ name: 'get_payment_status', arguments: {} })) as CallToolResult;
    expect(status.isError, JSON.stringify(status.content)).toBeFalsy();
    expect((status.structuredContent as { account_id: string }).account_id).toBe(env.credentials.publishers[0]!.account_id);
  }, 120_000);

  it('refreshes through the SDK (rotation: the old refresh token is refused), then a tool call works', async () => {
    const old = provider.saved!;
    provider.saved = {
      refresh_token: old.refresh_token,
      token_type: old.token_type,
      ...('issuer' in old ? { issuer: (old as { issuer: string }).issuer } : {}),
    } as OAuthTokens;
    expect(await auth(provider, { serverUrl: mcpUrl() })).toBe('AUTHORIZED');
    expect(provider.saved.access_token).toEqual(expect.any(String));
    expect(provider.saved.access_token).not.toBe(old.access_token);
    expect(provider.saved.refresh_token).toEqual(expect.any(String));
    expect(provider.saved.refresh_token).not.toBe(old.refresh_token);

    const { client } = await connect(provider);
    const found = (await client.callTool({ name: 'search_products', arguments: { country: 'DE' } })) as CallToolResult;
    expect(found.isError, JSON.stringify(found.content)).toBeFalsy();

    const replay = await fetch(`${platform.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: old.refresh_token!, client_id: provider.info!.client_id }),
    });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
  }, 120_000);

  it('revoking the app in Settings, Apps makes the next tool call 401 (the refresh fails too)', async () => {
    // The refresh-token replay above may have revoked the first grant: a second app, the person already signed in.
    const second = new Provider(`${APP} two`);
    const anon = await connect(second);
    expect(await anon.client.callTool({ name: 'search_products', arguments: { country: 'DE' } }).catch((e: unknown) => e)).toBeInstanceOf(UnauthorizedError);
    await anon.transport.finishAuth(await authorizeInBrowser(second.redirects[0]!, second.name, false));
    expect(second.saved?.refresh_token).toEqual(expect.any(String));
    const { client } = await connect(second);
    expect(((await client.callTool({ name: 'search_products', arguments: { country: 'DE' } })) as CallToolResult).isError).toBeFalsy();

    await page.goto(`${platform.url}/settings/apps`);
    const main = page.getByRole('main');
    await main.getByRole('heading', { level: 1, name: 'Apps' }).waitFor({ timeout: STEP_MS });
    const row = main.getByRole('row').filter({ hasText: second.name });
    await row.first().waitFor({ timeout: STEP_MS });
    await row
      .first()
      .getByRole('button', { name: `Revoke ${second.name}` })
      .click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, revoke the app' }).click();
    await row.first().waitFor({ state: 'detached', timeout: STEP_MS });

    const direct = await fetch(mcpUrl(), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${second.saved!.access_token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_products', arguments: { country: 'DE' } } }),
    });
    expect(direct.status).toBe(401);
    const failed = await client.callTool({ name: 'search_products', arguments: { country: 'DE' } }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    // The SDK met the 401, tried the stored refresh token, and the token endpoint refused it: the grant is gone.
    expect(failed).toBeInstanceOf(InvalidGrantError);
  }, 120_000);

  it('an MCP token is refused by the publisher API with 401 invalid_token', async () => {
    const res = await fetch(`${platform.url}/api/v1/publisher/me/`, { headers: { Authorization: `Bearer ${firstAccess}` } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  }, 120_000);
});
