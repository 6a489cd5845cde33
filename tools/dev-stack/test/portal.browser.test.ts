/**
 * The publisher portal in a real headless Chromium (Debian's package) on the local platform: every
 * user journey of src/portal-journeys.ts end to end, axe-core on every page (no serious or
 * critical violation), and sign-in plus the postback settings with the keyboard only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axe from 'axe-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { startPlatform, type Platform } from './support/test-platform';
import {
  CHROMIUM_ARGS,
  chromiumPath,
  claimJourney,
  crossAccountJourney,
  inviteAnalystJourney,
  keyJourney,
  portalEnv,
  postbackJourney,
  sessionCookieJourney,
  settle,
  signIn,
  signUpJourney,
  startReceiver,
  verifyDelivery,
  type PortalEnv,
  type Receiver,
} from '../src/portal-journeys';

let platform: Platform;
let env: PortalEnv;
let browser: Browser;
let receiver: Receiver;
let mailDir: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  // The test environment (tools/testing/src/test-environment.ts) installs it when it can.
  const problem = inject('chromiumProblem');
  if (problem) throw new Error(problem);
  mailDir = mkdtempSync(join(tmpdir(), 'portal-browser-mail-'));
  platform = await startPlatform({ env: { PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'silent' }, seedProducts: 200, credentialsPath: null, mailDir });
  env = portalEnv(platform, mailDir);
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  receiver = await startReceiver();
}, 120_000);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await receiver?.close();
  await platform?.stop();
  if (mailDir) rmSync(mailDir, { recursive: true, force: true });
});

async function newPage(options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  contexts.push(context);
  return context.newPage();
}

/** publishers[0]'s owner, signed in once for the journeys that act as them. */
let ownerPage: Page | undefined;
async function owner(): Promise<Page> {
  if (!ownerPage) {
    const page = await newPage();
    await signIn(page, env, env.credentials.publishers[0]!.portal_login);
    ownerPage = page;
  }
  return ownerPage;
}
const ownerPassword = () => env.credentials.publishers[0]!.portal_login.password;

describe('portal journeys', () => {
  it('signs up, confirms the address from the mail, waits for review, and issues a live key once an operator approves', async () => {
    const r = await signUpJourney(await newPage(), env);
    expect(r.checkMail).toContain(r.email);
    expect(r.mail.subject).not.toBe('');
    expect(r.confirmed).toContain(`${r.email} is confirmed`);
    expect(r.before.underReview).toBe(true);
    expect(r.before.text).toContain('Under review');
    expect(r.approval).toEqual({ account_id: r.accountId, status: 'active' });
    expect(r.after.underReview).toBe(false);
    expect(r.after.active).toBe(true);
    expect(r.key.panel).toMatch(/^New API key\s+Copy it now/);
    expect(r.key.secret).toMatch(/^\S{20,}$/);
    expect(r.key.row).toMatch(/API key\s*Live/);
    expect(r.key.row).toContain(`by ${r.email}`);
    // The key works for the account it was issued for.
    const me = await fetch(`${env.url}/api/v1/publisher/me/`, { headers: { 'X-API-Key': r.key.secret } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ account_id: r.accountId, status: 'active' });
  }, 120_000);

  it('claims an instant-monetization application from its link: sign up there, confirm, sign in, complete the profile', async () => {
    const r = await claimJourney(await newPage(), env);
    expect(r.preview).toContain(r.application.application_id);
    expect(r.preview).toContain('Provisional');
    expect(r.form).toContain('Your profile');
    expect(r.dashboard.underReview).toBe(true);
    // The account keeps the application's name until the operator's approval names it after the profile.
    expect(r.dashboard.text).toContain('gear-diary.example');
    expect(r.claimed).toMatchObject({ account_id: expect.stringMatching(/^pub_mon_/), status: 'under_review' });
    // The person owns it now (its account record stays provisional until the operator approves it).
    expect(r.account).toMatchObject({ account_id: r.claimed.account_id, role: 'owner' });
    // Signed up to claim: the claimed account is the person's only one (no second, empty account was made).
    expect(r.accounts).toHaveLength(1);
  }, 120_000);

  it('configures a postback in Settings, Postback and receives the signed test event at a local receiver', async () => {
    const r = await postbackJourney(await owner(), env, receiver, { password: ownerPassword() });
    expect(r.saved).toMatch(/^Postback (created|saved)\.$/);
    expect(r.secret).toMatch(/^whsec_/);
    expect(r.received).toHaveLength(1);
    const [req] = r.received;
    expect(req!.method).toBe('POST');
    expect(req!.url).toMatch(/^\/postback\?subid=/);
    expect(req!.headers['x-cw-delivery']).toBe(r.deliveryId);
    expect(req!.headers['x-cw-timestamp']).toMatch(/^\d+$/);
    expect(req!.headers['x-cw-signature']).toMatch(/^v1,/);
    expect(r.verification).toMatchObject({ ok: true, event: { type: 'sale.created', test: true } });
    expect(r.testResult).toContain('Your server accepted the test event.');
    expect(r.deliveryId).toMatch(/^dlv_/);
    expect(r.deliveryRow).toMatch(/^Succeeded\s+sale\.created\s*test\s+204\s+\d+ ms\s+1\s/);
    // The same check refuses a body changed on the way, and another secret.
    expect(verifyDelivery(r.secret, { ...req!, body: `${req!.body} ` }).ok).toBe(false);
    expect(verifyDelivery('whsec_' + Buffer.from('another secret of 32 bytes......').toString('base64'), req!).ok).toBe(false);
  }, 90_000);

  it('issues a key in Settings, Keys that the API accepts, and revoking it there refuses it at the next request', async () => {
    const r = await keyJourney(await owner(), env, { password: ownerPassword() });
    expect(r.issued.panel).toContain('Copy it now');
    expect(r.before.status).toBe(200);
    expect(r.before.body).toMatchObject({ account_id: env.credentials.publishers[0]!.account_id });
    expect(r.dialog).toContain('answers 401');
    expect(r.revokedRow).toContain('Revoked');
    expect(r.after.status).toBe(401);
  }, 90_000);

  it('invites an analyst by e-mail, who joins from the mail in another browser and is refused the keys', async () => {
    const r = await inviteAnalystJourney(await owner(), await newPage(), env, { password: ownerPassword() });
    expect(r.sent).toBe(`Invitation sent to ${r.email}.`);
    expect(r.pending).toContain('Analyst');
    expect(r.mail.to).toContain(r.email);
    expect(r.invitation).toContain('analyst');
    expect(r.invitation).toContain(r.email);
    expect(r.sidebarRole).toBe('Role: analyst');
    expect(r.keysAlert).toContain('Not available for your role');
    expect(r.keysTables).toBe(0);
    expect(r.keysText).not.toContain('Issue key');
  }, 90_000);

  it("authenticates nothing on the API with the browser's session cookie", async () => {
    const r = await sessionCookieJourney(await owner(), env);
    expect(r.cookie).toMatchObject({ name: 'cw_session', httpOnly: true, sameSite: 'Lax' });
    expect(r.portal).toBe(200);
    expect(r.browserApi.status).toBe(401);
    expect(r.plainApi.status).toBe(401);
  }, 60_000);

  it("never shows another account's data, whichever account the page is pointed at", async () => {
    const mine = env.credentials.publishers[0]!;
    const other = env.credentials.publishers[1]!;
    const names = async (key: string) =>
      ((await (await fetch(`${env.url}/api/v1/publisher/me/`, { headers: { 'X-API-Key': key } })).json()) as { name: string }).name;
    const [myName, otherName] = [await names(mine.keys.live), await names(other.keys.live)];
    expect(otherName).not.toBe(myName);
    const r = await crossAccountJourney(await owner(), env, other.account_id);
    // The remembered account is not one of the person's: the portal works in their own.
    expect(r.remembered.sidebar).toContain(myName);
    for (const p of [...r.remembered.pages, ...r.forged.pages]) {
      expect(p.text, p.page).not.toContain(otherName);
      expect(p.text, p.page).not.toContain(other.account_id);
    }
    // A client believing it belongs there: every call for that account is 404, each page says so.
    expect(r.forged.statuses.length).toBeGreaterThanOrEqual(5);
    expect(r.forged.statuses.filter((s) => s.status !== 404)).toEqual([]);
    for (const p of r.forged.pages) expect(p.alerts.join('\n'), p.page).toMatch(/Not found/);
  }, 90_000);
});

// ---------------------------------------------------------------------------------------------

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown; html: string; failureSummary?: string }>;
}

/** axe-core's violations on the page as it is now (the script added with the CSP bypassed). */
async function axeViolations(page: Page): Promise<Violation[]> {
  await page.addScriptTag({ content: axe.source });
  const result = await page.locator('html').evaluate((html) => html.ownerDocument.defaultView.axe.run(html.ownerDocument, { resultTypes: ['violations'] }));
  return (result as { violations: Violation[] }).violations;
}

const serious = (vs: Violation[]) =>
  vs
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, html: n.html.slice(0, 200) })) }));

/** Waits for the page's h1 and for nothing to be loading in it. */
async function settled(page: Page): Promise<void> {
  await page.getByRole('main').getByRole('heading', { level: 1 }).waitFor();
  await settle(page);
}

/** Where the keyboard focus is, and whether it is drawn (an outline, or the switch's track). */
async function focusRing(page: Page): Promise<{ what: string; focusVisible: boolean; drawn: boolean }> {
  // Functions, not strings, run in the page: its CSP has no 'unsafe-eval'.
  return page.locator('html').evaluate((html) => {
    const doc = html.ownerDocument;
    const el = doc.activeElement;
    if (!el || el === doc.body) return { what: 'body', focusVisible: false, drawn: false };
    const drawnOn = (e: typeof el) => {
      const s = doc.defaultView.getComputedStyle(e);
      return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || (!!s.boxShadow && s.boxShadow !== 'none');
    };
    const track = el.matches('.toggle input') ? el.nextElementSibling : null;
    const name: string = el.getAttribute('aria-label') || el.labels?.[0]?.textContent || el.textContent || '';
    return {
      what: `${el.tagName.toLowerCase()} ${name.trim().slice(0, 60)}`,
      focusVisible: !!el.matches(':focus-visible'),
      drawn: !!(drawnOn(el) || (track && drawnOn(track))),
    };
  });
}

/** Presses Tab (or Shift+Tab: backwards; only the keyboard) until `target` has the focus. */
async function tabTo(page: Page, target: Locator, max = 40, key: 'Tab' | 'Shift+Tab' = 'Tab'): Promise<number> {
  for (let i = 1; i <= max; i++) {
    await page.keyboard.press(key);
    if (await target.evaluate((el) => el === el.ownerDocument.activeElement)) return i;
  }
  throw new Error(`Tab never reached ${target}`);
}

describe('accessibility', () => {
  it('has no serious or critical axe-core violation on any page', async () => {
    // The pages' CSP (script-src 'self') blocks the injected axe script: this context bypasses it.
    const page = await newPage({ bypassCSP: true });
    const opened = await fetch(`${env.url}/api/v1/monetize/links/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ publisher_url: 'https://axe-check.example/', placement_description: 'an accessibility check' }),
    });
    expect(opened.status).toBe(201);
    const app = (await opened.json()) as { application_id: string; access_secret: string };
    const signedOut = [
      '/signin',
      '/signup',
      '/forgot-password',
      '/reset-password?token=x',
      '/verify-email?token=x',
      `/claim?application=${app.application_id}&access_secret=${encodeURIComponent(app.access_secret)}`,
      '/invitations/accept?token=x',
    ];
    const signedInPages = ['/dashboard', '/settings/postback', '/settings/keys', '/settings/team', '/settings/security', '/settings/account'];
    const found: Record<string, ReturnType<typeof serious>> = {};
    for (const path of signedOut) {
      await page.goto(`${env.url}${path}`);
      await settled(page);
      found[path] = serious(await axeViolations(page));
    }
    await signIn(page, env, env.credentials.publishers[0]!.portal_login);
    for (const path of signedInPages) {
      await page.goto(`${env.url}${path}`);
      await settled(page);
      expect(new URL(page.url()).pathname, 'still signed in').toBe(path);
      found[path] = serious(await axeViolations(page));
    }
    expect(Object.keys(found)).toHaveLength(signedOut.length + signedInPages.length);
    expect(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length))).toEqual({});
  }, 120_000);

  it('signs in and saves the postback settings with the keyboard only, the focus visible where it lands', async () => {
    const page = await newPage();
    const person = env.credentials.publishers[1]!.portal_login;
    await page.goto(`${env.url}/signin`);
    await settled(page);
    const rings: Array<Awaited<ReturnType<typeof focusRing>>> = [];
    const ring = async () => {
      const r = await focusRing(page);
      rings.push(r);
      return r;
    };

    await tabTo(page, page.getByLabel('E-mail'));
    expect(await ring()).toMatchObject({ focusVisible: true, drawn: true });
    await page.keyboard.type(person.email);
    await page.keyboard.press('Tab');
    expect(await ring()).toMatchObject({ what: 'input Password', focusVisible: true, drawn: true });
    await page.keyboard.type(person.password);
    await page.keyboard.press('Tab');
    expect(await ring()).toMatchObject({ what: 'button Sign in', focusVisible: true, drawn: true });
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === '/dashboard');
    await settled(page);
    // After a navigation the new page's h1 has the focus, its ring drawn for a keyboard user.
    expect(await ring()).toEqual({ what: 'h1 Dashboard', focusVisible: true, drawn: true });

    // The sidebar comes before the page: backwards from the h1, past the dashboard's controls.
    await tabTo(page, page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Postback settings' }), 40, 'Shift+Tab');
    expect(await ring()).toMatchObject({ what: 'a Postback settings', focusVisible: true, drawn: true });
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === '/settings/postback');
    await settled(page);
    expect(await ring()).toEqual({ what: 'h1 Postback', focusVisible: true, drawn: true });

    const url = `${receiver.url}/keyboard?subid={subid}`;
    await tabTo(page, page.getByLabel('Postback URL'));
    expect(await ring()).toMatchObject({ what: 'input Postback URL', focusVisible: true, drawn: true });
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(url);
    await page.keyboard.press('Enter');
    const done = page.getByRole('main').getByText(/^Postback (created|saved)\.$/);
    await done.waitFor();
    const created = (await done.innerText()) === 'Postback created.';
    if (created) {
      // The secret, shown once, takes the focus.
      await page.getByRole('main').getByRole('region', { name: 'Your signing secret' }).waitFor();
      expect(await ring()).toMatchObject({ what: expect.stringMatching(/^section /), focusVisible: true, drawn: true });
      await tabTo(page, page.getByRole('button', { name: 'I have copied it' }), 5);
      expect(await ring()).toMatchObject({ what: 'button I have copied it', focusVisible: true, drawn: true });
      await page.keyboard.press('Enter');
    }
    expect(await page.getByLabel('Postback URL').inputValue()).toBe(url);
    // Saved for real: a fresh load shows it.
    await page.reload();
    await settled(page);
    expect(await page.getByLabel('Postback URL').inputValue()).toBe(url);
    // Payout events are opt-in: offered unchecked beside the sale events, and kept once chosen.
    expect(await page.getByLabel('sale.created').isChecked()).toBe(true);
    expect(await page.getByLabel('payout.paid').isChecked()).toBe(false);
    await tabTo(page, page.getByLabel('payout.paid'), 60);
    await page.keyboard.press('Space');
    await tabTo(page, page.getByRole('button', { name: 'Save postback' }), 60);
    await page.keyboard.press('Enter');
    await page.getByRole('main').getByText('Postback saved.').waitFor();
    await page.reload();
    await settled(page);
    expect(await page.getByLabel('payout.paid').isChecked()).toBe(true);
    expect(await page.getByLabel('payout.failed').isChecked()).toBe(false);
    expect(rings.filter((r) => r.what.startsWith('body'))).toEqual([]);
  }, 90_000);
});
