/**
 * For the SDK tests: the platform with the budgets a test walk needs, the TypeScript SDK packed
 * and installed into a temporary project as a publisher would install it, sales reported through
 * the merchant API on real clicks, a local receiver, a TCP proxy that cuts connections, and a
 * cookie-keeping "browser" for the portal's OAuth pages.
 */
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from '@cw-tools/testing';
import { REPO_ROOT, type CredentialsFile } from '../../src/platform';
import { startPlatform, type Platform } from './test-platform';

export const SDK_DIR = join(REPO_ROOT, 'libs/sdk/typescript');
export const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';

/** Budgets high enough for walking every list at small page sizes, unless a test lowers one. */
export const HIGH_BUDGETS: Record<string, string> = Object.fromEntries(
  [
    'IP',
    'PRODUCTS',
    'ACCOUNT',
    'PROGRAMS',
    'LINKS',
    'REPORTING',
    'POSTBACKS',
    'OFFERS',
    'REPORTING_TOKEN',
    'MONETIZE',
    'FEEDS',
    'MERCHANT',
    'OAUTH_REGISTER',
  ].map((b) => [`RATELIMIT_${b}_PER_MIN`, '100000']),
);

export async function startSdkPlatform(env: Record<string, string> = {}): Promise<Platform & { credentials: CredentialsFile }> {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-platform-'));
  const platform = await startPlatform({
    env: {
      PORT: String(await freePort()),
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      EVENTS_POLL_MS: '100',
      MONETIZE_APPLICATIONS_PER_DAY: '1000',
      ...HIGH_BUDGETS,
      ...env,
    },
    seedProducts: 400,
    credentialsPath: join(dir, 'credentials.json'),
    workerIntervalMs: 100,
  });
  return platform as Platform & { credentials: CredentialsFile };
}

export interface InstalledSdk {
  /** The temporary project the tarball is installed into. */
  project: string;
  tarball: string;
  /** The CLI as `npx cw` runs it. */
  bin: string;
  /** The installed package's ESM entry, imported through the project's resolution. */
  load(): Promise<typeof import('../../../../libs/sdk/typescript/src/index')>;
}

/** `npm pack` in the SDK's folder (which builds it), then `npm install <tarball>` into a new project. */
export function packAndInstallSdk(): InstalledSdk {
  const project = mkdtempSync(join(tmpdir(), 'sdk-consumer-'));
  const packDir = join(project, 'pack');
  mkdirSync(packDir);
  execFileSync('npm', ['pack', '--pack-destination', packDir], { cwd: SDK_DIR, stdio: 'pipe' });
  const tarball = join(
    packDir,
    readdirSync(packDir).find((f) => f.endsWith('.tgz'))!,
  );
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: project, stdio: 'pipe' });
  writeFileSync(join(project, 'sdk.mjs'), "export * from '@cw-platform/sdk';\n");
  return {
    project,
    tarball,
    bin: join(project, 'node_modules/.bin/cw'),
    load: () => import(pathToFileURL(join(project, 'sdk.mjs')).href),
  };
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${res.url}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A reader's click on a new tracked link of `subid` (a browser's user agent: a bot's click never converts). */
export async function click(platform: Platform, key: string, subid: string): Promise<string> {
  const link = await json(
    await fetch(`${platform.url}/api/v1/publisher/links/`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ program_id: platform.credentials!.fixtures.approved_program_id, subid }),
    }),
  );
  const res = await fetch(String(link.url), { redirect: 'manual', headers: { 'User-Agent': BROWSER_UA } });
  await res.body?.cancel();
  const clickId = /clk_[A-Za-z0-9_-]+/.exec(res.headers.get('location') ?? '')?.[0];
  if (!clickId) throw new Error(`no click id in ${res.status} ${res.headers.get('location')}`);
  return clickId;
}

/** The merchant reports a sale on a click; its conversion id. */
export async function reportSale(platform: Platform, clickId: string, amount = '89.90'): Promise<string> {
  const body = await json(
    await fetch(`${platform.url}/api/v1/track/conversions/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${platform.credentials!.fixtures.merchant_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ click_id: clickId, order_id: `SDK-${Date.now()}-${Math.random().toString(36).slice(2)}`, amount, currency: 'EUR' }),
    }),
  );
  return String(body.id);
}

export async function setSaleStatus(platform: Platform, conversionId: string, status: 'approved' | 'declined'): Promise<void> {
  await json(
    await fetch(`${platform.url}/api/v1/track/conversions/${conversionId}/`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${platform.credentials!.fixtures.merchant_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ status }),
    }),
  );
}

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A local HTTP receiver recording every request (answering `status()`, 204 by default). */
export async function startReceiver(): Promise<{
  url: string;
  received: Received[];
  status: () => number;
  setStatus(s: number): void;
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  let status = 204;
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body, at: Date.now() });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    status: () => status,
    setStatus: (s) => (status = s),
    close: () => {
      server.closeAllConnections();
      return new Promise((ok) => server.close(() => ok()));
    },
  };
}

export interface CutProxy {
  url: string;
  /** Every request head that went through (first line and headers), in order. */
  requests: string[];
  /**
   * Decides per connection, from its first request head: pass the answer through (undefined),
   * cut before any of it reaches the client ('drop'), or cut once the text forwarded so far
   * satisfies a predicate.
   */
  plan: (head: string) => undefined | 'drop' | ((forwarded: string) => boolean);
  close(): Promise<void>;
}

/** A TCP proxy to `target` that can cut a connection once part (or none) of the answer went back. */
export async function startCutProxy(target: string): Promise<CutProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  const proxy: CutProxy = { url: '', requests: [], plan: () => undefined, close: async () => undefined };
  const server = net.createServer((client) => {
    sockets.add(client);
    const upstream = net.connect(Number(port), hostname);
    sockets.add(upstream);
    let head = '';
    let plan: ReturnType<CutProxy['plan']>;
    let decided = false;
    let forwarded = '';
    client.on('data', (chunk: Buffer) => {
      if (decided) {
        upstream.write(chunk);
        return;
      }
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      decided = true;
      // One request per connection (the server closes after answering), so each request is seen and planned.
      const lines = head
        .slice(0, end)
        .split('\r\n')
        .filter((l) => !/^connection:/i.test(l));
      const first = `${[...lines, 'Connection: close'].join('\r\n')}`;
      proxy.requests.push(first);
      plan = proxy.plan(first);
      upstream.write(Buffer.from(`${first}${head.slice(end)}`, 'latin1'));
    });
    upstream.on('data', (chunk: Buffer) => {
      if (plan === 'drop') {
        // The server answered (the request took effect); the client never hears it.
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
      if (plan) {
        forwarded += chunk.toString('utf8');
        if (plan(forwarded)) {
          client.destroy();
          upstream.destroy();
        }
      }
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () => {
    for (const s of sockets) s.destroy();
    return new Promise((ok) => server.close(() => ok()));
  };
  return proxy;
}

/** A browser for the portal's OAuth pages: cookies per path, the portal's Origin and CSRF token on writes. */
export class CookieBrowser {
  private readonly cookies = new Map<string, { value: string; path: string }>();
  csrf = '';

  constructor(private readonly base: string) {}

  private store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const at = pair!.indexOf('=');
      const path = attrs.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const expired = attrs.some((a) => a.toLowerCase().startsWith('expires=') && new Date(a.slice(8)).getTime() < Date.now());
      if (expired || pair!.slice(at + 1) === '') this.cookies.delete(pair!.slice(0, at));
      else this.cookies.set(pair!.slice(0, at), { value: pair!.slice(at + 1), path });
    }
  }

  async fetch(url: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
    const u = new URL(url, this.base);
    const cookie = [...this.cookies]
      .filter(([, c]) => u.pathname === c.path || u.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map(([n, c]) => `${n}=${c.value}`)
      .join('; ');
    const headers: Record<string, string> = { cookie };
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

  /** Follows redirects to the portal's interaction page (its uid) or off the portal (the app's redirect). */
  async follow(url: string): Promise<{ uid: string } | { back: string }> {
    let next = new URL(url, this.base).href;
    for (let hop = 0; hop < 12; hop++) {
      const to = new URL(next);
      if (to.origin !== new URL(this.base).origin) return { back: next };
      const m = /^\/oauth\/interaction\/([A-Za-z0-9_-]+)$/.exec(to.pathname);
      if (m) return { uid: m[1]! };
      const res = await this.fetch(next);
      await res.body?.cancel();
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) throw new Error(`${res.status} at ${next}`);
      next = new URL(location, next).href;
    }
    throw new Error('too many redirects');
  }

  /** A person at the consent page: signs in with their password and allows the app for the account. */
  async signInAndAllow(authorizeUrl: string, login: { email: string; password: string }, accountId: string): Promise<string> {
    const first = await this.follow(authorizeUrl);
    if (!('uid' in first)) throw new Error('no sign-in page');
    const signedIn = await this.fetch(`/oauth/interaction/${first.uid}/login`, { method: 'POST', body: login });
    const afterLogin = await this.follow(((await signedIn.json()) as { redirect_to: string }).redirect_to);
    if (!('uid' in afterLogin)) throw new Error('no consent page');
    this.csrf = ((await (await this.fetch(`/oauth/interaction/${afterLogin.uid}/details`)).json()) as { csrf_token: string }).csrf_token;
    const consent = await this.fetch(`/oauth/interaction/${afterLogin.uid}/consent`, { method: 'POST', body: { account_id: accountId } });
    const body = (await consent.json()) as { redirect_to?: string; detail?: string };
    if (!body.redirect_to) throw new Error(`consent refused: ${JSON.stringify(body)}`);
    const back = await this.follow(body.redirect_to);
    if (!('back' in back)) throw new Error('the consent did not lead back to the app');
    return back.back;
  }
}
