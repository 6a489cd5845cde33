/**
 * Sign-up and account holes an outside probe found, each attack kept so none comes back:
 *
 * 1. Old links: a password-reset or confirmation link kept working after a newer one was mailed,
 *    after a reset and after a password change; an older invitation to the same address could be
 *    accepted after a newer one (a role chosen again). (OWASP ASVS 4.0.3 V2.5.x, V3.3.x.)
 * 2. Which addresses are taken, told by the work done: sign-up and forgotten passwords must do the
 *    same work for a taken and a new address, every mail handed to the same background path (here:
 *    with the mail unable to go out, every answer is the same 202 and each mail follows once it
 *    can). The time is measured in bench/signup-timing.bench.ts, not here. (ASVS V2.2.x / V3.x,
 *    account enumeration.)
 * 3. Names people set (person, account, claim, key label, an operator's merchant and program):
 *    no control, line-break or bidirectional characters, bounded length; a stored name from
 *    before never reaches a mail subject with them. (ASVS V5.1.x, V5.2.x.)
 * 4. The sessions list and the security log show a keyed hash of the /24 or /48 network (the same
 *    network reads the same), never an address or its prefix, and store none. (ASVS V8.3.x.)
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDisplayText } from '@cw/validation';
import { expectErrorShape } from '@cw-tools/testing';
import { mailFiles, mailTo, PORTAL_API, portalBrowser, startPortal, type PortalBrowser, type PortalHarness } from './support/portal-harness';

let p: PortalHarness;

beforeAll(async () => {
  p = await startPortal({ RATELIMIT_PORTAL_PER_MIN: '1000000' });
}, 60_000);
afterAll(async () => {
  await p?.close();
});

const PASSWORD = 'a long enough passphrase';
let personNo = 0;
const newAddress = (who: string) => `${who}.${process.pid}.${++personNo}@accounts.example`;
const owner = (i = 0) => p.deps.demo!.publishers[i]!.portal_login;
const accountId = (i = 0) => p.deps.demo!.publishers[i]!.account_id;

/** A person signed up with their own account, address confirmed. */
async function confirmedPerson(who = 'person'): Promise<{ email: string; password: string }> {
  const email = newAddress(who);
  const b = portalBrowser(p);
  expect((await b.post('/signup', { email, password: PASSWORD, account_name: 'Person Account' })).status).toBe(202);
  expect((await b.post('/verify-email', { token: mailTo(p.mailDir, email).link('/verify-email') })).status).toBe(200);
  return { email, password: PASSWORD };
}

const resetLink = (email: string) => mailTo(p.mailDir, email).link('/reset-password');
const verifyLink = (email: string) => mailTo(p.mailDir, email).link('/verify-email');

/** The old link refused, and the password it tried to set does not sign in. */
async function expectResetRefused(token: string, email: string): Promise<void> {
  const attacker = portalBrowser(p);
  expectErrorShape(await attacker.post('/password/reset', { token, password: 'the attackers passphrase' }), 404, 'not_found');
  expectErrorShape(await portalBrowser(p).post('/signin', { email, password: 'the attackers passphrase' }), 401, 'invalid_credentials');
}

describe('old links stop working', () => {
  it.each([
    [
      'a newer reset link was mailed',
      async (email: string) => {
        await portalBrowser(p).post('/password/forgot', { email });
        const old = resetLink(email);
        await portalBrowser(p).post('/password/forgot', { email });
        const newer = resetLink(email);
        expect(newer).not.toBe(old);
        return old;
      },
    ],
    [
      'the password was reset with a newer link',
      async (email: string) => {
        await portalBrowser(p).post('/password/forgot', { email });
        const old = resetLink(email);
        await portalBrowser(p).post('/password/forgot', { email });
        expect((await portalBrowser(p).post('/password/reset', { token: resetLink(email), password: 'the owners new passphrase' })).status).toBe(200);
        return old;
      },
    ],
    [
      'the password was changed',
      async (email: string) => {
        await portalBrowser(p).post('/password/forgot', { email });
        const old = resetLink(email);
        const b = portalBrowser(p);
        await b.signIn(email, PASSWORD);
        expect((await b.post('/password/change', { current_password: PASSWORD, new_password: 'the owners new passphrase' })).status).toBe(200);
        return old;
      },
    ],
    [
      'the password was reset with the same link once (used twice)',
      async (email: string) => {
        await portalBrowser(p).post('/password/forgot', { email });
        const old = resetLink(email);
        expect((await portalBrowser(p).post('/password/reset', { token: old, password: 'the owners new passphrase' })).status).toBe(200);
        return old;
      },
    ],
  ])('a password-reset link sets no password once %s', async (_when, makeOldLink) => {
    const person = await confirmedPerson('reset');
    const old = await makeOldLink(person.email);
    await expectResetRefused(old, person.email);
  });

  it.each([
    [
      'a newer link was mailed at sign-in (address not confirmed yet)',
      async (email: string) => {
        const old = verifyLink(email);
        expectErrorShape(await portalBrowser(p).post('/signin', { email, password: PASSWORD }), 403, 'email_not_verified');
        expect(verifyLink(email)).not.toBe(old);
        return old;
      },
    ],
    [
      'a newer link was mailed by signing up again',
      async (email: string) => {
        const old = verifyLink(email);
        expect((await portalBrowser(p).post('/signup', { email, password: 'someone elses passphrase' })).status).toBe(202);
        expect(verifyLink(email)).not.toBe(old);
        return old;
      },
    ],
    [
      'the password was reset (which confirms the address)',
      async (email: string) => {
        const old = verifyLink(email);
        await portalBrowser(p).post('/password/forgot', { email });
        expect((await portalBrowser(p).post('/password/reset', { token: resetLink(email), password: 'the owners new passphrase' })).status).toBe(200);
        return old;
      },
    ],
  ])('a confirmation link confirms nothing once %s', async (_when, makeOldLink) => {
    const email = newAddress('verify');
    expect((await portalBrowser(p).post('/signup', { email, password: PASSWORD })).status).toBe(202);
    const old = await makeOldLink(email);
    expectErrorShape(await portalBrowser(p).post('/verify-email', { token: old }), 404, 'not_found');
  });

  it('replaces an earlier invitation to the same address: its link neither shows nor joins, so a role once changed is not chosen again', async () => {
    const o = portalBrowser(p);
    await o.signIn(owner().email, owner().password);
    const email = newAddress('invited');
    expect((await o.post(`/accounts/${accountId()}/invitations`, { email, role: 'owner' })).status).toBe(201);
    const asOwner = mailTo(p.mailDir, email).link('/invitations/accept');
    // The owner thinks better of it and invites the person as an analyst instead.
    expect((await o.post(`/accounts/${accountId()}/invitations`, { email, role: 'analyst' })).status).toBe(201);
    const asAnalyst = mailTo(p.mailDir, email).link('/invitations/accept');
    const pending = (await o.get(`/accounts/${accountId()}/members`)).body.invitations.filter((i: { email: string }) => i.email === email);
    expect(pending).toEqual([expect.objectContaining({ role: 'analyst' })]);
    expectErrorShape(await portalBrowser(p).get(`/invitations/preview?token=${asOwner}`), 404, 'not_found');

    const invited = portalBrowser(p);
    const joined = await invited.post('/invitations/accept', { token: asAnalyst, password: PASSWORD, name: 'Invited' });
    expect(joined.status).toBe(200);
    invited.setCsrf(joined.body.csrf_token);
    // The earlier link, signed in as the invited person: refused, and the role stays analyst.
    expectErrorShape(await invited.post('/invitations/accept', { token: asOwner }), 404, 'not_found');
    expect((await invited.get('/session')).body.accounts).toEqual(
      expect.arrayContaining([expect.objectContaining({ account_id: accountId(), role: 'analyst' })]),
    );
  });
});

describe('sign-up and forgotten passwords do the same work for taken and new addresses', () => {
  /** A request as a new visitor (no browser that waits for mail): the answer alone. */
  const post = (path: string, body: object, ip: string) =>
    request(p.http).post(`${PORTAL_API}${path}`).set('Origin', p.origin).set('X-Forwarded-For', ip).send(body);

  it('answers every sign-up and reset the same 202 while no mail can go out, and sends each mail once it can', async () => {
    const unconfirmed = newAddress('unconfirmed');
    expect((await portalBrowser(p).post('/signup', { email: unconfirmed, password: PASSWORD })).status).toBe(202);
    const fresh = newAddress('fresh');
    const count = (to: string) => mailFiles(p.mailDir, to).length;
    const before = { owner: count(owner(1).email), unconfirmed: count(unconfirmed), fresh: count(fresh) };

    // The mail cannot be written (the SMTP server down, in production): a file stands where the folder was.
    const aside = `${p.mailDir}-aside`;
    renameSync(p.mailDir, aside);
    writeFileSync(p.mailDir, 'not a folder');
    let answers: Array<{ status: number; body: unknown }>;
    try {
      answers = [];
      for (const [path, body] of [
        ['/signup', { email: owner(1).email, password: 'a second persons passphrase', account_name: 'Lookalike Media' }],
        ['/signup', { email: unconfirmed, password: 'a second persons passphrase', account_name: 'Lookalike Media' }],
        ['/signup', { email: fresh, password: PASSWORD, account_name: 'Fresh Account' }],
        ['/password/forgot', { email: owner(1).email }],
        ['/password/forgot', { email: newAddress('nobody') }],
      ] as const) {
        const r = await post(path, body, '192.0.2.77');
        answers.push({ status: r.status, body: r.body });
      }
    } finally {
      rmSync(p.mailDir, { force: true });
      renameSync(aside, p.mailDir);
    }
    expect(answers.slice(0, 3)).toEqual(Array(3).fill({ status: 202, body: { status: 'verification_sent' } }));
    expect(answers.slice(3)).toEqual(Array(2).fill({ status: 202, body: { status: 'reset_sent' } }));

    // Nothing lost: each mail goes out once the mail can be written.
    await p.mailSent();
    expect(count(owner(1).email)).toBe(before.owner + 2);
    expect(count(unconfirmed)).toBe(before.unconfirmed + 1);
    expect(count(fresh)).toBe(before.fresh + 1);
    const ownerMails = mailFiles(p.mailDir, owner(1).email)
      .slice(-2)
      .map((f) => readFileSync(join(p.mailDir, f), 'utf8'));
    expect(ownerMails.some((m) => m.includes('already'))).toBe(true);
    expect(ownerMails.some((m) => m.includes('/reset-password?token'))).toBe(true);
    expect(mailTo(p.mailDir, fresh).text).toContain('/verify-email?token');
  });
});

// ---------------------------------------------------------------------------------------------
// Names

const BAD_NAMES: Array<[string, string]> = [
  ['NUL', 'Trail\u0000Notes'],
  ['a right-to-left override', 'Trail \u202eseton'],
  ['a line break that would add a mail header', 'Trail Notes\r\nBcc: attacker@evil.example'],
  ['a terminal escape', '\u001b[31mTrail Notes'],
  ['a C1 control', 'Trail\u0085Notes'],
  ['a bidirectional isolate', 'Trail \u2066Notes\u2069'],
  ['a line separator', 'Trail\u2028Notes'],
];

interface NameField {
  what: string;
  param: string;
  maxLength: number;
  /** Sends the name; answers the response. */
  send(name: string): Promise<request.Response>;
}

let ownerBrowser: PortalBrowser;
let operatorBrowser: PortalBrowser;
const FAKE_TOKEN = 'A'.repeat(43);

const NAME_FIELDS: NameField[] = [
  {
    what: 'your name at sign-up',
    param: 'name',
    maxLength: 100,
    send: (name) => portalBrowser(p).post('/signup', { email: newAddress('named'), password: PASSWORD, name }),
  },
  {
    what: 'the account name at sign-up',
    param: 'account_name',
    maxLength: 100,
    send: (account_name) => portalBrowser(p).post('/signup', { email: newAddress('named'), password: PASSWORD, account_name }),
  },
  {
    what: 'your name when accepting an invitation',
    param: 'name',
    maxLength: 100,
    send: (name) => portalBrowser(p).post('/invitations/accept', { token: FAKE_TOKEN, password: PASSWORD, name }),
  },
  {
    what: 'the account name in its settings',
    param: 'name',
    maxLength: 100,
    send: (name) => ownerBrowser.patch(`/accounts/${accountId()}`, { name }),
  },
  {
    what: 'the display name of a claim',
    param: 'display_name',
    maxLength: 100,
    send: (display_name) =>
      ownerBrowser.post('/claim', {
        application: 'app_probe',
        access_secret: 'mon_probe',
        display_name,
        website: 'https://trail-notes.example',
        channels: ['content'],
        country: 'DE',
      }),
  },
  {
    what: 'a key’s label',
    param: 'label',
    maxLength: 80,
    send: (label) => ownerBrowser.post(`/accounts/${accountId()}/keys`, { type: 'api_key', key_kind: 'test', label }),
  },
  {
    what: 'a merchant’s name (operator)',
    param: 'name',
    maxLength: 200,
    send: (name) => operatorBrowser.post('/operator/merchants', { id: 900_000 + ++personNo, name }),
  },
  {
    what: 'a program’s name (operator)',
    param: 'name',
    maxLength: 200,
    send: (name) =>
      operatorBrowser.post('/operator/programs', {
        id: 900_000 + ++personNo,
        merchant: 1,
        name,
        country: 'DE',
        landing_url: 'https://shop.example',
      }),
  },
];

describe('names people set', () => {
  beforeAll(async () => {
    ownerBrowser = portalBrowser(p);
    await ownerBrowser.signIn(owner().email, owner().password);
    operatorBrowser = portalBrowser(p);
    await operatorBrowser.signIn(p.deps.demo!.fixtures.operator_login.email, p.deps.demo!.fixtures.operator_login.password);
  });

  const cases = NAME_FIELDS.flatMap((f) => [
    ...BAD_NAMES.map(([why, name]) => [f.what, why, f, name] as const),
    [f.what, `more than ${f.maxLength} characters`, f, 'x'.repeat(f.maxLength + 1)] as const,
  ]);
  it.each(cases)('refuses %s with %s: 400 naming the field', async (_what, _why, field, name) => {
    const res = await field.send(name);
    expectErrorShape(res, 400, 'invalid_parameter');
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ param: field.param })]));
  });

  it('keeps names in any script, with accents and emoji', async () => {
    for (const name of ['Zoë & Søren', 'مراجعات', '東京レビュー', 'Family 👨‍👩‍👧 Reviews'])
      expect((await portalBrowser(p).post('/signup', { email: newAddress('script'), password: PASSWORD, name, account_name: name })).status).toBe(202);
  });

  it('strips control and bidirectional characters of a name stored before from the invitation mail’s subject and text', async () => {
    const o = portalBrowser(p);
    await o.signIn(owner(1).email, owner(1).password);
    // An account name stored before the rule (the database as an older version left it).
    await p.deps.models.Publisher.updateOne({ _id: accountId(1) }, { $set: { name: 'Trail\u0000head \u202eReviews\r\nBcc: attacker@evil.example' } });
    try {
      const email = newAddress('subject');
      expect((await o.post(`/accounts/${accountId(1)}/invitations`, { email, role: 'analyst' })).status).toBe(201);
      const raw = readFileSync(join(p.mailDir, mailFiles(p.mailDir, email).at(-1)!), 'utf8');
      const subject = subjectOf(raw);
      expect(subject).toBe(`${owner(1).email} invited you to Trailhead ReviewsBcc: attacker@evil.example`);
      expect(isDisplayText(subject)).toBe(true);
      expect(raw).not.toMatch(/^Bcc:/im);
      const text = mailTo(p.mailDir, email).text;
      expect(text).toContain('invited you to the publisher account Trailhead ReviewsBcc: attacker@evil.example as analyst');
      for (const c of ['\u0000', '\u202e']) expect(text).not.toContain(c);
    } finally {
      await p.deps.models.Publisher.updateOne({ _id: accountId(1) }, { $set: { name: 'Restored Name' } });
    }
  });
});

/** The Subject header of a raw mail, unfolded and its RFC 2047 encoded words decoded. */
function subjectOf(raw: string): string {
  const headers = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  const line = /^Subject: (.*)$/m.exec(headers)?.[1] ?? '';
  return line.replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_m, enc: string, text: string) =>
    enc.toLowerCase() === 'b'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, h: string) => String.fromCharCode(parseInt(h, 16))),
          'latin1',
        ).toString('utf8'),
  );
}

// ---------------------------------------------------------------------------------------------
// Where people signed in from

describe('the sessions list and the security log show the network, never the address', () => {
  /** Signs the analyst in from `ip` with a device name of its own; answers the browser. */
  async function signInFrom(ip: string, device: string): Promise<PortalBrowser> {
    const login = p.deps.demo!.fixtures.analyst_login;
    const b = portalBrowser(p, ip);
    const res = await b.post('/signin', login).set('User-Agent', device);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    b.setCsrf(res.body.csrf_token);
    return b;
  }
  const RAW = /\d+\.\d+\.\d+\.\d+|\d+\.\d+\.\d+\.0\/24|[0-9a-f]{1,4}:[0-9a-f]{1,4}:|\/24|\/48/i;

  it.each([
    ['IPv4', ['198.51.77.10', '198.51.77.200'], '203.0.113.9'],
    ['IPv6', ['2001:db8:77:1::7', '2001:db8:77:ffff::1'], '2001:db8:78::1'],
    ['IPv4 mapped into IPv6 beside plain IPv4', ['::ffff:198.51.79.4', '198.51.79.250'], '198.51.80.4'],
  ])('%s: one network reads the same, another differently, and no address or prefix is shown or stored', async (_kind, sameNetwork, other) => {
    const tag = `probe-${++personNo}`;
    const a = await signInFrom(sameNetwork[0]!, `${tag}-a`);
    await signInFrom(sameNetwork[1]!, `${tag}-b`);
    await signInFrom(other, `${tag}-c`);
    const sessions = (await a.get('/sessions')).body.data as Array<{ user_agent: string; address: string | null }>;
    const shown = (device: string) => sessions.find((s) => s.user_agent === `${tag}-${device}`)!.address;
    expect(shown('a')).toEqual(expect.any(String));
    expect(shown('a')).toBe(shown('b'));
    expect(shown('c')).not.toBe(shown('a'));
    for (const d of ['a', 'b', 'c']) expect(shown(d)).not.toMatch(RAW);

    const log = (await a.get(`/accounts/${accountId()}/security-log?limit=200`)).body.data as Array<{ type: string; user_agent: string; address: string }>;
    const logged = (device: string) => log.find((e) => e.type === 'signin' && e.user_agent === `${tag}-${device}`)!.address;
    expect(logged('a')).toBe(shown('a'));
    expect(logged('b')).toBe(shown('a'));
    expect(logged('c')).toBe(shown('c'));

    const stored = [
      ...(await p.deps.models.PortalSession.find({ user_agent: { $in: [`${tag}-a`, `${tag}-b`, `${tag}-c`] } }).lean()),
      ...(await p.deps.models.SecurityEvent.find({ user_agent: { $in: [`${tag}-a`, `${tag}-b`, `${tag}-c`] } }).lean()),
    ];
    expect(stored.length).toBeGreaterThanOrEqual(6);
    for (const row of stored) expect(JSON.stringify(row)).not.toMatch(/198\.51\.|203\.0\.113|2001:db8/);
  });

  it('shows an entry logged before with a plain prefix as the same network as a new sign-in from it', async () => {
    const login = p.deps.demo!.fixtures.analyst_login;
    await p.deps.data.audit.record({
      account_id: accountId(),
      type: 'signin',
      actor: { email: login.email },
      address: '198.51.81.0/24',
      user_agent: 'probe-before',
    });
    const b = await signInFrom('198.51.81.33', 'probe-now');
    const log = (await b.get(`/accounts/${accountId()}/security-log?limit=200`)).body.data as Array<{ user_agent: string; address: string }>;
    const before = log.find((e) => e.user_agent === 'probe-before')!.address;
    expect(before).not.toMatch(RAW);
    expect(before).toBe(log.find((e) => e.user_agent === 'probe-now')!.address);
  });
});
