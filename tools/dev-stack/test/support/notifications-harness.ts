/**
 * The notification mail suites' platform: the portal and the worker on one test database, both
 * sending through SMTP to a real local server (./smtp-sink.ts) on a port of their own, which a test
 * may close and open again; the worker polls often and retries a failed mail after 300 ms.
 */
import request from 'supertest';
import { expect } from 'vitest';
import { createApp as portal, mailSettled } from '@cw/app-portal';
import { createWorker, type Worker } from '@cw/app-postback-worker';
import { createTestDeps, freePort, type TestDeps } from '@cw-tools/testing';
import { smtpSink, type SmtpSink } from './smtp-sink';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PORTAL_API = '/portal/api';

export interface NotificationsHarness {
  deps: TestDeps;
  sink: SmtpSink;
  smtpPort: number;
  http: ReturnType<ReturnType<typeof portal>['callback']>;
  origin: string;
  worker: Worker;
  close(): Promise<void>;
}

export async function startNotifications(): Promise<NotificationsHarness> {
  const sink = smtpSink();
  const smtpPort = await freePort();
  await sink.listen(smtpPort);
  const webDir = mkdtempSync(join(tmpdir(), 'portal-web-'));
  writeFileSync(join(webDir, 'index.html'), '<!doctype html><title>Portal</title>');
  const deps = await createTestDeps({
    seedProducts: 5,
    env: {
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      TRUST_PROXY_HOPS: '1',
      RATELIMIT_IP_PER_MIN: '100000',
      RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '100000',
      RATELIMIT_SIGNIN_EMAIL_PER_MIN: '100000',
      RATELIMIT_PORTAL_PER_MIN: '100000',
      PAYOUT_METHOD_HOLD_HOURS: '0',
    },
  });
  const app = portal(deps, { webDir });
  const worker = createWorker({
    db: deps.db.connection.db!,
    logger: deps.logger,
    config: deps.config,
    data: deps.data,
    processEveryMs: 100,
    mail: { firstRetryMs: 300 },
    // The recurring pass is run by the tests themselves at chosen instants.
    weeklySummariesMs: 3_600_000,
  });
  await worker.start();
  return {
    deps,
    sink,
    smtpPort,
    http: app.callback(),
    origin: new URL(deps.config.portalUrl).origin,
    worker,
    async close() {
      await worker.stop();
      await mailSettled(app);
      await sink.close();
      await deps.close();
      rmSync(webDir, { recursive: true, force: true });
    },
  };
}

let addressNo = 0;

/** A browser of the portal: its own cookies and address, the portal's Origin, and the CSRF token once signed in. */
export function browser(h: Pick<NotificationsHarness, 'http' | 'origin'>) {
  const agent = request.agent(h.http);
  const ip = `203.0.113.${(++addressNo % 250) + 1}`;
  let csrf = '';
  const send = (method: 'post' | 'put', path: string, body?: object) => {
    const r = agent[method](`${PORTAL_API}${path}`).set('Origin', h.origin).set('X-Forwarded-For', ip);
    if (csrf) r.set('X-CSRF-Token', csrf);
    return body ? r.send(body) : r;
  };
  return {
    get: (path: string) => agent.get(`${PORTAL_API}${path}`).set('X-Forwarded-For', ip),
    post: (path: string, body?: object) => send('post', path, body),
    put: (path: string, body?: object) => send('put', path, body),
    async signIn(login: { email: string; password: string }) {
      const res = await send('post', '/signin', login);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      csrf = res.body.csrf_token;
      return res.body as { user: { id: string } };
    },
  };
}

/** Polls until `fn` gives something (the worker's job ran), failing after `ms`. */
export async function until<T>(fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The `t` of a link in a mail. */
export function tokenIn(text: string, path: string): string {
  const m = new RegExp(`${path.replace(/\//g, '\\/')}\\?t=([A-Za-z0-9._%-]+)`).exec(text);
  expect(m, `no ${path} link in the mail`).toBeTruthy();
  return decodeURIComponent(m![1]!);
}
