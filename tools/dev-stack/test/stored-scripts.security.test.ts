/**
 * Stored scripts (XSS) in a real headless Chromium on the local platform: classic payloads (a
 * script element, an img onerror, `"><svg onload>`, `javascript:` URLs, template literals and
 * attribute-breaking strings) put through the portal's API and the OAuth registration into every
 * field a person or an app can store that another page shows, then every page that shows them
 * opened. Held: the field refused the value (4xx), or every page showed it as text, no payload ran
 * (`__xss`, a dialog), the page's CSP reported nothing, and the page holds no `on*` attribute,
 * `javascript:` URL, inline script or frame. OWASP ASVS 4.0.3 V5.3.3, V14.4.3.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { freePort } from '@cw-tools/testing';
import { startPlatform, type Platform } from './support/test-platform';
import { CHROMIUM_ARGS, chromiumPath, mailedLink, portalEnv, settle, signIn, uniqueEmail, type PortalEnv } from '../src/portal-journeys';
import { connectAppJourney } from '../src/oauth-journeys';
import { apiSignIn, emailPayloads, inspect, textPayloads, urlPayloads, watch, type ApiSession, type PageGlobals, type Watch } from './support/stored-scripts';

let platform: Platform;
let env: PortalEnv;
let browser: Browser;
let mailDir: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  const problem = inject('chromiumProblem');
  if (problem) throw new Error(problem);
  mailDir = mkdtempSync(join(tmpdir(), 'stored-scripts-mail-'));
  // A real port: the OAuth issuer (the portal URL) carries it.
  const port = String(await freePort());
  platform = await startPlatform({
    env: {
      PORT: port,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      RATELIMIT_IP_PER_MIN: '1000000',
      RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '1000000',
      RATELIMIT_SIGNIN_EMAIL_PER_MIN: '1000000',
      RATELIMIT_PORTAL_PER_MIN: '1000000',
      RATELIMIT_POSTBACKS_PER_MIN: '1000000',
      RATELIMIT_OAUTH_REGISTER_PER_MIN: '1000000',
      RATELIMIT_MONETIZE_PER_MIN: '1000000',
      RATELIMIT_LINKS_PER_MIN: '1000000',
      RATELIMIT_PROGRAMS_PER_MIN: '1000000',
    },
    seedProducts: 50,
    credentialsPath: null,
    mailDir,
  });
  env = portalEnv(platform, mailDir);
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}, 120_000);

afterAll(async () => {
  const held = stored.filter(isHeld).length;
  const fields = new Map<string, { tried: number; refused: number; stored: number; shown: number }>();
  for (const s of stored) {
    const f = fields.get(s.field) ?? { tried: 0, refused: 0, stored: 0, shown: 0 };
    f.tried++;
    if (accepted(s)) f.stored++;
    else f.refused++;
    if (s.seen) f.shown++;
    fields.set(s.field, f);
  }
  for (const [field, f] of fields) console.log(`  ${field}: ${f.tried} payloads, ${f.refused} refused, ${f.stored} stored, ${f.shown} shown as text`);
  const errors = new Set(viewers.flatMap((v) => v.watch.pageErrors));
  if (errors.size) console.log(`  page errors (not scripts run): ${[...errors].join(' | ').slice(0, 500)}`);
  console.log(`stored scripts: ${stored.length} payloads stored or refused, ${pagesVisited.length} pages visited`);
  console.log(`security: ${stored.length} attacks tried, ${held} held`);
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await platform?.stop();
  if (mailDir) rmSync(mailDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------

/** One payload put into one field: refused (4xx), or stored and then looked for on the pages that show it. */
interface Stored {
  field: string;
  payload: string;
  status: number;
  /** Pages it was live on when they were opened, and what each found. */
  pages: string[];
  findings: string[];
  /** Whether a page showed it as text (it reached a page at all). */
  seen: boolean;
}
const stored: Stored[] = [];
const pagesVisited: string[] = [];
const accepted = (s: Stored) => s.status >= 200 && s.status < 300;
/** Refused as bad input, or stored and harmless everywhere it showed (a 5xx is no refusal). */
const isHeld = (s: Stored) => (s.status >= 400 && s.status < 500) || (accepted(s) && !s.findings.length);

function store(field: string, payload: string, res: { status: number; body?: unknown }): Stored {
  const s: Stored = { field, payload, status: res.status, pages: [], findings: [], seen: false };
  if (res.status >= 500 || (res.status >= 300 && res.status < 400)) s.findings.push(`answered ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`);
  stored.push(s);
  return s;
}

interface Viewer {
  name: string;
  page: Page;
  watch: Watch;
}

const viewers: Viewer[] = [];
async function viewer(name: string): Promise<Viewer> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  const w = await watch(context);
  const v = { name, page: await context.newPage(), watch: w };
  viewers.push(v);
  return v;
}

/** Looks at the page `v` is on now, for the payloads live there. */
async function look(v: Viewer, label: string, live: Stored[]): Promise<void> {
  const before = { dialogs: v.watch.dialogs.length, csp: v.watch.cspConsole.length };
  const f = await inspect(v.page);
  const problems = [
    ...f.ran.map((t) => `ran ${t}`),
    ...f.csp.map((c) => `CSP report: ${c}`),
    ...f.dom.map((d) => `element: ${d}`),
    ...v.watch.dialogs.slice(before.dialogs).map((d) => `dialog ${d}`),
    ...v.watch.cspConsole.slice(before.csp).map((c) => `CSP console: ${c}`),
  ];
  pagesVisited.push(`${v.name} ${label}`);
  const text = f.text.toLowerCase();
  for (const s of live.filter(accepted)) {
    s.pages.push(label);
    if (text.includes(s.payload.toLowerCase())) s.seen = true;
    for (const p of problems) s.findings.push(`${v.name} ${label}: ${p}`);
  }
  if (problems.length && !live.length) stored.push({ field: `page ${label}`, payload: '', status: 200, pages: [label], findings: problems, seen: false });
}

/** Opens `path` as `v` (settled: its h1 and nothing loading) and looks at it. */
async function visit(v: Viewer, path: string, live: Stored[]): Promise<void> {
  await v.page.goto(`${env.url}${path}`);
  await settle(v.page);
  await look(v, new URL(path, env.url).pathname, live);
}

const owner = () => env.credentials.publishers[0]!.portal_login;
const ACC = () => env.credentials.publishers[0]!.account_id;
const operatorLogin = () => env.credentials.fixtures.operator_login;
const PASSWORD = 'a long enough passphrase';

let ownerApi: ApiSession;
let ownerView: Viewer;
let operatorView: Viewer;
let anonymous: Viewer;

async function people(): Promise<void> {
  if (ownerView) return;
  ownerApi = await apiSignIn(env.url, owner());
  ownerView = await viewer('owner');
  await signIn(ownerView.page, env, owner());
  operatorView = await viewer('operator');
  await signIn(operatorView.page, env, operatorLogin());
  anonymous = await viewer('anonymous');
}

/** Every accepted payload of `field` reached a page as text, and nothing of any payload ran anywhere. */
function expectHeld(fields: string[], literal: string[] = fields): void {
  const mine = stored.filter((s) => fields.some((f) => s.field.startsWith(f)));
  expect(mine.length).toBeGreaterThan(0);
  expect(mine.filter((s) => !isHeld(s)).map((s) => ({ field: s.field, payload: s.payload, findings: s.findings.slice(0, 5) }))).toEqual([]);
  const unseen = mine.filter((s) => accepted(s) && literal.some((f) => s.field.startsWith(f)) && !s.seen);
  expect(
    unseen.map((s) => `${s.field}: ${s.payload} (pages ${s.pages.join(', ')})`),
    'each accepted payload was shown, as text, on a page',
  ).toEqual([]);
}

// ---------------------------------------------------------------------------------------------

describe('stored scripts in the portal’s pages (a real browser)', () => {
  it('sees a payload that reaches a page: the control that the watch is not blind', async () => {
    const v = await viewer('control');
    await v.page.goto(`${env.url}/signin`);
    await settle(v.page);
    // Markup put into the page as a broken template would: CSP blocks its handler and reports it.
    // (Each function runs in the page: it names the page's globals itself.)
    await v.page.evaluate(() =>
      (globalThis as unknown as PageGlobals).document.body.insertAdjacentHTML('beforeend', `<img src="/x.png" onerror="__xss('control')">`),
    );
    await v.page.waitForFunction(() => (globalThis as unknown as PageGlobals).__csp.length > 0, undefined, { timeout: 15_000 });
    await v.page.evaluate(() => (globalThis as unknown as PageGlobals).__xss('control-ran'));
    await v.page.evaluate(() => setTimeout(() => (globalThis as unknown as PageGlobals).alert('control'), 0));
    const f = await inspect(v.page);
    expect(f.dom.join()).toContain('onerror');
    expect(f.csp.join()).toMatch(/script-src/);
    expect(f.ran).toContain('control-ran');
    await expect.poll(() => v.watch.dialogs).toContain('alert: control');
  }, 60_000);

  it('account name, website and postback URL, one payload after another: Account, Dashboard, Postback and the invitation page', async () => {
    await people();
    const names = textPayloads('acct');
    // The invitation mail names the account: plain text only, so no mail client renders its markup.
    const named = await ownerApi.call('PATCH', `/accounts/${ACC()}`, { name: names[0] });
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    const invite = await ownerApi.call('POST', `/accounts/${ACC()}/invitations`, { email: uniqueEmail('invited'), role: 'analyst' });
    expect(invite.status, JSON.stringify(invite.body)).toBe(201);
    const { link, mail } = await mailedLink(env, String(invite.body.email), '/invitations/accept');
    const raw = readFileSync(mail.file, 'utf8');
    const inMail = store('invitation mail (the account name)', names[0]!, { status: 201 });
    if (/^Content-Type:\s*text\/html/im.test(raw)) inMail.findings.push('the invitation mail has an HTML part');
    if (mail.text.includes(names[0]!)) inMail.seen = true;
    const invitationPage = new URL(link).pathname + new URL(link).search;
    const websites = urlPayloads('site');
    const postbacks = urlPayloads('pb', '93.184.215.14');
    for (let i = 0; i < Math.max(names.length, websites.length); i++) {
      const name = store('account name', names[i % names.length]!, await ownerApi.call('PATCH', `/accounts/${ACC()}`, { name: names[i % names.length] }));
      const site = store(
        'account website',
        websites[i % websites.length]!,
        await ownerApi.call('PATCH', `/accounts/${ACC()}`, { website: websites[i % websites.length] }),
      );
      const pb = store(
        'postback URL',
        postbacks[i % postbacks.length]!,
        await ownerApi.call('PUT', `/accounts/${ACC()}/postback`, { url: postbacks[i % postbacks.length], http_method: 'POST' }),
      );
      await visit(ownerView, '/settings/account', [name, site]);
      await visit(ownerView, '/dashboard', [name]);
      await visit(ownerView, '/settings/postback', [name, pb]);
      await visit(anonymous, invitationPage, [name]);
    }
    // The last name stays: every other page of the person shows it in the sidebar.
    const last = stored.filter((x) => x.field === 'account name').at(-1)!;
    for (const path of ['/products', '/programs', '/links', '/conversions', '/clicks', '/payments', '/settings/keys', '/settings/apps'])
      await visit(ownerView, path, [last]);
    expectHeld(['account name', 'account website', 'postback URL', 'invitation mail'], ['account name', 'invitation mail']);
  }, 300_000);

  it('key labels, invitations, member names and session user agents: Keys, Team and Security', async () => {
    await people();
    const live: Stored[] = [];
    for (const label of textPayloads('key'))
      live.push(store('key label', label, await ownerApi.call('POST', `/accounts/${ACC()}/keys`, { type: 'api_key', key_kind: 'test', label })));
    for (const email of emailPayloads('inv'))
      live.push(store('invitation e-mail', email, await ownerApi.call('POST', `/accounts/${ACC()}/invitations`, { email, role: 'analyst' })));
    // People who join from an invitation, each naming themselves with a payload.
    for (const name of textPayloads('member')) {
      const email = uniqueEmail('member');
      const invited = await ownerApi.call('POST', `/accounts/${ACC()}/invitations`, { email, role: 'analyst' });
      expect(invited.status).toBe(201);
      const token = new URL((await mailedLink(env, email, '/invitations/accept')).link).searchParams.get('token')!;
      const res = await fetch(`${env.url}/portal/api/invitations/accept`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: env.url },
        body: JSON.stringify({ token, password: PASSWORD, name }),
      });
      live.push(store('member name', name, { status: res.status, body: await res.json() }));
    }
    // Sessions opened by browsers whose User-Agent is a payload (the Security page lists them).
    for (const ua of textPayloads('ua')) {
      const s = await apiSignIn(env.url, owner(), ua);
      live.push(store('session user agent', ua, { status: s.userId ? 200 : 500 }));
    }
    await visit(ownerView, '/settings/keys', live);
    await visit(ownerView, '/settings/team', live);
    await visit(ownerView, '/settings/security', live);
    await visit(operatorView, `/operations/keys?publisher=${ACC()}`, live);
    await visit(operatorView, '/operations/audit', live);
    expectHeld(['key label', 'invitation e-mail', 'member name', 'session user agent'], ['key label', 'member name']);
  }, 300_000);

  it("apps: a client's name and URIs on the consent page, in Settings, Apps and in the security log", async () => {
    await people();
    const live: Stored[] = [];
    for (const name of textPayloads('app')) {
      const s = store('OAuth client name', name, { status: 201 });
      live.push(s);
      try {
        await connectAppJourney(ownerView.page, env, null, name, async (at, page) => {
          if (at === 'oauth-consent') await look({ ...ownerView, page }, `consent of "${name}"`, [s]);
        });
      } catch (e) {
        s.findings.push(`the consent journey failed: ${(e as Error).message.slice(0, 200)}`);
      }
    }
    // A client whose other metadata are payloads: registered if the provider takes them, its consent page opened.
    for (const uri of urlPayloads('uri', 'app.example')) {
      const res = await fetch(`${env.url}/oauth/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          client_name: 'URI probe',
          client_uri: uri,
          logo_uri: uri,
          policy_uri: uri,
          tos_uri: uri,
          redirect_uris: ['http://127.0.0.1:9/callback', `http://127.0.0.1:9/callback?x=${uri}`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
      });
      const body = (await res.json()) as Record<string, unknown>;
      const s = store('OAuth client URIs', uri, { status: res.status, body });
      live.push(s);
      if (res.status !== 201) continue;
      for (const redirect of ['http://127.0.0.1:9/callback', `http://127.0.0.1:9/callback?x=${uri}`]) {
        await ownerView.page.goto(
          `${env.url}/oauth/authorize?${new URLSearchParams({
            client_id: String(body.client_id),
            response_type: 'code',
            redirect_uri: redirect,
            scope: 'affiliate:read',
            resource: `${env.credentials.portal_url}/api/v1/mcp`,
            code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
            code_challenge_method: 'S256',
            prompt: 'consent',
          })}`,
        );
        await ownerView.page.getByRole('heading', { level: 1, name: /^Allow / }).waitFor({ timeout: 15_000 });
        await look(ownerView, 'consent of the URI probe', [s]);
      }
    }
    await visit(ownerView, '/settings/apps', live);
    await visit(ownerView, '/settings/security', live);
    expectHeld(['OAuth client name', 'OAuth client URIs'], ['OAuth client name']);
  }, 300_000);

  it('merchants and programs an operator names: Programs, Links and the operator’s pages', async () => {
    await people();
    const operatorApi = await apiSignIn(env.url, operatorLogin());
    const live: Stored[] = [];
    const merchantId = 990_001;
    const merchantName = textPayloads('merchant')[2]!;
    live.push(
      store(
        'merchant name',
        merchantName,
        await operatorApi.call('POST', '/operator/merchants', { id: merchantId, name: merchantName, domains: ['shop.example'] }),
      ),
    );
    const names = textPayloads('program');
    const landings = urlPayloads('landing', 'shop.example');
    const country = env.credentials.fixtures.country;
    const programs: number[] = [];
    for (let i = 0; i < names.length; i++) {
      const id = merchantId + i;
      const res = await operatorApi.call('POST', '/operator/programs', {
        id,
        merchant: merchantId,
        name: names[i],
        country,
        landing_url: landings[i % landings.length],
        commission: textPayloads(`terms${i}`)[i % 11],
        auto_approve: true,
        joinable: true,
      });
      live.push(store('program name, terms and landing URL', names[i]!, res));
      if (res.status === 201) programs.push(id);
    }
    // The publisher joins one and makes a link to it; links' sub-IDs are tried with payloads too.
    if (programs.length) {
      const joined = await ownerApi.call('POST', `/accounts/${ACC()}/programs/apply`, { program_id: programs[0] });
      expect(joined.status, JSON.stringify(joined.body)).toBeLessThan(300);
      for (const subid of textPayloads('subid'))
        live.push(store('link sub-ID', subid, await ownerApi.call('POST', `/accounts/${ACC()}/links`, { program_id: programs[0], subid })));
      const made = await ownerApi.call('POST', `/accounts/${ACC()}/links`, { program_id: programs[0], subid: 'plain-subid' });
      expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
    }
    await visit(ownerView, '/programs', live);
    await visit(ownerView, '/links', live);
    await visit(ownerView, '/products', live);
    await visit(operatorView, '/operations/programs', live);
    await visit(operatorView, '/operations/audit', live);
    expectHeld(['merchant name', 'program name', 'link sub-ID'], ['program name']);
  }, 300_000);

  it("sign-ups and instant-monetization claims: the claim page, the operator's queues, the new people's dashboards", async () => {
    await people();
    const live: Stored[] = [];
    const names = textPayloads('signup');
    const sites = urlPayloads('signup-site');
    const newcomers: Array<{ email: string; name: Stored }> = [];
    for (let i = 0; i < 3; i++) {
      const email = uniqueEmail('newcomer');
      const res = await fetch(`${env.url}/portal/api/signup`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: env.url },
        body: JSON.stringify({ email, password: PASSWORD, name: names[i * 3], account_name: names[i * 3 + 1], website: sites[i + 1] }),
      });
      const body = await res.json();
      const person = store('sign-up person name', names[i * 3]!, { status: res.status, body });
      live.push(
        person,
        store('sign-up account name', names[i * 3 + 1]!, { status: res.status, body }),
        store('sign-up website', sites[i + 1]!, { status: res.status, body }),
      );
      if (res.status !== 202) continue;
      const token = new URL((await mailedLink(env, email, '/verify-email')).link).searchParams.get('token')!;
      await fetch(`${env.url}/portal/api/verify-email`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: env.url },
        body: JSON.stringify({ token }),
      });
      newcomers.push({ email, name: person });
    }
    // Applications opened through the public API, their claim pages, and claims with payload profiles.
    for (const [i, description] of textPayloads('placement').slice(0, 4).entries()) {
      const res = await fetch(`${env.url}/api/v1/monetize/links/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ publisher_url: sites[(i % (sites.length - 1)) + 1], placement_description: `${description} gear list` }),
      });
      const app = (await res.json()) as { application_id: string; access_secret: string };
      const placement = store('application placement and URL', `${description} gear list`, { status: res.status, body: app });
      live.push(placement);
      if (res.status !== 201) continue;
      // The creator's tool names the application (its profile) through the same public API: the claim page shows it.
      const profileName = textPayloads('profile')[i]!;
      const profiled = await fetch(
        `${env.url}/api/v1/monetize/profile/${encodeURIComponent(app.application_id)}/?access_secret=${encodeURIComponent(app.access_secret)}`,
        {
          method: 'PATCH',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ display_name: profileName }),
        },
      );
      const profile = store('application display name (monetize API)', profileName, { status: profiled.status, body: await profiled.json() });
      live.push(profile);
      await visit(anonymous, `/claim?application=${encodeURIComponent(app.application_id)}&access_secret=${encodeURIComponent(app.access_secret)}`, [
        placement,
        profile,
      ]);
      const email = uniqueEmail('claimant');
      await fetch(`${env.url}/portal/api/signup`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: env.url },
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      const token = new URL((await mailedLink(env, email, '/verify-email')).link).searchParams.get('token')!;
      await fetch(`${env.url}/portal/api/verify-email`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: env.url },
        body: JSON.stringify({ token }),
      });
      const claimant = await apiSignIn(env.url, { email, password: PASSWORD });
      const displayName = textPayloads('claim')[i + 4]!;
      const claimed = await claimant.call('POST', '/claim', {
        application: app.application_id,
        access_secret: app.access_secret,
        display_name: displayName,
        website: sites[(i % (sites.length - 1)) + 1],
        channels: ['content'],
        country: 'DE',
      });
      live.push(store('claim display name', displayName, claimed));
      newcomers.push({ email, name: live.at(-1)! });
    }
    await visit(operatorView, '/operations/review', live);
    await visit(operatorView, '/operations/claims', live);
    await visit(operatorView, '/operations/audit', live);
    for (const n of newcomers) {
      const v = await viewer(`newcomer ${n.email}`);
      await signIn(v.page, env, { email: n.email, password: PASSWORD });
      await look(v, '/dashboard', live);
      await visit(v, '/settings/account', live);
      await visit(v, '/settings/team', live);
    }
    expectHeld(
      ['sign-up', 'application', 'claim display name'],
      ['sign-up person name', 'sign-up account name', 'application display name', 'claim display name'],
    );
  }, 300_000);
});
