/**
 * A portal under test, as the integration and security suites drive it: the app on the test
 * engine with its mail written to files, and browsers (each its own cookie jar and address) that
 * send the portal's Origin and, once signed in, the CSRF token. The portal mails in the
 * background (after its answer); a browser reads an answer once the mail it handed off is written,
 * as a person opens their mail after the page, so `mailTo` right after a request finds it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { expect } from 'vitest';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { createApp, mailSettled } from '../../src/app';

export const PORTAL_API = '/portal/api';

export interface PortalHarness {
  deps: TestDeps;
  http: ReturnType<ReturnType<typeof createApp>['callback']>;
  origin: string;
  mailDir: string;
  /** Resolves once every mail the portal handed to the background is written (or given up). */
  mailSent(): Promise<void>;
  close(): Promise<void>;
}

/** The portal on a fresh test database (rate limits lifted unless `env` sets them). */
export async function startPortal(env: Record<string, string> = {}, opts: { seedProducts?: number } = {}): Promise<PortalHarness> {
  const mailDir = mkdtempSync(join(tmpdir(), 'portal-mail-'));
  const webDir = mkdtempSync(join(tmpdir(), 'portal-web-'));
  writeFileSync(join(webDir, 'index.html'), '<!doctype html><title>Portal</title><script type="module" src="/assets/app.js"></script>');
  const deps = await createTestDeps({
    seedProducts: opts.seedProducts ?? 20,
    env: {
      MAIL_DIR: mailDir,
      TRUST_PROXY_HOPS: '1',
      RATELIMIT_IP_PER_MIN: '100000',
      RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '100000',
      RATELIMIT_SIGNIN_EMAIL_PER_MIN: '100000',
      ...env,
    },
  });
  const app = createApp(deps, { webDir });
  const http = app.callback();
  return {
    deps,
    http,
    origin: new URL(deps.config.portalUrl).origin,
    mailDir,
    mailSent: () => mailSettled(app),
    async close() {
      await mailSettled(app);
      await deps.close();
      rmSync(mailDir, { recursive: true, force: true });
      rmSync(webDir, { recursive: true, force: true });
    },
  };
}

let addressNo = 0;
export type PortalBrowser = ReturnType<typeof portalBrowser>;

/** A request whose answer is read once the mail it handed to the background is written. */
export function afterMail(r: request.Test, mailSent?: () => Promise<void>): request.Test {
  if (!mailSent) return r;
  const then = r.then.bind(r);
  r.then = ((ok, ko) => then(async (res) => (await mailSent(), res)).then(ok, ko)) as request.Test['then'];
  return r;
}

/** A browser: its own cookie jar and address; sends the portal's Origin and, once signed in, the CSRF token. */
export function portalBrowser(
  p: Pick<PortalHarness, 'http' | 'origin'> & Partial<Pick<PortalHarness, 'mailSent'>>,
  ip = `198.51.${100 + Math.floor(++addressNo / 250)}.${(addressNo % 250) + 1}`,
) {
  const agent = request.agent(p.http);
  let csrf = '';
  const send = (method: 'post' | 'put' | 'patch' | 'delete', path: string, body?: object) => {
    const r = afterMail(agent[method](`${PORTAL_API}${path}`).set('Origin', p.origin).set('X-Forwarded-For', ip), p.mailSent);
    if (csrf) r.set('X-CSRF-Token', csrf);
    return body ? r.send(body) : r;
  };
  return {
    ip,
    agent,
    get: (path: string) => afterMail(agent.get(`${PORTAL_API}${path}`).set('X-Forwarded-For', ip), p.mailSent),
    page: (path: string) => agent.get(path).set('X-Forwarded-For', ip).set('Accept', 'text/html').redirects(0),
    post: (path: string, body?: object) => send('post', path, body),
    put: (path: string, body?: object) => send('put', path, body),
    patch: (path: string, body?: object) => send('patch', path, body),
    del: (path: string) => send('delete', path),
    async signIn(email: string, password: string) {
      const res = await send('post', '/signin', { email, password });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      csrf = res.body.csrf_token;
      return res.body as { user: { id: string; email: string }; accounts: Array<{ account_id: string; role: string; status: string }> };
    },
    setCsrf(token: string) {
      csrf = token;
    },
  };
}

/** The mails written to `mailDir` for `to`, oldest first. */
export const mailFiles = (mailDir: string, to: string): string[] =>
  readdirSync(mailDir)
    .filter((f) => f.endsWith(`${to}.eml`))
    .sort();

/** The newest mail to `to`, and the one-time link in it for `path`. */
export function mailTo(mailDir: string, to: string, nth = -1): { text: string; link: (path: string) => string } {
  const files = mailFiles(mailDir, to);
  expect(files.length, `no mail to ${to}`).toBeGreaterThan(0);
  const text = readFileSync(join(mailDir, files.at(nth)!), 'utf8')
    .replace(/=\r?\n/g, '')
    .replace(/=3D/g, '=');
  return {
    text,
    link: (path) => {
      const m = new RegExp(`${path.replace(/\//g, '\\/')}\\?token=([A-Za-z0-9_-]+)`).exec(text);
      expect(m, `no ${path} link in the mail to ${to}`).toBeTruthy();
      return m![1]!;
    },
  };
}
