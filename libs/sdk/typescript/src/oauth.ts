/**
 * OAuth 2.1 for apps acting for a publisher account: the portal is the authorization server
 * (discovery, dynamic client registration, authorization code with PKCE S256, rotating refresh
 * tokens). `oauthTokenProvider` keeps an access token fresh for the client.
 */
import { CwApiError, errorFromResponse } from './errors.js';
import type { TokenProvider } from './transport.js';

export interface AuthorizationServer {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
  revocation_endpoint?: string;
  [k: string]: unknown;
}

export interface OAuthTokens {
  access_token: string;
  refresh_token?: string;
  /** When the access token expires (ms since the epoch). */
  expires_at: number;
  scope?: string;
  token_type?: string;
}

/** Every scope of the publisher API, and a refresh token. */
export const PUBLISHER_SCOPES = ['affiliate:read', 'catalog:read', 'links:write', 'reports:read', 'postbacks:read', 'payouts:write', 'offline_access'];

/** The publisher API's resource indicator (the audience of its tokens). */
export const publisherResource = (baseUrl: string) => `${baseUrl.replace(/\/+$/, '')}/api/v1/publisher`;

type Fetch = typeof fetch;
const defaultFetch: Fetch = (...args) => globalThis.fetch(...args);

async function json<T>(res: Response, url: string): Promise<T> {
  const text = await res.text();
  if (!res.ok) throw errorFromResponse(res.status, text, res.headers, { url });
  return JSON.parse(text) as T;
}

export async function discoverAuthorizationServer(baseUrl: string, fetchImpl: Fetch = defaultFetch): Promise<AuthorizationServer> {
  const url = `${baseUrl.replace(/\/+$/, '')}/.well-known/oauth-authorization-server`;
  return json<AuthorizationServer>(await fetchImpl(url, { headers: { Accept: 'application/json' } }), url);
}

/** Registers a public client (no secret) with these redirect URIs (https, or http on a loopback address). */
export async function registerPublicClient(
  server: AuthorizationServer,
  client: { clientName: string; redirectUris: string[] },
  fetchImpl: Fetch = defaultFetch,
): Promise<{ client_id: string }> {
  if (!server.registration_endpoint) throw new CwApiError({ status: 0, code: 'registration_unsupported', detail: 'The server offers no client registration.' });
  const res = await fetchImpl(server.registration_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({
      client_name: client.clientName,
      redirect_uris: client.redirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  return json(res, server.registration_endpoint);
}

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** A PKCE verifier and its S256 challenge. */
export async function createPkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = b64url(globalThis.crypto.getRandomValues(new Uint8Array(32)));
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  return { verifier, challenge: b64url(digest) };
}

export const randomState = () => b64url(globalThis.crypto.getRandomValues(new Uint8Array(16)));

export function authorizationUrl(
  server: AuthorizationServer,
  p: { clientId: string; redirectUri: string; scopes: string[]; state: string; codeChallenge: string; resource: string },
): string {
  const u = new URL(server.authorization_endpoint);
  u.search = new URLSearchParams({
    response_type: 'code',
    client_id: p.clientId,
    redirect_uri: p.redirectUri,
    scope: p.scopes.join(' '),
    state: p.state,
    code_challenge: p.codeChallenge,
    code_challenge_method: 'S256',
    resource: p.resource,
    ...(p.scopes.includes('offline_access') ? { prompt: 'consent' } : {}),
  }).toString();
  return u.href;
}

async function tokenRequest(server: Pick<AuthorizationServer, 'token_endpoint'>, form: Record<string, string>, fetchImpl: Fetch): Promise<OAuthTokens> {
  const res = await fetchImpl(server.token_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams(form),
  });
  const t = await json<{ access_token: string; refresh_token?: string; expires_in?: number; scope?: string; token_type?: string }>(res, server.token_endpoint);
  return {
    access_token: t.access_token,
    refresh_token: t.refresh_token,
    expires_at: Date.now() + (t.expires_in ?? 600) * 1000,
    scope: t.scope,
    token_type: t.token_type,
  };
}

export function exchangeCode(
  server: Pick<AuthorizationServer, 'token_endpoint'>,
  p: { clientId: string; code: string; redirectUri: string; codeVerifier: string; resource: string },
  fetchImpl: Fetch = defaultFetch,
): Promise<OAuthTokens> {
  return tokenRequest(
    server,
    { grant_type: 'authorization_code', client_id: p.clientId, code: p.code, redirect_uri: p.redirectUri, code_verifier: p.codeVerifier, resource: p.resource },
    fetchImpl,
  );
}

export function refreshTokens(
  server: Pick<AuthorizationServer, 'token_endpoint'>,
  p: { clientId: string; refreshToken: string; resource: string },
  fetchImpl: Fetch = defaultFetch,
): Promise<OAuthTokens> {
  return tokenRequest(server, { grant_type: 'refresh_token', client_id: p.clientId, refresh_token: p.refreshToken, resource: p.resource }, fetchImpl);
}

export interface OAuthTokenProviderOptions {
  tokenEndpoint: string;
  clientId: string;
  /** The publisher API's resource indicator (`publisherResource(baseUrl)`). */
  resource: string;
  tokens: OAuthTokens;
  /** Called with every new token set: store it (the refresh token rotates at each use). */
  onTokens?: (tokens: OAuthTokens) => void | Promise<void>;
  fetch?: Fetch;
}

/**
 * A TokenProvider over a refresh token: the access token is refreshed a minute before it
 * expires, or after the API refused it; concurrent calls share one refresh.
 */
export function oauthTokenProvider(opts: OAuthTokenProviderOptions): TokenProvider & { tokens(): OAuthTokens } {
  let tokens = opts.tokens;
  let refreshing: Promise<OAuthTokens> | undefined;
  const refresh = () =>
    (refreshing ??= (async () => {
      if (!tokens.refresh_token)
        throw new CwApiError({ status: 401, code: 'invalid_token', detail: 'The access token expired and there is no refresh token: sign in again.' });
      const next = await refreshTokens(
        { token_endpoint: opts.tokenEndpoint },
        { clientId: opts.clientId, refreshToken: tokens.refresh_token, resource: opts.resource },
        opts.fetch,
      );
      tokens = { ...next, refresh_token: next.refresh_token ?? tokens.refresh_token };
      await opts.onTokens?.(tokens);
      return tokens;
    })().finally(() => (refreshing = undefined)));
  return {
    tokens: () => tokens,
    async getToken() {
      if (tokens.expires_at - Date.now() < 60_000) await refresh();
      return tokens.access_token;
    },
    invalidate(token: string) {
      if (token === tokens.access_token) tokens = { ...tokens, expires_at: 0 };
    },
  };
}
