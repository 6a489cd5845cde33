/**
 * Attacks on the portal's own API that an outside probe tried and that held, kept so none
 * regresses (OWASP ASVS 4.0.3 V4.2.2 and V13.2.3, CSRF; V4.1.2/V4.2.1, IDOR). Every route comes
 * from the portal's OpenAPI document, so a route added there is attacked without this file naming
 * it; ids come from real objects (keys, invitations, members, sessions, grants, deliveries,
 * conversions) so a missing check would really change or show something.
 *
 * The portal here is configured as in production, on https (`__Host-cw_session`, Secure), behind
 * one proxy that terminates TLS (X-Forwarded-Proto), reached at its own host.
 */
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payoutIdOf } from '@cw/payouts';
import { storeGrant } from '@cw-tools/testing';
import { openApiDocument, portalDeps } from '../src/app';
import { portalOAuth } from '../src/oauth';
import { oauthInteractionRoutes } from '../src/routes/oauth-interaction.routes';
import { PORTAL_API, startPortal, type PortalHarness } from './support/portal-harness';
import { changedCollections, databaseFingerprint, exampleOf, fillPath, isWrite, portalOperations, Tally, type PortalOperation } from './support/security-probe';

const PORTAL = 'https://portal.example';
const HOST = 'portal.example';

let p: PortalHarness;
let ops: PortalOperation[];
const tally = new Tally();
let addressNo = 0;

beforeAll(async () => {
  p = await startPortal({ PORTAL_URL: PORTAL, RATELIMIT_PORTAL_PER_MIN: '1000000', RATELIMIT_POSTBACKS_PER_MIN: '1000000' });
  ops = portalOperations(openApiDocument(p.deps));
}, 60_000);
afterAll(async () => {
  if (madeUp.size) console.log(`attacked with made-up ids (no real object known here): ${[...madeUp].sort().join(', ')}`);
  console.log(tally.summary());
  await p?.close();
});

// ---------------------------------------------------------------------------------------------
// A browser as the proxy hands its requests to the portal: https, the portal's host, its address.

interface Session {
  cookie: string;
  csrf: string;
  userId: string;
  ip: string;
}

interface Send {
  cookie?: string;
  csrf?: string;
  /** null: no Origin header; default: the portal's. */
  origin?: string | null;
  body?: unknown;
  /** A raw body with its media type (a form's), instead of JSON. */
  raw?: { type: string; text: string };
  ip?: string;
}

function send(method: string, path: string, s: Send = {}) {
  const r = request(p.http)
    [method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'](
      path.startsWith('/') && !path.startsWith(PORTAL_API) && !path.startsWith('/oauth/') ? `${PORTAL_API}${path}` : path,
    )
    .set('Host', HOST)
    .set('X-Forwarded-Proto', 'https')
    .set('X-Forwarded-For', s.ip ?? `203.0.113.${(++addressNo % 250) + 1}`);
  if (s.cookie) r.set('Cookie', s.cookie);
  if (s.origin !== null && method !== 'GET') r.set('Origin', s.origin ?? PORTAL);
  if (s.csrf) r.set('X-CSRF-Token', s.csrf);
  if (s.raw) return r.set('Content-Type', s.raw.type).send(s.raw.text);
  return s.body === undefined ? r : r.send(s.body as object);
}

async function signIn(login: { email: string; password: string }): Promise<Session> {
  const ip = `198.51.100.${(++addressNo % 250) + 1}`;
  const res = await send('POST', '/signin', { body: login, ip });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const line = set.find((c) => c.startsWith('__Host-cw_session='));
  expect(line, 'the https portal sets __Host-cw_session').toBeDefined();
  expect(line).toMatch(/;\s*secure/i);
  return { cookie: line!.split(';')[0]!, csrf: res.body.csrf_token as string, userId: res.body.user.id as string, ip };
}

const get = (s: Session, path: string) => send('GET', path, { cookie: s.cookie, ip: s.ip });

const owner1 = () => p.deps.demo!.publishers[0]!.portal_login;
const owner2 = () => p.deps.demo!.publishers[1]!.portal_login;
const ACC1 = () => p.deps.demo!.publishers[0]!.account_id;
const ACC2 = () => p.deps.demo!.publishers[1]!.account_id;

/** A failed delivery of the account's postback (what Redeliver acts on), written as the worker writes it. */
async function failedDelivery(account: string): Promise<string> {
  const id = `dlv_probe_${randomBytes(6).toString('hex')}`;
  const now = new Date();
  await p.deps.models.PostbackDelivery.create({
    _id: id,
    publisher_id: account,
    event_id: `evt_${id}`,
    event: 'sale.created',
    test: true,
    body: '{}',
    status: 'failed',
    attempts: 1,
    last_response_status: 500,
    created_at: now,
    updated_at: now,
    expires_at: new Date(now.getTime() + 86_400_000),
  });
  return id;
}

/** The objects of one account the attacks name, each real. */
interface Objects {
  account: string;
  key: string;
  invitation: string;
  member: string;
  session: string;
  grant: string;
  delivery: string;
  conversion: string;
  payout: string;
  run: string;
}

/** A payout of the account held for review (what an operator releases or cancels), written as a payout run writes it. */
async function heldPayout(account: string): Promise<string> {
  const id = payoutIdOf(`prun_probe_${randomBytes(4).toString('hex')}`, account, 'EUR');
  await p.deps.models.Payout.create({
    _id: id,
    run_id: 'prun_probe',
    publisher_id: account,
    status: 'held',
    amount: '25.00',
    currency: 'EUR',
    rail: 'sepa',
    method: { type: 'iban', last4: '3000' },
    holds: ['shared_account'],
    created_at: new Date(),
  });
  return id;
}

/** A payout run waiting for approval by another admin than its creator (what an operator approves). */
async function draftRun(): Promise<string> {
  const id = `prun_probe_${randomBytes(6).toString('hex')}`;
  await p.deps.models.PayoutRun.create({ _id: id, kind: 'scheduled', status: 'draft', created_by: 'someone.else@network.test', created_at: new Date() });
  return id;
}

/** Gives an account one of everything an id names, through its owner's session. */
async function objectsOf(owner: Session, account: string, invitee: string): Promise<Objects> {
  const w = (method: string, path: string, body?: unknown) => send(method, path, { cookie: owner.cookie, csrf: owner.csrf, ip: owner.ip, body });
  const key = await w('POST', `/accounts/${account}/keys`, { type: 'api_key', key_kind: 'test', label: 'probe target' });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  const inv = await w('POST', `/accounts/${account}/invitations`, { email: invitee, role: 'analyst' });
  expect(inv.status, JSON.stringify(inv.body)).toBe(201);
  const pb = await w('PUT', `/accounts/${account}/postback`, { url: 'https://93.184.215.14/pb?subid={subid}', http_method: 'POST' });
  expect([200, 201]).toContain(pb.status);
  const conversions = await get(owner, `/accounts/${account}/conversions?page_size=1`);
  expect(conversions.status, JSON.stringify(conversions.body)).toBe(200);
  const conversion = (conversions.body.data as Array<{ conversion_id?: string; id?: string }>)[0];
  expect(conversion, 'the demo data gives the account conversions').toBeDefined();
  // A second session of the same person: the one an attacker would end.
  await signIn(account === ACC1() ? owner1() : owner2());
  const sessions = await get(owner, '/sessions');
  const session = (sessions.body.data as Array<{ id: string; current: boolean }>).find((s) => !s.current)!;
  expect(session).toBeDefined();
  return {
    account,
    key: key.body.credential.id as string,
    invitation: inv.body.id as string,
    member: owner.userId,
    session: session.id,
    grant: await storeGrant(p.deps, { personId: owner.userId, accountId: account, scopes: 'affiliate:read' }),
    delivery: await failedDelivery(account),
    conversion: String(conversion!.conversion_id ?? conversion!.id),
    payout: await heldPayout(account),
    run: await draftRun(),
  };
}

/** Which object a path parameter names: by its name, or by the collection before it (`/keys/{id}`); `made-up` when no real one is known. */
function objectKind(path: string, param: string): keyof Objects | 'publisher' | 'made-up' {
  if (param === 'account') return 'account';
  if (param === 'publisher') return 'publisher';
  if (param === 'user') return 'member';
  if (param === 'grant') return 'grant';
  const before = /\/([a-z-]+)\/\{[a-z_]+\}$/.exec(path.slice(0, path.indexOf(`{${param}}`) + param.length + 2))?.[1];
  const kinds: Record<string, keyof Objects> = {
    keys: 'key',
    invitations: 'invitation',
    members: 'member',
    sessions: 'session',
    apps: 'grant',
    deliveries: 'delivery',
    conversions: 'conversion',
    payouts: 'payout',
    'payout-runs': 'run',
  };
  return (before && kinds[before]) || 'made-up';
}

/**
 * Routes whose ids this file has no real object for (an operator's claims, an interaction's uid, a
 * route added since): attacked all the same, with a made-up id, and listed in the output so that
 * whoever adds one can give it a real object in `objectsOf`.
 */
const madeUp = new Set<string>();

function pathFor(op: PortalOperation, objects: Objects, override: Partial<Record<string, string>> = {}): string {
  const values: Record<string, string> = {};
  for (const param of op.pathParams) {
    const kind = objectKind(op.path, param);
    if (kind === 'made-up') madeUp.add(`${op.path} {${param}}`);
    values[param] = override[param] ?? (kind === 'publisher' ? objects.account : kind === 'made-up' ? `probe_${param}_1` : objects[kind]);
  }
  return fillPath(op.path, values);
}

/** A body that would do harm if the request got through (else one the schema accepts). */
function harmfulBody(op: PortalOperation): unknown {
  const prefer: Record<string, Record<string, unknown>> = {
    signUp: { email: 'csrf.signup@attacker.example', password: 'attacker passphrase', account_name: 'CSRF Co' },
    signIn: { email: owner2().email, password: owner2().password },
    reauthenticate: { password: 'a guessed password' },
    forgotPassword: { email: owner1().email },
    changePassword: { current_password: owner1().password, new_password: 'attacker passphrase' },
    updateAccountSettings: { name: 'CSRF Hijacked', website: 'https://attacker.example/' },
    issueKey: { type: 'api_key', key_kind: 'live', label: 'csrf' },
    putPostback: { url: 'https://attacker.example/steal?c={commission}', http_method: 'POST' },
    inviteMember: { email: 'attacker@attacker.example', role: 'owner' },
    changeRole: { role: 'owner' },
    applyAccountToProgram: { program_id: p.deps.demo!.fixtures.joinable_program_id },
    createAccountLink: { program_id: p.deps.demo!.fixtures.approved_program_id, subid: 'csrf' },
    updatePayoutSettings: { schedule: 'on_request' },
    createAccountLinkBatch: { links: [{ program_id: p.deps.demo!.fixtures.approved_program_id, subid: 'csrf-batch' }] },
  };
  const body = exampleOf(op.body, prefer[op.operationId]);
  return body === undefined && !op.body ? undefined : body;
}

const brief = (res: request.Response) => `${res.status} ${res.body?.code ?? ''}`.trim();

/** Refused in the one error shape with `status` and `code`. */
function refused(res: request.Response, status: number, code: string): boolean {
  return res.status === status && res.body?.code === code && typeof res.body?.detail === 'string' && typeof res.body?.request_id === 'string';
}

/** A fingerprint of the whole database; sessions' last-seen time and the request-count rows move on every request. */
const fingerprint = () => databaseFingerprint(p.deps.db.connection, { '*': ['last_seen_at', 'last_used_at'] });

// ---------------------------------------------------------------------------------------------

describe('CSRF: every state-changing route of the portal API', () => {
  it('refuses a signed-in browser’s cookie without the right token or Origin, and form bodies, on every write, and nothing changes', async () => {
    const victim = await signIn(owner1());
    const attacker = await signIn(owner2());
    const operator = await signIn(p.deps.demo!.fixtures.operator_login);
    const mine = await objectsOf(victim, ACC1(), 'pending.colleague@victim.example');
    // The interaction calls of an app's sign-in and consent (under /oauth/interaction/<uid>/) check the same way.
    const interaction = oauthInteractionRoutes(portalDeps(p.deps), portalOAuth(portalDeps(p.deps), { webDir: '/nonexistent' }))
      .filter((r) => r.method !== 'GET')
      .map<PortalOperation>((r) => ({
        method: r.method as PortalOperation['method'],
        path: `/oauth/interaction${r.path.replace(/:([a-z_]+)/g, '{$1}')}`,
        operationId: r.operationId,
        pathParams: Object.keys(r.pathParams ?? {}),
        body: r.body as Record<string, unknown> | undefined,
        needsSession: false,
      }));
    const writes = [...ops.filter(isWrite), ...interaction];
    expect(writes.length).toBeGreaterThanOrEqual(35);

    const before = await fingerprint();
    const lookalikes = [
      ['no Origin', null],
      ['Origin: null', 'null'],
      ['a foreign origin', 'https://attacker.example'],
      ["the portal's host under another domain", 'https://portal.example.attacker.example'],
      ['a domain ending in the portal’s host', 'https://evilportal.example'],
      ["a subdomain of the portal's host", 'https://app.portal.example'],
      ['another port', 'https://portal.example:8443'],
      ['http instead of https', 'http://portal.example'],
      ['a trailing dot', 'https://portal.example.'],
      ['userinfo before another host', 'https://portal.example@attacker.example'],
      ['the portal origin with a path', 'https://portal.example/'],
      ['two origins', 'https://portal.example https://attacker.example'],
    ] as const;
    const forms = [
      ['text/plain (JSON smuggled in a form)', { type: 'text/plain', text: '{"name":"CSRF Hijacked","role":"owner","url":"https://attacker.example/"}' }],
      ['application/x-www-form-urlencoded', { type: 'application/x-www-form-urlencoded', text: 'name=CSRF+Hijacked&role=owner' }],
      [
        'multipart/form-data',
        { type: 'multipart/form-data; boundary=X', text: '--X\r\nContent-Disposition: form-data; name="name"\r\n\r\nCSRF Hijacked\r\n--X--\r\n' },
      ],
    ] as const;

    for (const op of writes) {
      const who = op.path.startsWith('/operator/') ? operator : victim;
      const path = pathFor(op, mine);
      const body = harmfulBody(op);
      const at = `${op.method} ${op.path}`;
      const csrfRefused = (res: request.Response) => refused(res, 403, 'csrf_failed');

      let res = await send(op.method, path, { cookie: who.cookie, body, ip: who.ip });
      tally.record(`csrf: ${at}: the session cookie without X-CSRF-Token`, csrfRefused(res), brief(res));
      res = await send(op.method, path, { cookie: who.cookie, csrf: 'A'.repeat(who.csrf.length), body, ip: who.ip });
      tally.record(`csrf: ${at}: a wrong token of the right length`, csrfRefused(res), brief(res));
      res = await send(op.method, path, { cookie: who.cookie, csrf: attacker.csrf, body, ip: who.ip });
      tally.record(`csrf: ${at}: another session's token`, csrfRefused(res), brief(res));
      res = await send(op.method, `${path}?csrf_token=${encodeURIComponent(who.csrf)}`, { cookie: who.cookie, body, ip: who.ip });
      tally.record(`csrf: ${at}: the token in the query string instead of the header`, csrfRefused(res), brief(res));

      // With the right token: the Origin alone must refuse it.
      for (const [name, origin] of lookalikes) {
        res = await send(op.method, path, { cookie: who.cookie, csrf: who.csrf, origin, body, ip: who.ip });
        tally.record(`csrf: ${at}: ${name} (the right token)`, csrfRefused(res), brief(res));
        // No session at all (sign-in, sign-up, reset: login CSRF): the Origin check still holds.
        res = await send(op.method, path, { origin, body, ip: who.ip });
        tally.record(`csrf: ${at}: ${name} without a session`, csrfRefused(res), brief(res));
      }

      // What an HTML form on another site can send: its media type, the cookie, no token (its Origin the portal's, the worst case, or its own).
      for (const [name, raw] of forms) {
        for (const origin of [PORTAL, 'https://attacker.example']) {
          res = await send(op.method, path, { cookie: who.cookie, raw, origin, ip: who.ip });
          // JSON bodies only: a form's body is refused (415) before anything runs, a bodyless DELETE by the CSRF check.
          const held = csrfRefused(res) || refused(res, 415, 'unsupported_media_type');
          tally.record(`csrf: ${at}: a ${name} form from ${origin === PORTAL ? 'the portal origin' : 'another origin'}`, held, brief(res));
        }
      }
    }

    // Nothing was written anywhere: every session still works with its token, and the data is as it was.
    const after = await fingerprint();
    expect(changedCollections(before, after)).toEqual([]);
    for (const s of [victim, operator]) expect((await get(s, '/session')).body.csrf_token).toBe(s.csrf);
    const breaches = tally.breaches.filter((a) => a.attack.startsWith('csrf:'));
    console.log(`csrf: ${writes.length} state-changing routes, ${tally.count('csrf:')} attempts`);
    expect(breaches).toEqual([]);
  }, 120_000);
});

describe('IDOR: every route that names an account or an object, across two accounts', () => {
  it("answers the owner of one account 404 for the other account's ids, the same 404 as for ids that do not exist, and changes nothing", async () => {
    const o1 = await signIn(owner1());
    const o2 = await signIn(owner2());
    const theirs = await objectsOf(o2, ACC2(), 'their.colleague@other.example');
    const mine = await objectsOf(o1, ACC1(), 'my.colleague@victim.example');
    const none: Objects = {
      account: 'pub_does_not_exist_0',
      key: 'cred_does_not_exist_0',
      invitation: 'inv_does_not_exist_0',
      member: 'user_does_not_exist_0',
      session: 'ses_does_not_exist_0',
      grant: 'grant_does_not_exist_0',
      delivery: 'dlv_does_not_exist_0',
      conversion: 'conv_does_not_exist_0',
      payout: `po_${'0'.repeat(24)}`,
      run: 'prun_does_not_exist_0',
    };
    const named = ops.filter((op) => op.pathParams.length && !op.path.startsWith('/operator/'));
    expect(named.length).toBeGreaterThanOrEqual(15);
    const secretsOfTheirs = [ACC2(), owner2().email, theirs.invitation, (await get(o2, `/accounts/${ACC2()}`)).body.name as string];
    // Each read with one's own (real) ids is not a 404 (the URLs are the routes'; the 404s below are the checks').
    const real = (o: PortalOperation) => o.pathParams.every((param) => objectKind(o.path, param) !== 'made-up');
    for (const op of named.filter((o) => !isWrite(o) && !o.streams && real(o))) {
      const own = await send('GET', pathFor(op, mine), { cookie: o1.cookie, ip: o1.ip });
      expect([own.status, own.body?.code], op.path).not.toEqual([404, 'not_found']);
      expect(own.status, op.path).toBeLessThan(500);
    }

    const before = await fingerprint();
    // What an answer says, the ids the caller sent (echoed back) left out: the same for theirs as for none.
    const say = (res: request.Response, sent: Objects) => ({
      status: res.status,
      code: res.body?.code,
      detail: Object.values(sent)
        .sort((a, b) => b.length - a.length)
        .reduce((d: string, id) => d.replaceAll(id, '<id>'), String(res.body?.detail)),
    });
    for (const op of named) {
      const body = harmfulBody(op);
      const at = `${op.method} ${op.path}`;
      const variants: Array<[string, Partial<Record<string, string>>, Partial<Record<string, string>>]> = [];
      // Their account with their objects; and, where the path names an object, their object under one's own account.
      variants.push(['their account and objects', {}, {}]);
      if (op.pathParams.includes('account') && op.pathParams.length > 1)
        variants.push(['their object under my own account', { account: ACC1() }, { account: ACC1() }]);
      for (const [name, override, overrideNone] of variants) {
        // The URL reaches the route (a 404 of no route would prove nothing): a write without the token is the route's CSRF refusal.
        if (isWrite(op))
          expect(refused(await send(op.method, pathFor(op, theirs, override), { cookie: o1.cookie, body, ip: o1.ip }), 403, 'csrf_failed')).toBe(true);
        const res = await send(op.method, pathFor(op, theirs, override), { cookie: o1.cookie, csrf: o1.csrf, body, ip: o1.ip });
        const unknown = await send(op.method, pathFor(op, none, overrideNone), { cookie: o1.cookie, csrf: o1.csrf, body, ip: o1.ip });
        const text = JSON.stringify(res.body ?? {}) + (res.text ?? '');
        const revealed = secretsOfTheirs.filter((s) => s && text.includes(s) && !pathFor(op, theirs, override).includes(encodeURIComponent(s)));
        const held =
          refused(res, 404, 'not_found') &&
          Object.keys(res.body).every((k) => ['detail', 'code', 'request_id'].includes(k)) &&
          !revealed.length &&
          JSON.stringify(say(res, theirs)) === JSON.stringify(say(unknown, none));
        tally.record(`idor: ${at}: ${name}`, held, `${brief(res)}${revealed.length ? ` revealing ${revealed.join(', ')}` : ''} vs unknown ${brief(unknown)}`);
      }
    }
    // Their session, under the person's own sessions: another person's.
    expect(named.some((op) => op.path === '/sessions/{id}/')).toBe(true);

    // The operator area: a publisher is not an operator, whatever the ids.
    for (const op of ops.filter((o) => o.path.startsWith('/operator/'))) {
      const res = await send(op.method, pathFor(op, theirs), { cookie: o1.cookie, csrf: o1.csrf, body: harmfulBody(op), ip: o1.ip });
      tally.record(`idor: ${op.method} ${op.path}: a publisher in the operator area`, refused(res, 403, 'forbidden'), brief(res));
    }

    const after = await fingerprint();
    expect(changedCollections(before, after)).toEqual([]);
    // Their person still signed in, their session (the one named) still listed.
    expect((await get(o2, '/sessions')).body.data.map((s: { id: string }) => s.id)).toContain(theirs.session);
    console.log(`idor: ${named.length} routes naming an account or object, ${tally.count('idor:')} attempts`);
    expect(tally.breaches.filter((a) => a.attack.startsWith('idor:'))).toEqual([]);
  }, 120_000);

  it('refuses an analyst every write of their account (403), and changes nothing', async () => {
    const o1 = await signIn(owner1());
    const analyst = await signIn(p.deps.demo!.fixtures.analyst_login);
    const mine = await objectsOf(o1, ACC1(), 'someone.invited@victim.example');
    const writes = ops.filter((op) => isWrite(op) && op.pathParams.includes('account'));
    expect(writes.length).toBeGreaterThanOrEqual(15);
    const before = await fingerprint();
    for (const op of writes) {
      const res = await send(op.method, pathFor(op, mine), { cookie: analyst.cookie, csrf: analyst.csrf, body: harmfulBody(op), ip: analyst.ip });
      tally.record(`analyst: ${op.method} ${op.path}`, res.status === 403 && refused(res, 403, res.body?.code) && res.body.code !== 'csrf_failed', brief(res));
    }
    expect(changedCollections(before, await fingerprint())).toEqual([]);
    console.log(`analyst: ${writes.length} writes of an account`);
    expect(tally.breaches.filter((a) => a.attack.startsWith('analyst:'))).toEqual([]);
  }, 60_000);
});
