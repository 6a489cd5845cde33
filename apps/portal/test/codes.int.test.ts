/**
 * Personal coupon codes through the portal's API (the Programs page's calls) against the real
 * engine: a program's rules; an owner's request, replayed under its Idempotency-Key and answered
 * again (200) when asked twice; a code that breaks the rules or that another publisher holds is a
 * 4xx naming `code` and nobody; a program not approved is 403; an analyst reads but cannot ask;
 * another account's codes are 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape } from '@cw-tools/testing';
import { portalBrowser, startPortal, type PortalBrowser, type PortalHarness } from './support/portal-harness';

let p: PortalHarness;
const suffix = Date.now().toString(36).toUpperCase().slice(-6);

beforeAll(async () => {
  p = await startPortal({ RATELIMIT_PORTAL_PER_MIN: '100000' });
}, 60_000);
afterAll(async () => {
  await p?.close();
});

async function signedIn(login: { email: string; password: string }): Promise<PortalBrowser> {
  const b = portalBrowser(p);
  await b.signIn(login.email, login.password);
  return b;
}
const ACC1 = () => p.deps.demo!.publishers[0]!.account_id;
const ACC2 = () => p.deps.demo!.publishers[1]!.account_id;
const owner1 = () => signedIn(p.deps.demo!.publishers[0]!.portal_login);
const owner2 = () => signedIn(p.deps.demo!.publishers[1]!.portal_login);

describe('coupon codes in the portal', () => {
  it("tells a program's rules: the approved demo program's codes are active at once, another's are reviewed; an unknown program is 404", async () => {
    const b = await owner1();
    const auto = await b.get(`/accounts/${ACC1()}/code-rules?program_id=1001`);
    expect(auto.status).toBe(200);
    expect(auto.body).toEqual({ program_id: 1001, prefix: '', min_length: 6, max_length: 20, review: 'auto' });
    expect((await b.get(`/accounts/${ACC1()}/code-rules?program_id=1002`)).body).toMatchObject({ review: 'operator' });
    expectErrorShape(await b.get(`/accounts/${ACC1()}/code-rules?program_id=999999`), 404, 'not_found');
    expectErrorShape(await b.get(`/accounts/${ACC1()}/code-rules`), 400, 'invalid_parameter');
  });

  it('requests a code once: the same Idempotency-Key replays the answer, the same code again answers it with 200, and it is listed', async () => {
    const b = await owner1();
    const code = `PORTAL${suffix}`;
    const first = await b.post(`/accounts/${ACC1()}/codes`, { program_id: 1001, code: code.toLowerCase() }).set('Idempotency-Key', `codes-${suffix}`);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ code, program_id: 1001, status: 'active' });
    const replay = await b.post(`/accounts/${ACC1()}/codes`, { program_id: 1001, code: code.toLowerCase() }).set('Idempotency-Key', `codes-${suffix}`);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const again = await b.post(`/accounts/${ACC1()}/codes`, { program_id: 1001, code });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const listed = await b.get(`/accounts/${ACC1()}/codes?program_id=1001`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((c: { id: string }) => c.id)).toContain(first.body.id);
    // One made under the rules of a reviewed program waits for review.
    const made = await b.post(`/accounts/${ACC1()}/codes`, { program_id: 1002 });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ program_id: 1002, status: 'pending_review', code: expect.stringMatching(/^[A-Z0-9]{6,20}$/) });
  });

  it("refuses a code that breaks the rules (400), another publisher's code (409, naming nobody), and a program not approved (403)", async () => {
    const theirs = `THEIRS${suffix}`;
    const b2 = await owner2();
    expect((await b2.post(`/accounts/${ACC2()}/codes`, { program_id: 1001, code: theirs })).status).toBe(201);
    const b = await owner1();
    const bad = await b.post(`/accounts/${ACC1()}/codes`, { program_id: 1001, code: 'no-way' });
    expectErrorShape(bad, 400, 'invalid_parameter');
    expect(bad.body.errors).toEqual([{ param: 'code', detail: 'must be letters and digits only' }]);
    const short = await b.post(`/accounts/${ACC1()}/codes`, { program_id: 1001, code: 'AB1' });
    expect(short.body.errors).toEqual([{ param: 'code', detail: 'must be 6 to 20 characters long' }]);
    const taken = await b.post(`/accounts/${ACC1()}/codes`, { program_id: 1001, code: theirs.toLowerCase() });
    expectErrorShape(taken, 409, 'code_taken');
    expect(taken.body.errors).toEqual([{ param: 'code', detail: 'is taken at this merchant: choose another one' }]);
    expect(taken.text).not.toContain(ACC2());
    expectErrorShape(await b.post(`/accounts/${ACC1()}/codes`, { program_id: 1012 }), 403, 'program_not_approved');
    expectErrorShape(await b.post(`/accounts/${ACC1()}/codes`, { program_id: 1001, code: `X${suffix}X`, extra: 1 }), 400);
  });

  it("lets an analyst read the account's codes but not ask for one (403), and answers 404 for another account's codes", async () => {
    const analyst = await signedIn(p.deps.demo!.fixtures.analyst_login);
    expect((await analyst.get(`/accounts/${ACC1()}/codes`)).status).toBe(200);
    expectErrorShape(await analyst.post(`/accounts/${ACC1()}/codes`, { program_id: 1001, code: `ANALYST${suffix}` }), 403, 'role_not_allowed');
    expect(await p.deps.models.Code.countDocuments({ code: `ANALYST${suffix}` })).toBe(0);
    const b = await owner1();
    expectErrorShape(await b.get(`/accounts/${ACC2()}/codes`), 404);
    expectErrorShape(await b.post(`/accounts/${ACC2()}/codes`, { program_id: 1001, code: `CROSS${suffix}` }), 404);
  });
});
