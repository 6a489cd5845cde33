/**
 * Connecting an app through OAuth, in a real browser as a person would: an app (played by this
 * code: registration, PKCE, the code exchange) sends the browser to the portal's authorization
 * endpoint; the person signs in on the portal's page, reads what the app asks for and allows it
 * for their account; the browser comes back to the app's loopback redirect with the code. Then
 * Settings, Apps lists the app and revokes it. The browser test (test/oauth.browser.test.ts)
 * asserts on what each journey returns.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import type { Person, PortalEnv } from './portal-journeys';

const STEP_MS = 15_000;
/** The app's loopback redirect: a listener of the journey's own answers the browser there, as a native app would. */
async function loopbackRedirect(): Promise<{ uri: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('Back in the app.');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

const main = (page: Page) => page.getByRole('main');

async function heading(page: Page, name: string | RegExp): Promise<void> {
  await main(page).getByRole('heading', { level: 1, name }).waitFor({ timeout: STEP_MS });
}

export interface ConnectedApp {
  clientId: string;
  /** The app's redirect URI (a loopback address). */
  redirectUri: string;
  appName: string;
  /** The consent page's text, as the person read it. */
  consentText: string;
  /** The scopes' checkboxes: each one's name and whether it was ticked and could be changed. */
  scopes: Array<{ name: string; checked: boolean; disabled: boolean }>;
  /** The token answer of the code exchange. */
  tokens: Record<string, unknown>;
}

async function post(url: string, body: Record<string, unknown> | URLSearchParams): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = body instanceof URLSearchParams;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
    body: form ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * An MCP client connecting: registers (a public loopback client), sends the browser to authorize
 * for the MCP resource, the person signs in (unless the page's browser is signed in to the portal
 * already) and allows; the code comes back to the loopback redirect and is exchanged.
 */
/** Called on a page of the journey worth a check (an accessibility audit, a screenshot). */
export type AtPage = (name: string, page: Page) => Promise<void> | void;

export async function connectAppJourney(page: Page, env: PortalEnv, person: Person | null, appName = 'Journey Agent', at?: AtPage): Promise<ConnectedApp> {
  const loopback = await loopbackRedirect();
  try {
    return await connect(page, env, person, appName, loopback.uri, at);
  } finally {
    await loopback.close();
  }
}

async function connect(page: Page, env: PortalEnv, person: Person | null, appName: string, APP_REDIRECT: string, at?: AtPage): Promise<ConnectedApp> {
  const registered = await post(`${env.url}/oauth/register`, {
    client_name: appName,
    redirect_uris: [APP_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  if (registered.status !== 201) throw new Error(`registration: ${registered.status} ${JSON.stringify(registered.body)}`);
  const clientId = String(registered.body.client_id);
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const resource = `${env.credentials.portal_url}/api/v1/mcp`;
  const state = randomBytes(8).toString('hex');

  const back = page.waitForURL((u) => u.href.startsWith(APP_REDIRECT), { timeout: 3 * STEP_MS });

  await page.goto(
    `${env.url}/oauth/authorize?${new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: APP_REDIRECT,
      scope: 'affiliate:read catalog:read links:write reports:read offline_access',
      prompt: 'consent',
      state,
      resource,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })}`,
  );
  if (person) {
    await heading(page, `Connect ${appName}`);
    await at?.('oauth-signin', page);
    await page.getByLabel('E-mail').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await heading(page, `Allow ${appName} to act for your account?`);
  await at?.('oauth-consent', page);
  const consentText = await main(page).innerText();
  const boxes = main(page).getByRole('group', { name: 'What the app may do' }).getByRole('checkbox');
  const scopes: ConnectedApp['scopes'] = [];
  for (const box of await boxes.all()) {
    const name = (await box.evaluate((el) => el.closest('label')?.textContent ?? '')).trim();
    scopes.push({ name, checked: await box.isChecked(), disabled: await box.isDisabled() });
  }
  await page.getByRole('button', { name: 'Allow' }).click();
  await back;

  const returned = new URL(page.url());
  if (returned.searchParams.get('state') !== state) throw new Error(`state: ${returned.href}`);
  const code = returned.searchParams.get('code');
  if (!code) throw new Error(`no code: ${returned.href}`);
  const exchanged = await post(
    `${env.url}/oauth/token`,
    new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: APP_REDIRECT, code_verifier: verifier, client_id: clientId, resource }),
  );
  if (exchanged.status !== 200) throw new Error(`code exchange: ${exchanged.status} ${JSON.stringify(exchanged.body)}`);
  return { clientId, redirectUri: APP_REDIRECT, appName, consentText, scopes, tokens: exchanged.body };
}

export interface RevokedApp {
  /** The Apps page's row of the app before revoking (its text). */
  row: string;
  /** Whether the row was gone after revoking. */
  gone: boolean;
  /** The app's refresh afterwards: the token endpoint's answer. */
  refresh: { status: number; body: Record<string, unknown> };
}

/** Settings, Apps: the app's row, then Revoke (confirmed); the app's refresh token no longer works. */
export async function revokeAppJourney(page: Page, env: PortalEnv, app: ConnectedApp, at?: AtPage): Promise<RevokedApp> {
  await page.goto(`${env.url}/settings/apps`);
  await heading(page, 'Apps');
  const row = main(page).getByRole('row').filter({ hasText: app.appName });
  await row.first().waitFor({ timeout: STEP_MS });
  await at?.('settings-apps', page);
  const text = await row.first().innerText();
  await row
    .first()
    .getByRole('button', { name: `Revoke ${app.appName}` })
    .click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes, revoke the app' }).click();
  await row.first().waitFor({ state: 'detached', timeout: STEP_MS });
  const gone = (await row.count()) === 0;
  const refresh = await post(
    `${env.url}/oauth/token`,
    new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(app.tokens.refresh_token), client_id: app.clientId }),
  );
  return { row: text, gone, refresh };
}
