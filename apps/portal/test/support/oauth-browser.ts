/**
 * An app and a person going through the portal's OAuth as a browser and a client would, over real
 * HTTP to a listening portal (the issuer is its own origin): a cookie jar that sends cookies where
 * their path applies, the portal's Origin and CSRF token on writes, PKCE, dynamic registration,
 * the authorization request followed through sign-in and consent to the code, and the token
 * endpoint. The security suites attack each step from here.
 */
import { createHash, randomBytes } from 'node:crypto';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, read field by field in assertions
export type Json = Record<string, any>;

let addressNo = 0;

/** A browser: cookies stored from Set-Cookie and sent where their path applies; its own address. */
export class OAuthBrowser {
  private readonly cookies = new Map<string, { value: string; path: string }>();
  readonly ip = `192.0.2.${(++addressNo % 250) + 1}`;
  csrf = '';

  constructor(readonly base: string) {}

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

  async fetch(url: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
    const u = new URL(url, this.base);
    const headers: Record<string, string> = { 'X-Forwarded-For': this.ip, cookie: this.cookieHeader(u.pathname), ...init.headers };
    const method = init.method ?? 'GET';
    if (method !== 'GET') {
      headers.Origin = this.base;
      if (this.csrf) headers['X-CSRF-Token'] = this.csrf;
    }
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(u, { method, headers, redirect: 'manual', body: init.body === undefined ? undefined : JSON.stringify(init.body) });
    this.store(res);
    return res;
  }

  async json(url: string, init: Parameters<OAuthBrowser['fetch']>[1] = {}): Promise<{ status: number; body: Json }> {
    const res = await this.fetch(url, init);
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  }

  /** Signs in to the portal (its session and CSRF token): the app's sign-in then uses that session. */
  async signIn(login: { email: string; password: string }): Promise<void> {
    const res = await this.json('/portal/api/signin', { method: 'POST', body: login });
    if (res.status !== 200) throw new Error(`portal sign-in: ${res.status} ${JSON.stringify(res.body)}`);
    this.csrf = res.body.csrf_token as string;
  }

  /**
   * Follows redirects from `url` until the portal's interaction page (its uid), a redirect off the
   * portal (the app's redirect URI), or an answer that is not a redirect (an error page).
   */
  async follow(url: string): Promise<{ uid: string } | { back: URL } | { page: { status: number; text: string } }> {
    let next = new URL(url, this.base).href;
    for (let hop = 0; hop < 12; hop++) {
      const to = new URL(next);
      if (to.origin !== this.base) return { back: to };
      const m = /^\/oauth\/interaction\/([A-Za-z0-9_-]+)$/.exec(to.pathname);
      if (m) return { uid: m[1]! };
      const res = await this.fetch(next);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { page: { status: res.status, text: await res.text() } };
      await res.body?.cancel();
      next = new URL(location, next).href;
    }
    throw new Error('too many redirects');
  }
}

export const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

export const REDIRECT = 'https://app.example/callback';
export const LOOPBACK_REDIRECT = 'http://127.0.0.1:43123/callback';

/** Registers a public client (RFC 7591) from its own address; answers the provider's answer. */
export async function register(base: string, metadata: Record<string, unknown>): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Forwarded-For': `198.18.${(++addressNo >> 8) % 250}.${(addressNo % 250) + 1}` },
    body: JSON.stringify({
      client_name: 'Probe Agent',
      redirect_uris: [REDIRECT, LOOPBACK_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...metadata,
    }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** A request to the token endpoint (form-encoded, as clients send it). */
export async function token(base: string, form: Record<string, string>): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

export interface AuthorizeParams {
  clientId: string;
  redirectUri?: string;
  scope: string;
  resource?: string;
  challenge?: string;
  method?: string;
  state?: string;
  /** Extra or replaced query parameters (undefined removes one). */
  extra?: Record<string, string | undefined>;
}

export function authorizeUrl(base: string, a: AuthorizeParams): string {
  const q: Record<string, string | undefined> = {
    client_id: a.clientId,
    response_type: 'code',
    redirect_uri: a.redirectUri ?? REDIRECT,
    scope: a.scope,
    state: a.state ?? 'st-probe',
    resource: a.resource,
    code_challenge: a.challenge,
    code_challenge_method: a.method ?? (a.challenge ? 'S256' : undefined),
    ...a.extra,
  };
  const params = new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => e[1] !== undefined));
  return `${base}/oauth/authorize?${params}`;
}

/**
 * The authorization followed to its end in the browser `b` (signed in to the portal): the sign-in
 * step with the portal's session, consent for `accountId` when asked. Answers where the browser was
 * sent back to (the redirect URI with `code` or `error`), or the page it stopped at.
 */
export async function authorize(b: OAuthBrowser, url: string, accountId: string): Promise<{ back: URL } | { page: { status: number; text: string } }> {
  let at = await b.follow(url);
  for (let step = 0; step < 4 && 'uid' in at; step++) {
    const uid = at.uid;
    const details = await b.json(`/oauth/interaction/${uid}/details`);
    if (details.status !== 200) throw new Error(`interaction details: ${details.status} ${JSON.stringify(details.body)}`);
    const res =
      details.body.prompt === 'login'
        ? await b.json(`/oauth/interaction/${uid}/login`, { method: 'POST', body: {} })
        : await b.json(`/oauth/interaction/${uid}/consent`, { method: 'POST', body: { account_id: accountId } });
    if (res.status !== 200) throw new Error(`interaction ${details.body.prompt}: ${res.status} ${JSON.stringify(res.body)}`);
    at = await b.follow(res.body.redirect_to as string);
  }
  if ('uid' in at) throw new Error('the authorization did not end');
  return at;
}
