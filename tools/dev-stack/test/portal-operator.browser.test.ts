/**
 * The portal's operator area in a real headless Chromium on the local platform (issue 48): a person
 * granted an operator role (operator:grant's use case) signs in as anyone does and gets the
 * Operations pages. An admin operator approves a pending publisher and revokes a key through the
 * pages, and the audit log names them (through the audit use case and on the audit page); a support
 * operator is refused an admin act with a message on the page; a person without a role gets 403
 * from the API and the "You are not an operator" page; axe-core finds nothing serious on any of them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { operatorIssueCredential } from '@cw/account';
import { auditLog } from '@cw/audit';
import type { OperatorPrincipal } from '@cw/auth';
import { connectDatabase, type Database } from '@cw/db';
import { createPerson, operatorGrantRole } from '@cw/people';
import { openPlatformData, type PlatformData } from '@cw/runtime';
import { axeViolations, serious } from '../src/axe-check';
import { startPlatform, type Platform } from './support/test-platform';
import { callMe, CHROMIUM_ARGS, chromiumPath, claimJourney, portalEnv, settle, signIn, uniqueEmail, type PortalEnv, type Person } from '../src/portal-journeys';

let platform: Platform;
let env: PortalEnv;
let browser: Browser;
let mailDir: string;
let db: Database;
let data: PlatformData;
const contexts: BrowserContext[] = [];

const ROOT: OperatorPrincipal = { type: 'operator', email: 'root@network.test', role: 'admin' };
const PASSWORD = 'operator area passphrase 48';
const admin: Person = { email: uniqueEmail('admin-operator'), password: PASSWORD };
const support: Person = { email: uniqueEmail('support-operator'), password: PASSWORD };
const PENDING = { _id: 'pub_op_pending_a', name: 'Pending Review Blog' };
const PENDING_SUPPORT = { _id: 'pub_op_pending_b', name: 'Second Pending Blog' };
let issued: { id: string; secret: string; prefix: string };

beforeAll(async () => {
  const problem = inject('chromiumProblem');
  if (problem) throw new Error(problem);
  mailDir = mkdtempSync(join(tmpdir(), 'portal-operator-mail-'));
  platform = await startPlatform({
    // Ten sign-ins and a sign-up from one address within a minute or two: the sign-in budgets
    // (20 per address, 5 per e-mail per minute) are the limiter's test, not this one's.
    env: {
      PORT: '0',
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      RATELIMIT_PORTAL_PER_MIN: '100000',
      RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '100000',
      RATELIMIT_SIGNIN_EMAIL_PER_MIN: '100000',
    },
    seedProducts: 50,
    credentialsPath: null,
    mailDir,
  });
  env = portalEnv(platform, mailDir);
  db = await connectDatabase(env.mongoUri);
  ({ data } = openPlatformData(db.connection));
  const deps = { config: platform.config, data };
  const home = env.credentials.publishers[0]!.account_id;
  for (const p of [admin, support]) await createPerson(deps, p, [{ accountId: home, role: 'analyst' }]);
  await operatorGrantRole(deps, ROOT, { email: admin.email, role: 'admin' });
  await operatorGrantRole(deps, ROOT, { email: support.email, role: 'support' });
  await data.auth.createPublishers([
    { ...PENDING, status: 'pending' },
    { ...PENDING_SUPPORT, status: 'pending' },
  ]);
  const c = await operatorIssueCredential(deps, ROOT, {
    publisher: env.credentials.publishers[1]!.account_id,
    type: 'api_key',
    kind: 'live',
    label: 'to revoke',
  });
  issued = { id: c.id, secret: c.secret, prefix: c.prefix };
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}, 180_000);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await db?.close();
  await platform?.stop();
  if (mailDir) rmSync(mailDir, { recursive: true, force: true });
});

async function signedIn(person: Person, options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  contexts.push(context);
  const page = await context.newPage();
  await signIn(page, env, person);
  return page;
}

const main = (page: Page) => page.getByRole('main');
const operations = (page: Page) => page.getByRole('navigation', { name: 'Operations' });

async function open(page: Page, link: RegExp, title: string): Promise<void> {
  await operations(page).getByRole('link', { name: link }).click();
  await main(page).getByRole('heading', { level: 1, name: title }).waitFor();
  await settle(page);
}

describe('an admin operator', () => {
  it('approves a pending publisher and revokes a key through the pages; the audit log names them', async () => {
    const page = await signedIn(admin);
    const session = (await (await page.request.get(`${env.url}/portal/api/session`)).json()) as { operator: unknown };
    expect(session.operator).toEqual({ role: 'admin' });

    // Review queue: approve with the keyboard-reachable button named after the account.
    await open(page, /^Review queue/, 'Review queue');
    const row = main(page).locator(`tr[data-account="${PENDING._id}"]`);
    await row.waitFor();
    await main(page)
      .getByRole('button', { name: `Approve ${PENDING.name}` })
      .click();
    await main(page)
      .getByRole('status')
      .filter({ hasText: `${PENDING.name} (${PENDING._id}) is now active.` })
      .waitFor();
    await row.waitFor({ state: 'detached' });
    expect((await data.auth.publisherById(PENDING._id))?.status).toBe('active');

    // A publisher's keys: revoke, confirmed in a dialog.
    await open(page, /^Publisher keys/, 'Publisher keys');
    expect((await callMe(env, issued.secret)).status).toBe(200);
    await main(page).getByLabel('Publisher account id').fill(env.credentials.publishers[1]!.account_id);
    await main(page).getByRole('button', { name: 'Show keys' }).click();
    await main(page).locator(`tr[data-credential="${issued.id}"]`).waitFor();
    await main(page)
      .getByRole('button', { name: `Revoke key ${issued.prefix}` })
      .click();
    const dialog = page.getByRole('dialog', { name: `Revoke key ${issued.prefix}…?` });
    await dialog.getByRole('button', { name: 'Yes, revoke the key' }).click();
    await main(page)
      .getByRole('status')
      .filter({ hasText: `Key ${issued.prefix}… is revoked.` })
      .waitFor();
    await expect.poll(async () => (await callMe(env, issued.secret)).status, { timeout: 10_000 }).toBe(401);

    // The audit log, through its use case: the operator, the account, the request and the hashed address.
    const log = await auditLog({ config: platform.config, data }, ROOT, { actor: admin.email });
    const reviewed = log.data.find((e) => e.action === 'publisher_reviewed');
    const revoked = log.data.find((e) => e.action === 'credential_revoked');
    expect(reviewed).toMatchObject({ account_id: PENDING._id, actor: { email: admin.email, operator_role: 'admin' }, detail: { decision: 'approve' } });
    expect(revoked).toMatchObject({
      account_id: env.credentials.publishers[1]!.account_id,
      actor: { email: admin.email, operator_role: 'admin' },
      detail: { credential_id: issued.id, prefix: issued.prefix },
    });
    for (const e of [reviewed!, revoked!]) {
      expect(e.request_id).toEqual(expect.any(String));
      expect(e.address_hash).toEqual(expect.any(String));
    }
    expect(JSON.stringify(log)).not.toContain(issued.secret);

    // And on the audit page, filtered by the actor.
    await open(page, /^Audit log/, 'Audit log');
    await main(page).getByLabel('Actor').fill(admin.email);
    await main(page).getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.get('actor') === admin.email);
    await main(page).locator('tr[data-action="credential_revoked"]').waitFor();
    const actions = await main(page)
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
    expect(actions).toEqual(expect.arrayContaining(['publisher_reviewed', 'credential_revoked']));
    expect(await main(page).locator('tr[data-action="publisher_reviewed"]').innerText()).toContain(PENDING._id);
  }, 120_000);

  it('creates a merchant on the Merchants and programs page; the table and the audit log show it', async () => {
    const page = await signedIn(admin);
    await open(page, /^Merchants and programs/, 'Merchants and programs');
    const form = main(page).getByRole('form', { name: 'Create a merchant' });
    await form.getByLabel('Merchant id').fill('880001');
    await form.getByLabel('Merchant name').fill('Browser Shop');
    await form.getByLabel('Shop domains').fill('browser-shop.example');
    await form.getByRole('button', { name: 'Create merchant' }).click();
    await main(page).getByRole('status').filter({ hasText: 'Merchant Browser Shop (880001) created.' }).waitFor();
    await main(page).locator('tr[data-merchant="880001"]').waitFor();
    const log = await auditLog({ config: platform.config, data }, ROOT, { actor: admin.email, action: 'merchant_created' });
    expect(log.data[0]).toMatchObject({ detail: { merchant_id: 880001, name: 'Browser Shop' }, actor: { operator_role: 'admin' } });
  }, 60_000);

  it('gets 400 and 404 from the operator API for what a client can get wrong, never 500', async () => {
    const page = await signedIn(admin);
    const bad = await page.request.get(`${env.url}/portal/api/operator/audit?action=no_such_act`);
    expect(bad.status()).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'invalid_parameter', request_id: expect.any(String) });
    expect((await page.request.get(`${env.url}/portal/api/operator/audit?cursor=nope`)).status()).toBe(400);
    expect((await page.request.get(`${env.url}/portal/api/operator/publishers?status=nope`)).status()).toBe(400);
    const unknown = await page.request.get(`${env.url}/portal/api/operator/publishers/pub_nobody/keys`);
    expect(unknown.status()).toBe(404);
    expect((await page.request.get(`${env.url}/portal/api/operator/publishers/pub_nobody/deliveries`)).status()).toBe(404);
  }, 60_000);
});

describe("the local platform's operator", () => {
  it('signs in with fixtures.operator_login (an admin operator of no account) and opens the operator area', async () => {
    const login = env.credentials.fixtures.operator_login;
    expect(login).toEqual({ email: expect.stringMatching(/^operator@/), password: expect.stringMatching(/^.{12,}$/) });
    const page = await signedIn(login);
    // Signed in on the dashboard, which has no account to show them: it leads to the operator area.
    await main(page).getByRole('link', { name: 'Go to the operator area' }).click();
    await main(page).getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
    await open(page, /^Audit log/, 'Audit log');
    await main(page).locator('tbody tr').first().waitFor();
    const session = (await (await page.request.get(`${env.url}/portal/api/session`)).json()) as { operator: unknown; accounts: unknown[] };
    expect(session).toMatchObject({ operator: { role: 'admin' }, accounts: [] });
  }, 60_000);
});

describe('claims', () => {
  it('approves one claimed application and rejects another (confirmed) through the Claims page, both audited', async () => {
    const claims = [];
    for (let i = 0; i < 2; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      contexts.push(context);
      claims.push(await claimJourney(await context.newPage(), env));
    }
    const [approve, reject] = claims.map((c) => c.application.application_id) as [string, string];
    const page = await signedIn(admin);
    await open(page, /^Claims/, 'Claims');
    await main(page)
      .getByRole('button', { name: `Approve claim ${approve}` })
      .click();
    await main(page)
      .getByRole('status')
      .filter({ hasText: `Application ${approve} is now approved` })
      .waitFor();
    await main(page)
      .getByRole('button', { name: `Reject claim ${reject}` })
      .click();
    await page
      .getByRole('dialog', { name: `Reject claim ${reject}?` })
      .getByRole('button', { name: 'Yes, reject the claim' })
      .click();
    await main(page)
      .getByRole('status')
      .filter({ hasText: `Application ${reject} is now rejected` })
      .waitFor();
    expect((await data.auth.publisherById(claims[0]!.claimed.account_id))?.status).toBe('active');

    const log = await auditLog({ config: platform.config, data }, ROOT, { actor: admin.email, action: 'application_reviewed' });
    expect(log.data.map((e) => [e.detail.application_id, e.detail.decision])).toEqual(
      expect.arrayContaining([
        [approve, 'approve'],
        [reject, 'reject'],
      ]),
    );
  }, 180_000);
});

describe('a support operator', () => {
  it('reads the queue but is refused approving, with the reason on the page', async () => {
    const page = await signedIn(support);
    await open(page, /^Review queue/, 'Review queue');
    await expect.poll(() => main(page).getByText('You are a support operator').count()).toBe(1);
    await main(page).locator(`tr[data-account="${PENDING_SUPPORT._id}"]`).waitFor();
    await main(page)
      .getByRole('button', { name: `Approve ${PENDING_SUPPORT.name}` })
      .click();
    const alert = main(page).getByRole('alert').filter({ hasText: 'Not available for your role' });
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/support.*needs admin/);
    expect((await data.auth.publisherById(PENDING_SUPPORT._id))?.status).toBe('pending');
    // The audit log is theirs to read.
    await open(page, /^Audit log/, 'Audit log');
    await main(page).locator('tbody tr').first().waitFor();
  }, 60_000);
});

describe('a person without an operator role', () => {
  it('gets 403 from the operator API, no Operations in the sidebar, and the not-an-operator page', async () => {
    const page = await signedIn(env.credentials.publishers[0]!.portal_login);
    const session = (await (await page.request.get(`${env.url}/portal/api/session`)).json()) as { operator: unknown };
    expect(session.operator).toBeNull();
    for (const path of ['/operator/audit', '/operator/publishers', '/operator/claims']) {
      const res = await page.request.get(`${env.url}/portal/api${path}`);
      expect(res.status(), path).toBe(403);
      expect(await res.json()).toMatchObject({ code: 'forbidden', request_id: expect.any(String) });
    }
    expect(await operations(page).count()).toBe(0);
    for (const path of ['/operations/review', '/operations/keys?publisher=x', '/operations/audit']) {
      await page.goto(`${env.url}${path}`);
      await main(page).getByRole('heading', { level: 1, name: 'You are not an operator' }).waitFor();
    }
    // Without a session at all: 401, as everywhere in the portal.
    const anonymous = await fetch(`${env.url}/portal/api/operator/audit`);
    expect(anonymous.status).toBe(401);
  }, 60_000);
});

describe('accessibility', () => {
  it('has no serious or critical axe-core violation on the operator pages', async () => {
    const page = await signedIn(admin, { bypassCSP: true });
    const other = env.credentials.publishers[0]!.account_id;
    const found: Record<string, unknown[]> = {};
    for (const path of [
      '/operations/review',
      '/operations/claims',
      '/operations/keys',
      `/operations/keys?publisher=${other}`,
      `/operations/dead-letters?publisher=${other}`,
      '/operations/audit',
      '/operations/audit?action=no_such_act',
      '/operations/programs',
    ]) {
      await page.goto(`${env.url}${path}`);
      await settle(page);
      found[path] = serious(await axeViolations(page));
    }
    const outsider = await signedIn(env.credentials.publishers[0]!.portal_login, { bypassCSP: true });
    await outsider.goto(`${env.url}/operations/audit`);
    await main(outsider).getByRole('heading', { level: 1, name: 'You are not an operator' }).waitFor();
    found['not an operator'] = serious(await axeViolations(outsider));
    expect(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length))).toEqual({});
  }, 120_000);
});
