/**
 * `cw login`: an API key, or a browser sign-in through the portal's OAuth (dynamic client
 * registration, PKCE, a loopback redirect on 127.0.0.1), stored with `writeLogin`.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  authorizationUrl,
  createPkce,
  discoverAuthorizationServer,
  exchangeCode,
  PUBLISHER_SCOPES,
  publisherResource,
  randomState,
  registerPublicClient,
  type OAuthTokens,
} from '../oauth.js';
import type { StoredLogin } from './config.js';

/** Opens a URL in the user's browser; false when no opener could be started. */
export function openBrowser(url: string): boolean {
  const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body>`;

/** Waits for the browser to come back to the loopback listener with the code (or an error). */
function awaitRedirect(server: http.Server, state: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`No sign-in within ${Math.round(timeoutMs / 1000)} s.`)), timeoutMs);
    server.on('request', (req, res) => {
      const u = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (u.pathname !== '/callback') {
        res.writeHead(404).end();
        return;
      }
      const error = u.searchParams.get('error');
      const code = u.searchParams.get('code');
      if (u.searchParams.get('state') !== state) {
        res.writeHead(400, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE('Sign-in failed', 'The answer did not match this sign-in.'));
        return;
      }
      clearTimeout(timer);
      if (error || !code) {
        res.writeHead(400, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE('Not connected', 'The sign-in was cancelled. You can close this tab.'));
        reject(
          new Error(
            `The sign-in ended: ${error ?? 'no code'}${u.searchParams.get('error_description') ? ` (${u.searchParams.get('error_description')})` : ''}`,
          ),
        );
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE('Connected', 'The cw CLI is signed in. You can close this tab.'));
      resolve(code);
    });
  });
}

export async function browserLogin(baseUrl: string, opts: { open: boolean; say: (line: string) => void; timeoutMs?: number }): Promise<StoredLogin> {
  const server = await discoverAuthorizationServer(baseUrl);
  const listener = http.createServer();
  await new Promise<void>((ok) => listener.listen(0, '127.0.0.1', ok));
  try {
    const redirectUri = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`;
    const { client_id } = await registerPublicClient(server, { clientName: 'cw CLI', redirectUris: [redirectUri] });
    const { verifier, challenge } = await createPkce();
    const state = randomState();
    const resource = publisherResource(baseUrl);
    const url = authorizationUrl(server, { clientId: client_id, redirectUri, scopes: PUBLISHER_SCOPES, state, codeChallenge: challenge, resource });
    const code = awaitRedirect(listener, state, opts.timeoutMs ?? 5 * 60_000);
    opts.say(`Sign in and allow the CLI in your browser:\n  ${url}`);
    if (opts.open && !openBrowser(url)) opts.say('(Could not open a browser: open the address above.)');
    const tokens: OAuthTokens = await exchangeCode(server, { clientId: client_id, code: await code, redirectUri, codeVerifier: verifier, resource });
    return { base_url: baseUrl, oauth: { client_id, token_endpoint: server.token_endpoint, resource, tokens } };
  } finally {
    listener.closeAllConnections();
    await new Promise((ok) => listener.close(ok));
  }
}
