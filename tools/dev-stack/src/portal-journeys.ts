/**
 * The publisher portal's user journeys, driven in a real browser as a person would: through the
 * pages' accessible roles and labels (docs/portal.md, apps/portal/web/README.md "Stable names").
 * Only what a person would not do in the portal goes around it: the operator's approval (the
 * account lib, as `npm run admin -- publisher:approve` does), the mail folder, a program calling
 * the API with a key, and a local postback receiver.
 *
 * Each journey returns what it saw; the browser test (tools/dev-stack/test/portal.browser.test.ts)
 * asserts on it, and `npm run screenshots` (screenshots.ts) runs the same journeys with `shoot`
 * saving a picture at the moments worth one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Locator, Page, Response } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { reviewPublisher } from '@cw/account';
import { loadBrowserTarget } from '@cw/config';
import { connectDatabase } from '@cw/db';
import { openPlatformData } from '@cw/runtime';
import type { CredentialsFile, Platform } from './platform';

/** Debian's Chromium (CHROMIUM_PATH to use another), headless, as every browser check here launches it. */
export const chromiumPath = (): string => loadBrowserTarget().chromiumPath;
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Called at the moments worth a screenshot, with the page the journey is on. */
export type Shoot = (name: string, page: Page) => Promise<void> | void;

export interface JourneyOptions {
  shoot?: Shoot;
}

/** The local platform as the journeys use it. */
export interface PortalEnv {
  /** Where the platform listens (http://127.0.0.1:port). */
  url: string;
  /** The folder the platform writes its mail to (.eml files). */
  mailDir: string;
  /** The platform's database: the operator's tools use it. */
  mongoUri: string;
  credentials: CredentialsFile;
}

export interface Person {
  email: string;
  password: string;
}

export function portalEnv(platform: Platform, mailDir: string): PortalEnv {
  if (!platform.credentials) throw new Error('the platform was not seeded: start it on an empty database');
  return { url: platform.url, mailDir, mongoUri: platform.mongoUri, credentials: platform.credentials };
}

/** A unique address for a person a journey creates (journeys may run more than once on one platform). */
export function uniqueEmail(who: string): string {
  return `${who}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@journeys.example`;
}

const STEP_MS = 15_000;

/** The page's main landmark. */
const main = (page: Page) => page.getByRole('main');

/** The page's h1, once it reads `name`. */
async function heading(page: Page, name: string | RegExp): Promise<void> {
  await main(page).getByRole('heading', { level: 1, name }).waitFor({ timeout: STEP_MS });
}

/**
 * Waits until the page has its h1 and nothing in it is loading any more (skeletons, "Confirming
 * your address…", the route's progress bar).
 */
export async function settle(page: Page): Promise<void> {
  await main(page).getByRole('heading', { level: 1 }).waitFor({ timeout: STEP_MS });
  await page.getByRole('status').filter({ hasText: 'Loading page' }).waitFor({ state: 'detached', timeout: STEP_MS });
  await main(page)
    .getByRole('status')
    .filter({ hasText: /Loading|Confirming|Sending/ })
    .first()
    .waitFor({ state: 'detached', timeout: STEP_MS });
}

async function scrollToTop(page: Page): Promise<void> {
  await page.locator('html').evaluate((html) => html.ownerDocument.defaultView.scrollTo(0, 0));
}

async function shot(opts: JourneyOptions, name: string, page: Page): Promise<void> {
  if (!opts.shoot) return;
  await settle(page);
  await opts.shoot(name, page);
}

/** A link of the sidebar ("Postback", "Keys", ...; each settings link also says "settings" to a screen reader). */
export async function openFromSidebar(page: Page, label: 'Dashboard' | 'Postback' | 'Keys' | 'Team' | 'Security' | 'Account'): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: label === 'Dashboard' ? 'Dashboard' : `${label} settings`, exact: true })
    .click();
  await heading(page, label);
  await settle(page);
}

// ---------------------------------------------------------------------------------------------
// Mail

export interface Mail {
  file: string;
  to: string;
  subject: string;
  text: string;
}

/** Quoted-printable (RFC 2045) as nodemailer writes text bodies. */
function decodeQuotedPrintable(s: string): string {
  const bytes = Buffer.from(s.replace(/=\r?\n/g, ''), 'latin1');
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    const hex = b === 0x3d ? bytes.subarray(i + 1, i + 3).toString('latin1') : '';
    if (/^[0-9A-F]{2}$/i.test(hex)) {
      out.push(parseInt(hex, 16));
      i += 2;
    } else out.push(b);
  }
  return Buffer.from(out).toString('utf8');
}

function readMail(file: string): Mail {
  const raw = readFileSync(file, 'utf8').replace(/\r\n/g, '\n');
  const split = raw.indexOf('\n\n');
  const head = raw.slice(0, split).replace(/\n[ \t]+/g, ' ');
  const body = raw.slice(split + 2);
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
  const text = /quoted-printable/i.test(header('Content-Transfer-Encoding'))
    ? decodeQuotedPrintable(body)
    : /base64/i.test(header('Content-Transfer-Encoding'))
      ? Buffer.from(body, 'base64').toString('utf8')
      : body;
  return { file, to: header('To'), subject: header('Subject'), text };
}

/**
 * The newest mail to `to` that carries a link to `path`, waiting for it to be written; the link
 * is returned on this platform's address (mail links use the configured portal URL, which with
 * PORT=0 is not where the platform listens).
 */
export async function mailedLink(env: PortalEnv, to: string, path: string, timeoutMs = 10_000): Promise<{ mail: Mail; link: string }> {
  const deadline = Date.now() + timeoutMs;
  const pattern = new RegExp(`https?://[^\\s/]+(${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\?[^\\s]+)`);
  for (;;) {
    let names: string[] = [];
    try {
      names = readdirSync(env.mailDir);
    } catch {
      // Not created until the first mail.
    }
    const safeTo = to.replace(/[^A-Za-z0-9@._+-]/g, '_');
    for (const name of names
      .filter((n) => n.endsWith(`-${safeTo}.eml`))
      .sort()
      .reverse()) {
      const mail = readMail(join(env.mailDir, name));
      const m = pattern.exec(mail.text);
      if (m) return { mail, link: `${env.url}${m[1]}` };
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${to} with a ${path} link in ${env.mailDir}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---------------------------------------------------------------------------------------------
// Sign-in, sign-up

/** The sign-in form: e-mail, password, "Sign in"; then wherever `next` pointed (the dashboard by default). */
export async function signIn(page: Page, env: PortalEnv, person: Person, opts: JourneyOptions & { goto?: boolean } = {}): Promise<void> {
  if (opts.goto !== false) await page.goto(`${env.url}/signin`);
  await heading(page, 'Sign in');
  await page.getByLabel('E-mail').fill(person.email);
  await shot(opts, 'signin', page);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname !== '/signin', { timeout: STEP_MS });
  await settle(page);
}

export interface SignUpInput extends Person {
  /** Absent: signing up to claim an application (the form then asks for no account of one's own). */
  accountName?: string;
  name?: string;
  website?: string;
}

/** The sign-up form, from wherever the page is (the /signup page, or a link that led there). */
async function fillSignUp(page: Page, input: SignUpInput, opts: JourneyOptions): Promise<void> {
  await heading(page, input.accountName === undefined ? 'Create your sign-in' : 'Create your account');
  await page.getByLabel('E-mail').fill(input.email);
  await page.getByLabel('Password').fill(input.password);
  if (input.accountName === undefined) {
    if (await page.getByLabel('Account name').count()) throw new Error('the sign-up to claim asks for an account of its own');
  } else await page.getByLabel('Account name').fill(input.accountName);
  if (input.name) await page.getByLabel('Your name').fill(input.name);
  if (input.website) await page.getByLabel('Website').fill(input.website);
  await shot(opts, 'signup', page);
  await page.getByRole('button', { name: 'Create account' }).click();
  await heading(page, 'Check your mail');
}

/** Opens the confirmation link of the newest sign-up mail; answers what the page said. */
async function confirmAddress(page: Page, env: PortalEnv, email: string, opts: JourneyOptions): Promise<{ mail: Mail; confirmed: string }> {
  const { mail, link } = await mailedLink(env, email, '/verify-email');
  await page.goto(link);
  await heading(page, 'Address confirmed');
  await shot(opts, 'verify-email', page);
  return { mail, confirmed: await main(page).innerText() };
}

/** The accounts of the signed-in person, as the portal's session says (what an operator would look up). */
export async function sessionAccounts(page: Page, env: PortalEnv): Promise<Array<{ account_id: string; name: string; role: string; status: string }>> {
  const res = await page.request.get(`${env.url}/portal/api/session`);
  if (!res.ok()) throw new Error(`GET /portal/api/session answered ${res.status()}`);
  return ((await res.json()) as { accounts: Array<{ account_id: string; name: string; role: string; status: string }> }).accounts;
}

/** The operator approves an account signed up in the portal (what `npm run admin -- publisher:approve` does). */
export async function operatorApproves(env: PortalEnv, accountId: string): Promise<{ account_id: string; status: string }> {
  const db = await connectDatabase(env.mongoUri);
  try {
    return await reviewPublisher({ data: openPlatformData(db.connection).data }, accountId, 'approve');
  } finally {
    await db.close();
  }
}

/** The dashboard's status pill and review banner. */
export async function dashboardStatus(page: Page): Promise<{ text: string; underReview: boolean; active: boolean }> {
  await heading(page, 'Dashboard');
  await settle(page);
  const text = await main(page).innerText();
  return { text, underReview: /Your account is under review/.test(text), active: /\bActive\b/.test(text) && !/under review/i.test(text) };
}

export interface IssuedKey {
  secret: string;
  /** The credential's row in the table: prefix, type, label, created by, status. */
  row: string;
  panel: string;
}

/** Settings, Keys: issue a credential (an API key of `kind` by default), read its secret from the panel shown once. */
export async function issueKey(
  page: Page,
  env: PortalEnv,
  input: { label: string; kind?: string; password?: string },
  opts: JourneyOptions = {},
): Promise<IssuedKey> {
  if (!/\/settings\/keys$/.test(new URL(page.url()).pathname)) await openFromSidebar(page, 'Keys');
  await page.getByLabel('Type', { exact: true }).selectOption({ label: 'API key' });
  await page.getByLabel('Key kind', { exact: true }).selectOption({ label: input.kind ?? 'Live' });
  await page.getByLabel('Label').fill(input.label);
  await page.getByRole('button', { name: 'Issue key' }).click();
  await confirmPasswordIfAsked(page, main(page).getByRole('region', { name: /^New / }), input.password);
  const panel = main(page).getByRole('region', { name: /^New / });
  await panel.waitFor({ timeout: STEP_MS });
  const secret = (await panel.locator('code').innerText()).trim();
  const row = credentialRow(page, input.label);
  await row.waitFor({ timeout: STEP_MS });
  await shot(opts, 'keys', page);
  return { secret, row: await row.innerText(), panel: await panel.innerText() };
}

const credentialRow = (page: Page, label: string): Locator =>
  main(page).getByRole('region', { name: 'Table of credentials' }).getByRole('row').filter({ hasText: label });

/**
 * A sensitive change asks for the password again when it was not given in the last 10 minutes
 * (a fresh sign-in counts): answers the dialog when it appears instead of `done`.
 */
async function confirmPasswordIfAsked(page: Page, done: Locator, password: string | undefined): Promise<void> {
  const dialog = page.getByRole('dialog', { name: 'Confirm your password' });
  await done.or(dialog).first().waitFor({ timeout: STEP_MS });
  if (!(await dialog.isVisible())) return;
  if (!password) throw new Error('the portal asked for the password again and the journey was not given it');
  await dialog.getByLabel('Password').fill(password);
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await done.waitFor({ timeout: STEP_MS });
}

export interface SignUpJourney {
  email: string;
  accountId: string;
  checkMail: string;
  mail: Mail;
  confirmed: string;
  /** The dashboard before the approval. */
  before: { text: string; underReview: boolean };
  approval: { account_id: string; status: string };
  /** The dashboard after the approval and a reload. */
  after: { text: string; underReview: boolean; active: boolean };
  key: IssuedKey;
}

/**
 * Sign up -> the confirmation mail -> its link -> sign in -> the dashboard says "under review" ->
 * an operator approves -> reload -> a live key issued in Settings, Keys.
 */
export async function signUpJourney(page: Page, env: PortalEnv, opts: JourneyOptions & { person?: Partial<SignUpInput> } = {}): Promise<SignUpJourney> {
  const input: SignUpInput = {
    email: uniqueEmail('maya'),
    password: 'correct horse battery staple',
    accountName: 'Trail Notes',
    name: 'Maya Brandt',
    website: 'https://trail-notes.example/',
    ...opts.person,
  };
  await page.goto(`${env.url}/signup`);
  await fillSignUp(page, input, opts);
  const checkMail = await main(page).innerText();
  const { mail, confirmed } = await confirmAddress(page, env, input.email, opts);
  await main(page).getByRole('link', { name: 'Sign in' }).click();
  await signIn(page, env, input, { ...opts, goto: false });
  const before = await dashboardStatus(page);
  await shot(opts, 'dashboard-under-review', page);
  const accounts = await sessionAccounts(page, env);
  const accountId = accounts.find((a) => a.name === input.accountName)?.account_id;
  if (!accountId) throw new Error(`the session has no account named ${input.accountName}`);
  const approval = await operatorApproves(env, accountId);
  await page.reload();
  const after = await dashboardStatus(page);
  const key = await issueKey(
    page,
    env,
    { label: 'First key', kind: 'Live', password: input.password },
    { shoot: opts.shoot && ((n, p) => opts.shoot!(`${n}-first`, p)) },
  );
  return { email: input.email, accountId, checkMail, mail, confirmed, before, approval, after, key };
}

// ---------------------------------------------------------------------------------------------
// Claim

export interface ClaimJourney {
  application: { application_id: string; access_secret: string };
  /** The claim page before signing up. */
  preview: string;
  email: string;
  /** The claim page after signing in (the profile form). */
  form: string;
  /** What the portal answered the claim. */
  claimed: { account_id: string; status: string };
  dashboard: { text: string; underReview: boolean };
  /** The claimed account in the person's session. */
  account: { account_id: string; name: string; role: string; status: string } | undefined;
  /** Every account in the person's session. */
  accounts: Array<{ account_id: string; name: string; role: string; status: string }>;
}

/**
 * An instant-monetization application (opened with the API, as the creator's tool does) -> its
 * claim link -> sign up from there -> the mail -> sign in -> back on the claim -> the profile ->
 * "Claim account" -> the dashboard says "under review".
 */
export async function claimJourney(page: Page, env: PortalEnv, opts: JourneyOptions & { email?: string } = {}): Promise<ClaimJourney> {
  const res = await fetch(`${env.url}/api/v1/monetize/links/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ publisher_url: 'https://gear-diary.example/', placement_description: 'a packing list for alpine huts' }),
  });
  if (res.status !== 201) throw new Error(`POST /api/v1/monetize/links/ answered ${res.status}: ${await res.text()}`);
  const application = (await res.json()) as { application_id: string; access_secret: string };

  await page.goto(
    `${env.url}/claim?application=${encodeURIComponent(application.application_id)}&access_secret=${encodeURIComponent(application.access_secret)}`,
  );
  await heading(page, 'Claim your account');
  await settle(page);
  const preview = await main(page).innerText();
  await shot(opts, 'claim', page);

  const person: SignUpInput = { email: opts.email ?? uniqueEmail('jonas'), password: 'alpine huts all summer' };
  await main(page).getByRole('link', { name: 'Create an account' }).click();
  await fillSignUp(page, person, {});
  await confirmAddress(page, env, person.email, {});
  // The confirmation page remembers the claim: its "Sign in" leads back there.
  await main(page).getByRole('link', { name: 'Sign in' }).click();
  await signIn(page, env, person, { goto: false });
  await heading(page, 'Claim your account');
  await main(page).getByRole('heading', { name: 'Your profile' }).waitFor({ timeout: STEP_MS });
  await page.getByLabel('Display name').fill('Gear Diary');
  await page.getByLabel('Website').fill('https://gear-diary.example/');
  await page.getByRole('checkbox', { name: 'Content' }).check();
  await page.getByLabel('Country').selectOption('AT');
  const form = await main(page).innerText();
  await shot(opts, 'claim-profile', page);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/portal/api/claim' && r.request().method() === 'POST', { timeout: STEP_MS }),
    page.getByRole('button', { name: 'Claim account' }).click(),
  ]);
  const claimed = (await answer.json()) as { account_id: string; status: string };
  await page.waitForURL((u) => u.pathname === '/dashboard', { timeout: STEP_MS });
  const dashboard = await dashboardStatus(page);
  await shot(opts, 'claim-under-review', page);
  const accounts = await sessionAccounts(page, env);
  const account = accounts.find((a) => a.account_id === claimed.account_id);
  return { application, preview, email: person.email, form, claimed, dashboard, account, accounts };
}

// ---------------------------------------------------------------------------------------------
// Postback

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** The requests that match, once there is one (within `timeoutMs`). */
  waitFor(match: (r: ReceivedRequest) => boolean, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A postback receiver on 127.0.0.1 that records every request and answers 204. */
export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiting: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(204).end();
      waiting.splice(0).forEach((w) => w());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async waitFor(match, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = requests.filter(match);
        if (found.length) return found;
        if (Date.now() > deadline) throw new Error('the receiver got no such request');
        await new Promise<void>((r) => {
          waiting.push(r);
          setTimeout(r, 100);
        });
      }
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * Verifies a delivery with the standardwebhooks package: this API's header names are
 * X-CW-Delivery / X-CW-Timestamp / X-CW-Signature (docs/postbacks.md), Standard Webhooks' are
 * webhook-id / webhook-timestamp / webhook-signature. POST signs the body, GET the full URL.
 */
export function verifyDelivery(secret: string, req: ReceivedRequest): { ok: true; event: unknown } | { ok: false; error: string } {
  const payload = req.method === 'GET' ? `http://${req.headers.host}${req.url}` : req.body;
  try {
    const event = new Webhook(secret).verify(payload, {
      'webhook-id': String(req.headers['x-cw-delivery'] ?? ''),
      'webhook-timestamp': String(req.headers['x-cw-timestamp'] ?? ''),
      'webhook-signature': String(req.headers['x-cw-signature'] ?? ''),
    });
    return { ok: true, event: req.method === 'GET' ? null : event };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

export interface PostbackJourney {
  receiverUrl: string;
  /** "Postback created." or "Postback saved." (then the secret was rotated to be seen). */
  saved: string;
  secret: string;
  /** Whether the secret came from the rotation (the postback existed already). */
  rotated: boolean;
  /** The delivery id the Test section shows. */
  deliveryId: string;
  /** What the receiver got with that delivery id. */
  received: ReceivedRequest[];
  verification: ReturnType<typeof verifyDelivery>;
  /** What the Test section showed. */
  testResult: string;
  /** The deliveries table's row of the test delivery. */
  deliveryRow: string;
}

/**
 * Settings, Postback: the receiver's URL, "Save postback", the secret shown once, "Send test
 * event" -> the receiver got one signed request (verified with the shown secret) -> the
 * deliveries table shows it. The page must be signed in as an owner or developer.
 */
export async function postbackJourney(
  page: Page,
  env: PortalEnv,
  receiver: Receiver,
  opts: JourneyOptions & { password?: string } = {},
): Promise<PostbackJourney> {
  await openFromSidebar(page, 'Postback');
  const targetUrl = `${receiver.url}/postback?subid={subid}&amount={commission}`;
  const field = page.getByLabel('Postback URL');
  await field.fill(targetUrl);
  const panel = main(page).getByRole('region', { name: /signing secret$/ });
  const saved = main(page).getByText(/^Postback (created|saved)\.$/);
  await page.getByRole('button', { name: 'Save postback' }).click();
  await confirmPasswordIfAsked(page, saved, opts.password);
  const savedText = await saved.innerText();
  let rotated = false;
  if (!(await panel.isVisible())) {
    // It existed already: its secret is not shown again, so rotate it to see one.
    rotated = true;
    await main(page).getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, rotate the secret' }).click();
    await confirmPasswordIfAsked(page, panel, opts.password);
  }
  await panel.waitFor({ timeout: STEP_MS });
  const secret = (await panel.locator('code').innerText()).trim();
  await shot(opts, 'postback-secret', page);
  await panel.getByRole('button', { name: 'I have copied it' }).click();

  await main(page).getByRole('button', { name: 'Send test event' }).click();
  const testSection = main(page).getByRole('region', { name: 'Test' });
  await testSection.getByText(/Your server (accepted|did not accept) the test event\.|No answer yet/).waitFor({ timeout: STEP_MS });
  // The delivery the page shows, as the receiver got it (other events may reach the same URL).
  const deliveryId = /\bdlv_[A-Za-z0-9_-]+/.exec(await testSection.innerText())?.[0];
  if (!deliveryId) throw new Error('the test result shows no delivery id');
  const received = await receiver.waitFor((r) => r.headers['x-cw-delivery'] === deliveryId);
  const row = main(page).getByRole('region', { name: 'Table of deliveries' }).getByRole('row').filter({ hasText: 'test' }).first();
  await row.waitFor({ timeout: STEP_MS });
  if (opts.shoot) {
    // The test's answer and the deliveries under it, then the top of the page (the URL, its macros, the preview).
    await testSection.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await shot(opts, 'postback-test', page);
    await scrollToTop(page);
    await shot(opts, 'postback', page);
  }
  return {
    receiverUrl: targetUrl,
    saved: savedText,
    secret,
    rotated,
    deliveryId,
    received,
    verification: verifyDelivery(secret, received[0]!),
    testResult: await testSection.innerText(),
    deliveryRow: await row.innerText(),
  };
}

// ---------------------------------------------------------------------------------------------
// Keys: issue, use, revoke

/** `GET {url}/api/v1/publisher/me/` with a key, as a publisher's program calls it. */
export async function callMe(env: PortalEnv, key: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${env.url}/api/v1/publisher/me/`, { headers: { 'X-API-Key': key } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export interface KeyJourney {
  issued: IssuedKey;
  /** The API with the new key, then with it revoked. */
  before: { status: number; body: Record<string, unknown> };
  after: { status: number; body: Record<string, unknown> };
  /** The key's row after the revocation. */
  revokedRow: string;
  /** The confirmation dialog's text. */
  dialog: string;
}

/**
 * Settings, Keys: issue a key (the secret shown once) -> the API answers 200 with it -> revoke it
 * in the portal -> the same request answers 401 at once. The page must be signed in (owner or developer).
 */
export async function keyJourney(page: Page, env: PortalEnv, opts: JourneyOptions & { password?: string; label?: string } = {}): Promise<KeyJourney> {
  await openFromSidebar(page, 'Keys');
  // Unique by default: the key's row is found by its label.
  const label = opts.label ?? `Production server ${Date.now().toString(36)}`;
  const issued = await issueKey(page, env, { label, kind: 'Live', password: opts.password }, opts);
  const before = await callMe(env, issued.secret);
  await main(page).getByRole('region', { name: /^New / }).getByRole('button', { name: 'I have copied it' }).click();
  const row = credentialRow(page, label);
  await row.getByRole('button', { name: /^Revoke / }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor({ timeout: STEP_MS });
  const dialogText = await dialog.innerText();
  await dialog.getByRole('button', { name: 'Yes, revoke the key' }).click();
  await confirmPasswordIfAsked(page, row.getByText('Revoked'), opts.password);
  await row.getByText('Revoked').waitFor({ timeout: STEP_MS });
  const after = await callMe(env, issued.secret);
  await shot(opts, 'keys-revoked', page);
  return { issued, before, after, revokedRow: await row.innerText(), dialog: dialogText };
}

// ---------------------------------------------------------------------------------------------
// Team: invite an analyst

export interface InviteJourney {
  email: string;
  sent: string;
  /** The invitations table's row. */
  pending: string;
  mail: Mail;
  /** The invitation page as the invited person sees it. */
  invitation: string;
  /** The analyst's Settings, Keys: the role message, and whether a table of keys is there. */
  keysAlert: string;
  keysTables: number;
  keysText: string;
  sidebarRole: string;
}

/**
 * Settings, Team: invite an analyst by e-mail -> the invitation mail -> its link opened in
 * another browser (`invitee`, a page of a new context) -> sign up from it -> the analyst's
 * Settings, Keys shows the role message, no table of keys. `owner` must be signed in as an owner.
 */
export async function inviteAnalystJourney(
  owner: Page,
  invitee: Page,
  env: PortalEnv,
  opts: JourneyOptions & { password?: string; email?: string } = {},
): Promise<InviteJourney> {
  const email = opts.email ?? uniqueEmail('lena');
  await openFromSidebar(owner, 'Team');
  await owner.getByLabel('E-mail').fill(email);
  await owner.getByLabel('Role', { exact: true }).selectOption('analyst');
  await owner.getByRole('button', { name: 'Invite' }).click();
  const sent = main(owner).getByText(`Invitation sent to ${email}.`);
  await confirmPasswordIfAsked(owner, sent, opts.password);
  const row = main(owner).getByRole('region', { name: 'Table of pending invitations' }).getByRole('row').filter({ hasText: email });
  await row.waitFor({ timeout: STEP_MS });
  await shot(opts, 'team', owner);

  const { mail, link } = await mailedLink(env, email, '/invitations/accept');
  await invitee.goto(link);
  await heading(invitee, /^Join /);
  await settle(invitee);
  const invitation = await main(invitee).innerText();
  await invitee.getByLabel('Your name').fill('Lena Vogel');
  await invitee.getByLabel('Password').fill('numbers every monday');
  await shot(opts, 'invitation', invitee);
  await invitee.getByRole('button', { name: 'Accept invitation' }).click();
  await invitee.waitForURL((u) => u.pathname === '/dashboard', { timeout: STEP_MS });
  await heading(invitee, 'Dashboard');
  const sidebarRole = await invitee
    .getByRole('banner')
    .getByText(/^Role: /)
    .innerText();
  await openFromSidebar(invitee, 'Keys');
  const alert = main(invitee).getByRole('alert').filter({ hasText: 'Not available for your role' });
  await alert.waitFor({ timeout: STEP_MS });
  await shot(opts, 'keys-analyst', invitee);
  return {
    email,
    sent: await sent.innerText(),
    pending: await row.innerText(),
    mail,
    invitation,
    keysAlert: await alert.innerText(),
    keysTables: await main(invitee).getByRole('table').count(),
    keysText: await main(invitee).innerText(),
    sidebarRole,
  };
}

// ---------------------------------------------------------------------------------------------
// The session cookie on the API

export interface CookieJourney {
  cookie: { name: string; httpOnly: boolean; sameSite: string } | null;
  /** The portal's own API with the cookie (it works there). */
  portal: number;
  /** `GET /api/v1/publisher/me/` with only the browser's cookie (the browser's own request, then a program's). */
  browserApi: { status: number; code: unknown };
  plainApi: { status: number; code: unknown };
}

/** The session cookie authenticates nothing on the API: `/api/v1/publisher/me/` with it answers 401. The page must be signed in. */
export async function sessionCookieJourney(page: Page, env: PortalEnv): Promise<CookieJourney> {
  const cookies = await page.context().cookies(env.url);
  const c = cookies.find((k) => k.name === 'cw_session' || k.name === '__Host-cw_session');
  const portal = (await page.request.get(`${env.url}/portal/api/session`)).status();
  const fromBrowser = await page.request.get(`${env.url}/api/v1/publisher/me/`);
  const plain = await fetch(`${env.url}/api/v1/publisher/me/`, { headers: c ? { Cookie: `${c.name}=${c.value}` } : {} });
  const code = async (r: { json(): Promise<unknown> }) => ((await r.json().catch(() => ({}))) as { code?: unknown }).code;
  return {
    cookie: c ? { name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite } : null,
    portal,
    browserApi: { status: fromBrowser.status(), code: await code(fromBrowser) },
    plainApi: { status: plain.status, code: await code(plain) },
  };
}

// ---------------------------------------------------------------------------------------------
// Another account's data never shows

export const SETTINGS_PAGES = ['Postback', 'Keys', 'Team', 'Security', 'Account'] as const;

export interface PageSeen {
  page: (typeof SETTINGS_PAGES)[number];
  text: string;
  /** The page's alerts (the not-found message). */
  alerts: string[];
}

export interface CrossAccountJourney {
  /** The remembered account set to the other one: the portal falls back to the person's own. */
  remembered: { sidebar: string; pages: PageSeen[] };
  /**
   * A client made to believe the person belongs to the other account (its session answer
   * rewritten in the browser): every call for it is refused, and each page says "Not found".
   */
  forged: { sidebar: string; pages: PageSeen[]; statuses: Array<{ url: string; status: number }> };
}

/** The account the portal remembers for this browser (localStorage `portal.account`, apps/portal/web/src/session.tsx). */
async function rememberAccount(page: Page, accountId: string | null): Promise<void> {
  // A function, not a string: the pages' CSP has no 'unsafe-eval'.
  await page.locator('html').evaluate((html, id) => {
    const storage = html.ownerDocument.defaultView.localStorage;
    if (id) storage.setItem('portal.account', id);
    else storage.removeItem('portal.account');
  }, accountId);
}

async function visitSettings(page: Page, env: PortalEnv, opts: JourneyOptions, name: string): Promise<PageSeen[]> {
  const seen: PageSeen[] = [];
  for (const p of SETTINGS_PAGES) {
    await page.goto(`${env.url}/settings/${p.toLowerCase()}`);
    await heading(page, p);
    await settle(page);
    const alerts = await main(page).getByRole('alert').filter({ hasText: /\S/ }).allInnerTexts();
    seen.push({ page: p, text: await main(page).innerText(), alerts });
    if (p === 'Keys') await shot(opts, name, page);
  }
  return seen;
}

/**
 * Signed in as one account's owner, the page pointed at `otherAccountId` the ways a browser can
 * be: the account the portal remembers (localStorage `portal.account`, apps/portal/web/src/session.tsx),
 * and a session answer rewritten to list that account. No settings page shows its data.
 */
export async function crossAccountJourney(page: Page, env: PortalEnv, otherAccountId: string, opts: JourneyOptions = {}): Promise<CrossAccountJourney> {
  const sidebarAccount = async () => (await page.getByRole('banner').innerText()).replace(/\s+/g, ' ');
  await rememberAccount(page, otherAccountId);
  const remembered = { sidebar: '', pages: await visitSettings(page, env, {}, 'remembered') };
  remembered.sidebar = await sidebarAccount();

  const statuses: Array<{ url: string; status: number }> = [];
  const onResponse = (r: Response) => {
    if (r.url().includes(`/portal/api/accounts/${otherAccountId}`)) statuses.push({ url: new URL(r.url()).pathname, status: r.status() });
  };
  page.on('response', onResponse);
  await page.route(`${env.url}/portal/api/session`, async (route) => {
    const res = await route.fetch();
    const session = (await res.json()) as { accounts: Array<{ account_id: string; name: string; role: string; status: string }> };
    session.accounts = [{ account_id: otherAccountId, name: 'Another account', role: 'owner', status: 'active' }, ...session.accounts];
    await route.fulfill({ response: res, json: session });
  });
  try {
    const pages = await visitSettings(page, env, opts, 'not-found');
    return { remembered, forged: { sidebar: await sidebarAccount(), pages, statuses } };
  } finally {
    page.off('response', onResponse);
    await page.unroute(`${env.url}/portal/api/session`);
    await rememberAccount(page, null);
  }
}

// ---------------------------------------------------------------------------------------------
// A walk through the signed-in pages (screenshots)

/** The dashboard and the settings pages the other journeys do not shoot, each once settled. */
export async function tourJourney(page: Page, opts: JourneyOptions = {}): Promise<void> {
  await openFromSidebar(page, 'Dashboard');
  await shot(opts, 'dashboard', page);
  for (const p of ['Security', 'Account'] as const) {
    await openFromSidebar(page, p);
    await shot(opts, p.toLowerCase(), page);
  }
}
