/**
 * Self-billing statements through HTTP against the real engine: the demo publisher requests a
 * payout with its live key (no statement yet: 404 statement_not_issued), an admin approves and the
 * sandbox bank settles it in the portal, and then the publisher API serves the statement as a PDF
 * (its text has the number and the amount) and as JSON (the stored snapshot), the payout names
 * it, another account's key gets 404 not_found, the portal's owner downloads it and another
 * account's owner cannot, and the "payout paid" mail (the worker's mail job) in the local mail
 * folder carries the PDF.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp as portalApp, mailSettled } from '@cw/app-portal';
import { createWorker, type Worker } from '@cw/app-postback-worker';
import { until } from './support/notifications-harness';

let deps: TestDeps;
let api: ReturnType<ReturnType<typeof publisherApi>['callback']>;
let portal: ReturnType<typeof portalApp>;
let worker: Worker;
let mailDir: string;
let webDir: string;
let key: string;
let otherKey: string;
let payoutId: string;

const API = '/api/v1/publisher';

beforeAll(async () => {
  mailDir = mkdtempSync(join(tmpdir(), 'statements-mail-'));
  webDir = mkdtempSync(join(tmpdir(), 'statements-web-'));
  writeFileSync(join(webDir, 'index.html'), '<!doctype html><title>Portal</title>');
  deps = await createTestDeps({
    seedProducts: 20,
    env: {
      MAIL_DIR: mailDir,
      TRUST_PROXY_HOPS: '1',
      PAYOUT_METHOD_HOLD_HOURS: '0',
      PAYOUT_TAX_PROFILE_COUNTRIES: 'none',
      RATELIMIT_IP_PER_MIN: '100000',
      RATELIMIT_PORTAL_PER_MIN: '100000',
      RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '100000',
      RATELIMIT_SIGNIN_EMAIL_PER_MIN: '100000',
    },
  });
  api = publisherApi(deps).callback();
  portal = portalApp(deps, { webDir });
  // The worker renders and sends the notification mail jobs (files in MAIL_DIR).
  worker = createWorker({
    db: deps.db.connection.db!,
    logger: deps.logger,
    config: deps.config,
    data: deps.data,
    processEveryMs: 100,
    weeklySummariesMs: 3_600_000,
  });
  await worker.start();
  key = deps.demo!.publishers[0]!.keys.live;
  otherKey = deps.demo!.publishers[1]!.keys.live;
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  if (portal) await mailSettled(portal);
  await deps?.close();
  rmSync(mailDir, { recursive: true, force: true });
  rmSync(webDir, { recursive: true, force: true });
});

let addresses = 0;
/** A signed-in portal browser (its cookie jar, the portal's Origin and, once signed in, the CSRF token). */
async function signedIn(login: { email: string; password: string }) {
  const agent = request.agent(portal.callback());
  const origin = new URL(deps.config.portalUrl).origin;
  const ip = `198.51.100.${++addresses}`;
  const res = await agent.post('/portal/api/signin').set('Origin', origin).set('X-Forwarded-For', ip).send(login);
  expect(res.status, res.text).toBe(200);
  const csrf = res.body.csrf_token as string;
  return {
    get: (path: string) => agent.get(`/portal/api${path}`).set('X-Forwarded-For', ip),
    post: (path: string, body?: object) =>
      agent
        .post(`/portal/api${path}`)
        .set('Origin', origin)
        .set('X-Forwarded-For', ip)
        .set('X-CSRF-Token', csrf)
        .send(body ?? {}),
  };
}

/** Binary answers as bytes. */
const binary = (res: request.Response, cb: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
};

async function pdfTextOf(bytes: Buffer): Promise<string> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
  let text = '';
  for (let i = 1; i <= pdf.numPages; i++)
    text += (await (await pdf.getPage(i)).getTextContent()).items.map((it) => ('str' in it ? `${it.str}${it.hasEOL ? '\n' : ' '}` : '')).join('');
  await pdf.destroy();
  return text;
}

describe('a payout before it is paid', () => {
  it('has no statement: 404 statement_not_issued, and the payout says statement null', async () => {
    const requested = await request(api).post(`${API}/payouts/`).set('X-API-Key', key).send({});
    expect(requested.status, requested.text).toBe(201);
    payoutId = requested.body.id;
    expect(requested.body.statement).toBeNull();
    const res = await request(api).get(`${API}/payouts/${payoutId}/statement/`).set('X-API-Key', key);
    expectErrorShape(res, 404, 'statement_not_issued');
    expect(res.body.detail).toContain('issued when the payout is paid');
  });
});

describe('a paid payout', () => {
  let number: string;
  let amount: string;

  it('gets its statement when the sandbox bank pays it, named by the payout', async () => {
    const runId = (await deps.models.Payout.findById(payoutId).lean())!.run_id;
    const operator = await signedIn(deps.demo!.fixtures.operator_login);
    const approved = await operator.post(`/operator/payout-runs/${runId}/approve`);
    expect(approved.status, approved.text).toBe(200);
    const settled = await operator.post(`/operator/payout-runs/${runId}/settle`, { sandbox: true });
    expect(settled.status, settled.text).toBe(200);
    expect(settled.body).toMatchObject({ paid: 1, failed: 0 });

    const payout = await request(api).get(`${API}/payouts/${payoutId}/`).set('X-API-Key', key);
    expect(payout.body.status).toBe('paid');
    expect(payout.body.statement).toEqual({ number: expect.stringMatching(/^\d{4}-\d{6}$/) });
    number = payout.body.statement.number;
    amount = payout.body.amount;
    expect(number).toBe(`${new Date(payout.body.paid_at).getUTCFullYear()}-000001`);
    // Settling again issues nothing more.
    expect((await operator.post(`/operator/payout-runs/${runId}/settle`, { sandbox: true })).body).toMatchObject({ paid: 0 });
    expect(await deps.models.Statement.countDocuments({ payout_id: payoutId })).toBe(1);
  });

  it('serves the statement as a PDF by default, its text naming the number, the amount and both parties', async () => {
    const res = await request(api).get(`${API}/payouts/${payoutId}/statement/`).set('X-API-Key', key).buffer(true).parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="statement-${number}.pdf"`);
    const bytes = res.body as Buffer;
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfTextOf(bytes);
    expect(text).toContain(number);
    expect(text).toContain(`${amount} EUR`);
    expect(text).toContain(deps.config.payouts.network.legalName);
    expect(text).toContain('Self-billing statement');
  });

  it('serves the same statement as JSON with Accept: application/json: the snapshot stored with it', async () => {
    const res = await request(api).get(`${API}/payouts/${payoutId}/statement/`).set('X-API-Key', key).set('Accept', 'application/json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const stored = await deps.models.Statement.findOne({ payout_id: payoutId }).lean();
    expect(res.body).toEqual(stored!.snapshot);
    expect(res.body).toMatchObject({
      number,
      document: 'self_billing_statement',
      payout: { id: payoutId, amount, currency: 'EUR', method: { type: 'iban', last4: expect.any(String) } },
      total: { amount, currency: 'EUR' },
      supplier: { account_id: deps.demo!.publishers[0]!.account_id, tax_profile: false },
      vat: { treatment: 'undetermined' },
    });
    // Every currency's lines and what they do not explain add up to what was paid.
    expect(res.body.currencies.length).toBeGreaterThan(0);
  });

  it("is 404 not_found with another account's key, like an unknown payout", async () => {
    expectErrorShape(await request(api).get(`${API}/payouts/${payoutId}/statement/`).set('X-API-Key', otherKey), 404, 'not_found');
    expectErrorShape(await request(api).get(`${API}/payouts/po_000000000000000000000000/statement/`).set('X-API-Key', key), 404, 'not_found');
  });

  it("downloads from the portal's payments for the account's owner; another account's owner gets 404", async () => {
    const acc = deps.demo!.publishers[0]!.account_id;
    const owner = await signedIn(deps.demo!.publishers[0]!.portal_login);
    const res = await owner.get(`/accounts/${acc}/payouts/${payoutId}/statement`).buffer(true).parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toContain(`statement-${number}.pdf`);
    expect((res.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');
    const other = await signedIn(deps.demo!.publishers[1]!.portal_login);
    expectErrorShape(await other.get(`/accounts/${acc}/payouts/${payoutId}/statement`), 404);
    const otherAcc = deps.demo!.publishers[1]!.account_id;
    expectErrorShape(await other.get(`/accounts/${otherAcc}/payouts/${payoutId}/statement`), 404, 'not_found');
  });

  it('is attached to the "payout paid" mail in the local mail folder', async () => {
    await mailSettled(portal);
    const owner = deps.demo!.publishers[0]!.portal_login.email;
    // The worker's mail job renders it (the statement loaded by reference) and writes it.
    const mail = await until(
      () =>
        readdirSync(mailDir)
          .filter((f) => f.endsWith('.eml'))
          .map((f) => readFileSync(join(mailDir, f), 'utf8'))
          .find((m) => m.includes(`Payout ${payoutId} paid`) && m.includes(owner)),
      30_000,
    );
    expect(mail).toMatch(/Content-Type: application\/pdf; name=statement-\d{4}-\d{6}\.pdf/);
    expect(mail).toContain(`filename=statement-${number}.pdf`);
    const part = mail.split(`filename=statement-${number}.pdf`)[1]!;
    const b64 = part
      .split(/\r?\n\r?\n/)[1]!
      .split(/\r?\n--/)[0]!
      .replace(/\s+/g, '');
    const pdf = Buffer.from(b64, 'base64');
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(await pdfTextOf(pdf)).toContain(number);
  });
});
