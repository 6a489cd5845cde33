/**
 * Password guessing against the portal's sign-in (OWASP ASVS 4.0.3 V2.2.1: at most 100 failed
 * attempts an hour on one account, without letting anyone lock a known address out) and weak new
 * passwords (V2.1.7 breached passwords, NIST SP 800-63B context-specific words), through HTTP.
 *
 * The portal here runs on a clock the test moves (`createApp(deps, {clock})`), so guesses are
 * spread over minutes and hours without waiting; every budget is small so each attack reaches it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson } from '@cw/people';
import { expectErrorShape } from '@cw-tools/testing';
import { createApp } from '../src/app';
import { mailFiles, PORTAL_API, portalBrowser, startPortal, type PortalBrowser, type PortalHarness } from './support/portal-harness';

/** Failures one e-mail address may take in any hour, failures one client address may make, and a trusted device's. */
const ACCOUNT_BUDGET = 10;
const ADDRESS_BUDGET = 15;
const DEVICE_FAILURES = 3;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let portal: PortalHarness;
let http: PortalHarness['http'];
/** The portal's clock: ahead of the real one (sessions it opens last), moved by the tests. */
let now = Math.ceil(Date.now() / HOUR) * HOUR + HOUR;
let people = 0;

beforeAll(async () => {
  portal = await startPortal({
    SIGNIN_ACCOUNT_FAILURES: String(ACCOUNT_BUDGET),
    SIGNIN_ADDRESS_FAILURES: String(ADDRESS_BUDGET),
    SIGNIN_DEVICE_FAILURES: String(DEVICE_FAILURES),
  });
  http = createApp(portal.deps, { clock: () => new Date(now) }).callback();
}, 60_000);
afterAll(() => portal?.close());

const browser = () => portalBrowser({ http, origin: portal.origin });
const signInAs = (b: PortalBrowser, email: string, password: string) => b.post('/signin', { email, password });

/** A person with a confirmed address (the demo's owners are left to the other suites' habits). */
async function person(): Promise<{ email: string; password: string }> {
  const p = { email: `person${++people}@signin-guard.example`, password: `the right passphrase ${people}` };
  await createPerson(portal.deps, p, [{ accountId: portal.deps.demo!.publishers[1]!.account_id, role: 'analyst' }], new Date(now));
  return p;
}

/** Guesses from ever new client addresses (no address budget is spent twice), each with the one answer; counts the 401s. */
async function lockOut(email: string, guesses = ACCOUNT_BUDGET): Promise<void> {
  for (let i = 0; i < guesses; i++) {
    const res = await signInAs(browser(), email, `wrong guess ${i}`);
    expectErrorShape(res, 401, 'invalid_credentials');
    now += MINUTE;
  }
  const refused = await signInAs(browser(), email, 'one guess more');
  expectErrorShape(refused, 429, 'rate_limited');
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
}

/** The mails to `to`, waiting for one more than `seen` (mail may leave after the answer). */
async function nextMail(to: string, seen: number): Promise<string> {
  for (let i = 0; i < 100 && mailFiles(portal.mailDir, to).length <= seen; i++) await new Promise((r) => setTimeout(r, 50));
  const files = mailFiles(portal.mailDir, to);
  expect(files.length, `no new mail to ${to}`).toBeGreaterThan(seen);
  return readFileSync(join(portal.mailDir, files.at(-1)!), 'utf8')
    .replace(/=\r?\n/g, '')
    .replace(/=3D/g, '=');
}

const mailCount = (to: string) => (existsSync(portal.mailDir) ? readdirSync(portal.mailDir).filter((f) => f.endsWith(`${to}.eml`)).length : 0);

describe('guessing passwords at sign-in', () => {
  it(
    'refuses guesses at one e-mail address beyond the hourly budget however they are spread over minutes and window boundaries, known address or not',
    { timeout: 120_000 },
    async () => {
      const target = await person();
      const outcomes = async (email: string, start: number) => {
        const seen: Array<{ at: number; status: number }> = [];
        // One guess every three minutes for two and a half hours, each from a new client address: no per-minute or per-address limit is ever reached.
        for (let t = 0; t < 150 * MINUTE; t += 3 * MINUTE) {
          now = start + t;
          const res = await signInAs(browser(), email, `guess number ${t}`);
          expect([401, 429], JSON.stringify(res.body)).toContain(res.status);
          if (res.status === 401) expect(res.body.code).toBe('invalid_credentials');
          if (res.status === 429) {
            expect(res.body.code).toBe('rate_limited');
            expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
          }
          seen.push({ at: t, status: res.status });
        }
        return seen;
      };
      // From half way through an hour: the guesses straddle every window boundary there is.
      const hour = Math.ceil(now / HOUR) * HOUR;
      const known = await outcomes(target.email, hour + 30 * MINUTE);
      const failures = known.filter((o) => o.status === 401);
      // No hour, wherever it starts, holds more than the budget of failures...
      for (const first of failures) expect(failures.filter((o) => o.at >= first.at && o.at < first.at + HOUR).length).toBeLessThanOrEqual(ACCOUNT_BUDGET);
      // ...yet the address is not locked for good: guessing resumes once the hour has passed.
      expect(failures.length).toBeGreaterThan(ACCOUNT_BUDGET);
      // An address without an account answers exactly the same way (nothing tells which addresses exist).
      const unknown = await outcomes('nobody-here@signin-guard.example', hour + 4 * HOUR + 30 * MINUTE);
      expect(unknown.map((o) => o.status)).toEqual(known.map((o) => o.status));
      now += 3 * HOUR;
    },
  );

  it('refuses one client address guessing across many e-mail addresses beyond its budget, while other addresses still sign in', async () => {
    const sprayer = browser();
    const codes: number[] = [];
    for (let i = 0; i < ADDRESS_BUDGET + 3; i++) {
      codes.push((await signInAs(sprayer, `sprayed${i}@signin-guard.example`, 'password1234')).status);
      now += 2 * MINUTE;
    }
    expect(codes).toEqual([...Array<number>(ADDRESS_BUDGET).fill(401), 429, 429, 429]);
    const someone = await person();
    expect((await signInAs(browser(), someone.email, someone.password)).status).toBe(200);
    now += 3 * HOUR;
  });

  it(
    'takes the right password from a device that signed in before while an attacker has the address locked, and from no other device',
    { timeout: 60_000 },
    async () => {
      const victim = await person();
      const home = browser();
      await home.signIn(victim.email, victim.password);
      now += HOUR;
      await lockOut(victim.email);
      // A device that never signed in: the right password waits too (429, never a hint that it was right).
      const cafe = await signInAs(browser(), victim.email, victim.password);
      expectErrorShape(cafe, 429, 'rate_limited');
      expect(cafe.headers['retry-after']).toBeDefined();
      // The victim's own device signs in, and gives the password again for a sensitive change.
      const again = await signInAs(home, victim.email, victim.password);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      home.setCsrf(again.body.csrf_token);
      expect((await home.post('/reauth', { password: victim.password })).status).toBe(200);
      // The device cookie: httpOnly, SameSite=Strict, bound to its person (another person's sign-in from it is not trusted).
      const cookie = String((again.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('cw_device=')));
      expect(cookie).toMatch(/httponly/i);
      expect(cookie).toMatch(/samesite=strict/i);
      const other = await person();
      now += HOUR;
      await lockOut(other.email);
      expectErrorShape(await signInAs(home, other.email, other.password), 429, 'rate_limited');
      now += 3 * HOUR;
    },
  );

  it('takes a trusted device’s trust away after it gives wrong passwords too often', async () => {
    const victim = await person();
    const stolen = browser();
    await stolen.signIn(victim.email, victim.password);
    now += HOUR;
    await lockOut(victim.email);
    for (let i = 0; i < DEVICE_FAILURES; i++) expectErrorShape(await signInAs(stolen, victim.email, `device guess ${i}`), 401, 'invalid_credentials');
    expectErrorShape(await signInAs(stolen, victim.email, victim.password), 429, 'rate_limited');
    now += 3 * HOUR;
  });

  it('spends the same budget on re-authentication: wrong passwords there lock sign-in, and a locked address cannot re-authenticate from an untrusted device', async () => {
    const victim = await person();
    // A session whose device cookie is not sent (a stolen session cookie, say).
    const signedIn = await request(http).post(`${PORTAL_API}/signin`).set('Origin', portal.origin).set('X-Forwarded-For', '203.0.113.9').send(victim);
    expect(signedIn.status).toBe(200);
    const session = (signedIn.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('cw_session='))!.split(';')[0]!;
    const reauth = (password: string) =>
      request(http)
        .post(`${PORTAL_API}/reauth`)
        .set('Origin', portal.origin)
        .set('Cookie', session)
        .set('X-CSRF-Token', signedIn.body.csrf_token)
        .set('X-Forwarded-For', '203.0.113.9')
        .send({ password });
    now += HOUR;
    for (let i = 0; i < ACCOUNT_BUDGET; i++) {
      expectErrorShape(await reauth(`reauth guess ${i}`), 401, 'invalid_credentials');
      now += MINUTE;
    }
    expectErrorShape(await reauth(victim.password), 429, 'rate_limited');
    expectErrorShape(await signInAs(browser(), victim.email, victim.password), 429, 'rate_limited');
    now += 3 * HOUR;
  });

  it('mails an unlock link when an address locks: it lets the device that opens it sign in, once, and signs nobody in by itself', async () => {
    const victim = await person();
    const before = mailCount(victim.email);
    now += HOUR;
    await lockOut(victim.email);
    const mail = await nextMail(victim.email, before);
    const token = /\/signin\?unlock=([A-Za-z0-9_-]+)/.exec(mail)?.[1];
    expect(token, mail).toBeTruthy();
    expect(mailCount(victim.email)).toBe(before + 1); // one mail for the lock, not one per guess
    const laptop = browser();
    expectErrorShape(await signInAs(laptop, victim.email, victim.password), 429, 'rate_limited');
    const unlocked = await laptop.post('/signin/unlock', { token });
    expect(unlocked.status, JSON.stringify(unlocked.body)).toBe(200);
    expect(unlocked.body).toEqual({ unlocked: true, email: victim.email });
    expectErrorShape(await laptop.get('/session'), 401, 'not_authenticated');
    expect((await signInAs(laptop, victim.email, victim.password)).status).toBe(200);
    // The link works once: another device cannot use it again, and stays limited.
    const attacker = browser();
    expectErrorShape(await attacker.post('/signin/unlock', { token }), 404, 'not_found');
    expectErrorShape(await signInAs(attacker, victim.email, victim.password), 429, 'rate_limited');
    expectErrorShape(await attacker.post('/signin/unlock', { token: 'x'.repeat(43) }), 404, 'not_found');
    now += 3 * HOUR;
  });
});

describe('weak new passwords', () => {
  const refused = (res: request.Response, param: string, why: RegExp) => {
    expectErrorShape(res, 400, 'invalid_parameter');
    expect(res.body.errors).toEqual([{ param, detail: expect.stringMatching(why) }]);
    expect(res.body.detail).toMatch(why);
  };

  it('refuses common and context-specific passwords at sign-up, saying why, whether or not the address is taken', async () => {
    const signup = (body: object) =>
      browser().post('/signup', { email: 'maya.schmidt@trail-notes.example', account_name: 'Trail Notes', name: 'Maya Schmidt', ...body });
    for (const p of ['password1234', 'P@ssw0rd2024!', 'qwertyuiop123', 'aaaaaaaaaaaa', '123456789012'])
      refused(await signup({ password: p }), 'password', /too (common|easy)/);
    refused(await signup({ password: 'maya.schmidt@trail-notes.example' }), 'password', /must not contain your e-mail address/);
    refused(await signup({ password: 'mayaschmidt is me 2024' }), 'password', /must not contain your e-mail address/);
    refused(await signup({ password: 'hello from trail notes' }), 'password', /must not contain the account's name/);
    refused(await signup({ email: 'ms@trail-notes.example', password: 'schmidt and friends' }), 'password', /must not contain your name/);
    const taken = portal.deps.demo!.publishers[0]!.portal_login;
    refused(await browser().post('/signup', { email: taken.email, password: 'password1234' }), 'password', /too common/);
    expect((await signup({ password: 'wombat lantern quietly' })).status).toBe(202);
  });

  it('refuses them at password reset, leaving the link usable for a good one', async () => {
    const p = await person();
    const before = mailCount(p.email);
    expect((await browser().post('/password/forgot', { email: p.email })).status).toBe(202);
    const token = /\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(await nextMail(p.email, before))![1]!;
    refused(await browser().post('/password/reset', { token, password: 'password1234' }), 'password', /too common/);
    refused(await browser().post('/password/reset', { token, password: `${p.email} again` }), 'password', /must not contain your e-mail address/);
    expect((await browser().post('/password/reset', { token, password: 'a quiet harbour at dawn' })).status).toBe(200);
  });

  it('refuses them at password change, naming new_password', async () => {
    const p = await person();
    const b = browser();
    await b.signIn(p.email, p.password);
    refused(await b.post('/password/change', { current_password: p.password, new_password: 'iloveyou12345' }), 'new_password', /too common/);
    const local = p.email.split('@')[0]!;
    refused(
      await b.post('/password/change', { current_password: p.password, new_password: `${local} forever` }),
      'new_password',
      /must not contain your e-mail address/,
    );
    const accountName = (await b.get('/session')).body.accounts[0].name as string;
    refused(
      await b.post('/password/change', { current_password: p.password, new_password: `${accountName} rocks!` }),
      'new_password',
      /must not contain the account's name/,
    );
    expect((await b.post('/password/change', { current_password: p.password, new_password: 'an orange kite over hills' })).status).toBe(200);
  });

  it('refuses them when an invitation is accepted by signing up', async () => {
    const owner = browser();
    const login = portal.deps.demo!.publishers[0]!.portal_login;
    const session = await owner.signIn(login.email, login.password);
    const account = session.accounts.find((a) => a.role === 'owner')!;
    const invitee = 'sam.invited@signin-guard.example';
    const before = mailCount(invitee);
    expect((await owner.post(`/accounts/${account.account_id}/invitations`, { email: invitee, role: 'analyst' })).status).toBe(201);
    const token = /\/invitations\/accept\?token=([A-Za-z0-9_-]+)/.exec(await nextMail(invitee, before))![1]!;
    const accept = (body: object) => browser().post('/invitations/accept', { token, ...body });
    refused(await accept({ password: 'baseball12345', name: 'Sam Invited' }), 'password', /too common/);
    refused(await accept({ password: 'sam.invited is here', name: 'Sam Invited' }), 'password', /must not contain your e-mail address/);
    const accountName = (await owner.get('/session')).body.accounts.find((a: { account_id: string }) => a.account_id === account.account_id).name as string;
    refused(await accept({ password: `joining ${accountName} today` }), 'password', /must not contain the account's name/);
    expect((await accept({ password: 'purple tigers sing softly', name: 'Sam Invited' })).status).toBe(200);
  });
});
