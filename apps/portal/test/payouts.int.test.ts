/**
 * Money out in the portal through HTTP against the real engine: payout settings (the method shown
 * only as type and last 4 in every answer; owners only; the password within 10 minutes), the
 * balance with what "Request payment" would answer, each 409 of the request, and an operator's run
 * from creation to sandbox settlement (its creator refused approval, a second admin approving, the
 * rail files downloaded) ending as paid payouts in the publisher's history; another account's
 * payout is 404 like an unknown one; bad uploads are 4xx, never 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperatorPrincipal } from '@cw/auth';
import { book } from '@cw/ledger';
import { createPerson, operatorGrantRole } from '@cw/people';
import { expectErrorShape } from '@cw-tools/testing';
import { createApp } from '../src/app';
import { PORTAL_API, portalBrowser, startPortal, type PortalBrowser, type PortalHarness } from './support/portal-harness';

let p: PortalHarness;
const ROOT: OperatorPrincipal = { type: 'operator', email: 'root@network.test', role: 'admin' };
const APPROVER = { email: 'ada.approver@network.test', password: 'approver passphrase long enough' };
const SUPPORT = { email: 'sam.payouts-support@network.test', password: 'support passphrase long enough' };

const IBAN = 'DE89 3704 0044 0532 0130 00';
const IBAN_DIGITS = ['DE89370400440532013000', '0532013000', '370400440532', '37040044'];
const HOLDER = 'Trail Notes Publishing GmbH';
const BANK = { type: 'iban', holder_name: HOLDER, iban: IBAN, bic: 'COBADEFFXXX' };
const ACH = { type: 'ach', holder_name: 'Second Shop LLC', routing_number: '011000015', account_number: '123456789012', account_type: 'checking' };
const ACH_DIGITS = ['123456789012', '56789012'];

const ECB_DAILY = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <gesmes:subject>Reference rates</gesmes:subject>
  <gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>
  <Cube><Cube time='2025-06-27'><Cube currency='USD' rate='1.1702'/><Cube currency='GBP' rate='0.85365'/></Cube></Cube>
</gesmes:Envelope>`;

const ACC1 = () => p.deps.demo!.publishers[0]!.account_id;
const ACC2 = () => p.deps.demo!.publishers[1]!.account_id;

beforeAll(async () => {
  // No tax profile needed here (the US ACH payee below): tools/dev-stack/test/tax-profile.int.test.ts covers that hold.
  p = await startPortal({ RATELIMIT_PORTAL_PER_MIN: '100000', PAYOUT_TAX_PROFILE_COUNTRIES: 'none' });
  await createPerson(p.deps, APPROVER, []);
  await createPerson(p.deps, SUPPORT, []);
  await operatorGrantRole(p.deps, ROOT, { email: APPROVER.email, role: 'admin' });
  await operatorGrantRole(p.deps, ROOT, { email: SUPPORT.email, role: 'support' });
}, 60_000);
afterAll(async () => {
  await p?.close();
});

async function signedIn(login: { email: string; password: string }): Promise<PortalBrowser> {
  const b = portalBrowser(p);
  await b.signIn(login.email, login.password);
  return b;
}
const owner1 = () => signedIn(p.deps.demo!.publishers[0]!.portal_login);
const owner2 = () => signedIn(p.deps.demo!.publishers[1]!.portal_login);

/** Approved commission booked in the ledger, as the sales consumer books a merchant's approval. */
const credit = (publisherId: string, amount: string, key: string) =>
  book(p.deps, {
    key,
    publisher_id: publisherId,
    type: 'commission',
    postings: [
      { account: 'publisher', currency: 'EUR', amount },
      { account: 'merchant_commission', currency: 'EUR', amount: `-${amount}` },
    ],
  });

/** The 72 hours after a method change, gone by (as if the owner set it three days ago). */
const holdOver = (publisherId: string) =>
  p.deps.models.PayoutProfile.updateOne({ _id: publisherId }, { $set: { method_changed_at: new Date(Date.now() - 73 * 3_600_000) } });

/** The notification mail jobs queued for a person (the worker sends them; none runs here). */
async function mailJobsFor(email: string, kind: string) {
  const user = await p.deps.models.User.findOne({ email }).lean();
  return p.deps.db.connection
    .collection('jobs')
    .find({ name: 'mail:send', 'data.user_id': String(user!._id), 'data.notice.kind': kind })
    .toArray();
}

/** No answer carries any of these (numbers, holder names). */
function expectNothingOf(res: { text: string }, secrets: string[]) {
  for (const s of secrets) expect(res.text, `an answer shows ${s}`).not.toContain(s);
}

describe('payout settings', () => {
  it('saves a bank account for the owner and shows only its type and last 4, in every answer, with the 72-hour hold', async () => {
    const o = await owner1();
    const before = await o.get(`/accounts/${ACC1()}/payout-settings`);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ currency: 'EUR', minimum_threshold: expect.any(String), schedule: 'monthly' });

    const saved = await o.put(`/accounts/${ACC1()}/payout-settings`, { method: BANK, threshold: '25.00', schedule: 'monthly' });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toMatchObject({ method: { type: 'iban', last4: '3000', failed: false }, currency: 'EUR', threshold: '25.00', schedule: 'monthly' });
    expect(Object.keys(saved.body.method).sort()).toEqual(['failed', 'last4', 'type']);
    const holdUntil = new Date(saved.body.method_hold_until).getTime();
    expect(holdUntil).toBeGreaterThan(Date.now() + 71 * 3_600_000);
    expect(holdUntil).toBeLessThanOrEqual(Date.now() + 72 * 3_600_000);

    const answers = [
      saved,
      await o.get(`/accounts/${ACC1()}/payout-settings`),
      await o.get(`/accounts/${ACC1()}/balance`),
      await o.get(`/accounts/${ACC1()}/payment-status`),
      await o.get(`/accounts/${ACC1()}`),
      await o.get(`/accounts/${ACC1()}/security-log`),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      expectNothingOf(res, [...IBAN_DIGITS, HOLDER, 'COBADEFFXXX']);
    }
    expect(answers[2]!.body.next_payout).toMatchObject({ method: { type: 'iban', last4: '3000' }, holds: ['method_changed'] });
    // The change is in the account's security log, masked.
    expect(JSON.stringify(answers[5]!.body)).toContain('payout_settings_changed');
    // The owner is told: a payout_method_changed mail is queued for the worker (ids only, no number).
    const queued = await mailJobsFor(p.deps.demo!.publishers[0]!.portal_login.email, 'payout_method_changed');
    expect(queued).toHaveLength(1);
    expect(queued[0]!.data).toMatchObject({ account_id: ACC1(), notice: { kind: 'payout_method_changed', publisherId: ACC1() } });
    expectNothingOf({ text: JSON.stringify(queued) }, [...IBAN_DIGITS, HOLDER]);
  });

  it('lets an analyst read the settings but refuses them a change (403 role_not_allowed), changing nothing', async () => {
    const analyst = await signedIn(p.deps.demo!.fixtures.analyst_login);
    const read = await analyst.get(`/accounts/${ACC1()}/payout-settings`);
    expect(read.status).toBe(200);
    expect(read.body.method).toMatchObject({ type: 'iban', last4: '3000' });
    const refused = await analyst.put(`/accounts/${ACC1()}/payout-settings`, { method: { type: 'paypal', email: 'thief@attacker.example' } });
    expectErrorShape(refused, 403, 'role_not_allowed');
    expectErrorShape(await analyst.post(`/accounts/${ACC1()}/payouts`), 403, 'role_not_allowed');
    expect((await analyst.get(`/accounts/${ACC1()}/payout-settings`)).body.method).toMatchObject({ type: 'iban', last4: '3000' });
  });

  it('asks for the password again after 10 minutes (403 reauthentication_required), then saves once it is given', async () => {
    const o = await owner1();
    const me = (await o.get('/session')).body.user.id as string;
    await p.deps.models.PortalSession.updateMany({ user_id: me }, { $set: { reauthenticated_until: new Date(Date.now() - 1000) } });
    expectErrorShape(await o.put(`/accounts/${ACC1()}/payout-settings`, { threshold: '30.00' }), 403, 'reauthentication_required');
    expect((await o.get(`/accounts/${ACC1()}/payout-settings`)).body.threshold).toBe('25.00');
    expect((await o.post('/reauth', { password: p.deps.demo!.publishers[0]!.portal_login.password })).status).toBe(200);
    const saved = await o.put(`/accounts/${ACC1()}/payout-settings`, { threshold: '30.00' });
    expect(saved.status).toBe(200);
    expect(saved.body.threshold).toBe('30.00');
  });

  it('answers 400 naming the field for a threshold below the minimum, a mistyped IBAN and an unknown field', async () => {
    const o = await owner1();
    const low = await o.put(`/accounts/${ACC1()}/payout-settings`, { threshold: '1.00' });
    expectErrorShape(low, 400, 'invalid_parameter');
    expect(low.body.errors).toEqual([expect.objectContaining({ param: 'threshold' })]);
    const typo = await o.put(`/accounts/${ACC1()}/payout-settings`, { method: { ...BANK, iban: 'DE89 3704 0044 0532 0130 01' } });
    expectErrorShape(typo, 400, 'invalid_parameter');
    expect(typo.body.errors).toEqual([expect.objectContaining({ param: 'iban' })]);
    expectNothingOf(typo, ['DE89370400440532013001', '0532013001']);
    expectErrorShape(await o.put(`/accounts/${ACC1()}/payout-settings`, { method: { type: 'cheque' } }), 400, 'invalid_parameter');
    expect((await o.put(`/accounts/${ACC1()}/payout-settings`, { account_number: '1' })).status).toBe(400);
    expectErrorShape(await o.put(`/accounts/${ACC1()}/payout-settings`, {}), 400, 'invalid_parameter');
  });
});

describe('Request payment', () => {
  it('answers no_payout_method, payout_hold, below_threshold, then the payout, then payout_in_progress; the balance says so first each time', async () => {
    const o = await owner2();
    const acc = ACC2();
    const refusal = async () => (await o.get(`/accounts/${acc}/balance`)).body.next_payout.request_refused?.code ?? null;
    const request = () => o.post(`/accounts/${acc}/payouts`);

    expect(await refusal()).toBe('no_payout_method');
    expectErrorShape(await request(), 409, 'no_payout_method');

    const saved = await o.put(`/accounts/${acc}/payout-settings`, { method: ACH, currency: 'USD', schedule: 'on_request', threshold: '900000.00' });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.method).toMatchObject({ type: 'ach', last4: '9012' });
    expect(await refusal()).toBe('payout_hold');
    expectErrorShape(await request(), 409, 'payout_hold');

    await holdOver(acc);
    expect(await refusal()).toBe('below_threshold');
    expectErrorShape(await request(), 409, 'below_threshold');

    // Back to EUR at its minimum, with approved commission above it.
    expect((await o.put(`/accounts/${acc}/payout-settings`, { currency: 'EUR', threshold: '20.00' })).status).toBe(200);
    await credit(acc, '45.00', 'portal-payouts-test:acc2');
    const balance = await o.get(`/accounts/${acc}/balance`);
    expect(balance.body).toMatchObject({
      balances: expect.arrayContaining([{ currency: 'EUR', amount: expect.any(String) }]),
      payment_status: expect.any(Object),
    });
    expect(balance.body.next_payout).toMatchObject({ currency: 'EUR', threshold: '20.00', holds: [], request_refused: null });
    const amount = balance.body.next_payout.amount as string;

    const payout = await request();
    expect(payout.status, payout.text).toBe(201);
    expect(payout.body).toMatchObject({
      id: expect.stringMatching(/^po_[a-f0-9]{24}$/),
      status: 'pending',
      amount,
      currency: 'EUR',
      method: { type: 'ach', last4: '9012' },
    });
    expectNothingOf(payout, ACH_DIGITS);
    expect(await refusal()).toBe('payout_in_progress');
    expectErrorShape(await request(), 409, 'payout_in_progress');

    const list = await o.get(`/accounts/${acc}/payouts`);
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([payout.body.id]);
    expect((await o.get(`/accounts/${acc}/payouts/${payout.body.id}`)).body).toMatchObject({ id: payout.body.id, status: 'pending' });
    for (const res of [list, await o.get(`/accounts/${acc}/payout-settings`), await o.get(`/accounts/${acc}/balance`)]) expectNothingOf(res, ACH_DIGITS);
  });

  it("answers 404 for another account's payout, exactly as for an unknown or malformed id, and shows nothing of it", async () => {
    const theirs = (await (await owner2()).get(`/accounts/${ACC2()}/payouts`)).body.data[0].id as string;
    const o = await owner1();
    const mine = await o.get(`/accounts/${ACC1()}/payouts/${theirs}`);
    expectErrorShape(mine, 404, 'not_found');
    const unknown = await o.get(`/accounts/${ACC1()}/payouts/po_${'0'.repeat(24)}`);
    expectErrorShape(unknown, 404, 'not_found');
    expect(mine.body.detail.replace(theirs, '<id>')).toBe(unknown.body.detail.replace(`po_${'0'.repeat(24)}`, '<id>'));
    expectErrorShape(await o.get(`/accounts/${ACC1()}/payouts/not-a-payout`), 404, 'not_found');
    expectErrorShape(await o.get(`/accounts/${ACC2()}/payouts/${theirs}`), 404, 'not_found');
    expectErrorShape(await o.get(`/accounts/${ACC2()}/payouts`), 404, 'not_found');
    expectErrorShape(await o.post(`/accounts/${ACC2()}/payouts`), 404, 'not_found');
    expectErrorShape(await o.put(`/accounts/${ACC2()}/payout-settings`, { threshold: '50.00' }), 404, 'not_found');
    expect(JSON.stringify(mine.body)).not.toContain(ACC2());
  });
});

describe('a payout run in the operator area', () => {
  it('is created by one admin, refused approval by its creator (403), approved by another, exported, settled by the sandbox bank, and paid in the publisher’s history', async () => {
    const acc = ACC1();
    await holdOver(acc);
    await credit(acc, '60.00', 'portal-payouts-test:acc1');
    const creator = await signedIn(p.deps.demo!.fixtures.operator_login);
    const approver = await signedIn(APPROVER);

    const created = await creator.post('/operator/payout-runs');
    expect(created.status, created.text).toBe(201);
    const runId = created.body._id as string;
    expect(created.body).toMatchObject({
      status: 'draft',
      kind: 'scheduled',
      totals: expect.arrayContaining([expect.objectContaining({ currency: 'EUR', rail: 'sepa' })]),
    });
    const listed = await creator.get('/operator/payout-runs');
    expect(listed.body.data[0]).toMatchObject({ _id: runId });
    const detail = await creator.get(`/operator/payout-runs/${runId}`);
    const mine = detail.body.payouts.find((x: { publisher_id: string }) => x.publisher_id === acc);
    expect(mine).toMatchObject({ status: 'pending', currency: 'EUR', rail: 'sepa', method: { type: 'iban', last4: '3000' } });
    expectNothingOf(detail, [...IBAN_DIGITS, HOLDER]);

    // Files exist only once approved.
    expectErrorShape(await creator.get(`/operator/payout-runs/${runId}/files`), 409, 'invalid_transition');
    const own = await creator.post(`/operator/payout-runs/${runId}/approve`);
    expectErrorShape(own, 403, 'forbidden');
    expect(own.body.detail).toMatch(/another admin/i);
    expect((await approver.get(`/operator/payout-runs/${runId}`)).body.run.status).toBe('draft');

    const approved = await approver.post(`/operator/payout-runs/${runId}/approve`);
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.status).toBe('approved');
    expect((await o1Payout(acc, mine.id)).status).toBe('in_transit');

    const files = await approver.get(`/operator/payout-runs/${runId}/files`);
    expect(files.status).toBe(200);
    const sepa = files.body.data.find((f: { rail: string }) => f.rail === 'sepa');
    expect(sepa).toMatchObject({ name: `${runId}.sepa.xml`, content_type: 'application/xml; charset=utf-8', bytes: expect.any(Number) });
    const download = await approver.get(`/operator/payout-runs/${runId}/files/${encodeURIComponent(sepa.name)}`);
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(download.headers['content-disposition']).toBe(`attachment; filename="${sepa.name}"`);
    expect(download.headers['cache-control']).toBe('no-store');
    expect(download.text).toContain('DE89370400440532013000');
    // The payout's id as a SEPA reference (po.…: the SEPA character set has no underscore).
    expect(download.text).toContain(mine.id.slice(3));
    expectErrorShape(await approver.get(`/operator/payout-runs/${runId}/files/other.csv`), 404, 'not_found');

    const settled = await approver.post(`/operator/payout-runs/${runId}/settle`, { sandbox: true });
    expect(settled.status, settled.text).toBe(200);
    expect(settled.body).toMatchObject({ paid: expect.any(Number), failed: 0, run: { status: 'settled' } });
    expect(settled.body.paid).toBeGreaterThanOrEqual(1);
    // Settling again pays nothing twice.
    expect((await approver.post(`/operator/payout-runs/${runId}/settle`, { sandbox: true })).body).toMatchObject({ paid: 0, failed: 0 });
    // The owner's "payout paid" mail is queued once (the statement is attached when the worker renders it).
    const paidMails = await mailJobsFor(p.deps.demo!.publishers[0]!.portal_login.email, 'payout_paid');
    expect(paidMails.filter((j) => j.data.notice.payoutId === mine.id)).toHaveLength(1);

    // The publisher's history: paid, with its ledger entry.
    const o = await owner1();
    const history = await o.get(`/accounts/${acc}/payouts`);
    expect(history.body.data[0]).toMatchObject({ id: mine.id, status: 'paid', paid_at: expect.any(String), method: { type: 'iban', last4: '3000' } });
    const entries = await o.get(`/accounts/${acc}/balance/transactions?type=payout`);
    // (The demo's history also holds payouts made before the ledger, without a payout id.)
    // One entry per currency the payout took (other currencies converted at the recorded ECB rate, each in the payout's fx).
    const ofPayout = entries.body.data.filter((e: { payout_id: string | null }) => e.payout_id === mine.id);
    const fx = mine.fx as Array<{ from: string; amount: string }>;
    expect(ofPayout.map((e: { currency: string }) => e.currency).sort()).toEqual(['EUR', ...fx.map((f) => f.from)].sort());
    for (const f of fx) expect(ofPayout).toContainEqual(expect.objectContaining({ type: 'payout', currency: f.from, amount: `-${f.amount}` }));
    for (const res of [history, entries, await o.get(`/accounts/${acc}/balance`)]) expectNothingOf(res, [...IBAN_DIGITS, HOLDER]);

    // Each act is in the audit log, naming the person who did it.
    const log = await approver.get(`/operator/audit?actor=${encodeURIComponent(APPROVER.email)}`);
    expect(log.body.data.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(['payout_run_approved', 'payout_run_exported', 'payout_run_settled']),
    );
  });

  it('releases or cancels a held payout (admin), and a support operator reads runs but acts on none', async () => {
    // Account 2's request waits in a run of its own; hold it as the risk checks would.
    const acc = ACC2();
    const pending = await p.deps.models.Payout.findOne({ publisher_id: acc, status: 'pending' }).lean<{ _id: string; run_id: string }>();
    expect(pending).toBeTruthy();
    await p.deps.models.Payout.updateOne({ _id: pending!._id }, { $set: { status: 'held', holds: ['shared_account'] } });
    const support = await signedIn(SUPPORT);
    expect((await support.get('/operator/payout-runs')).status).toBe(200);
    expect((await support.get(`/operator/payout-runs/${pending!.run_id}`)).body.payouts[0]).toMatchObject({
      status: 'held',
      hold: { reasons: ['shared_account'] },
    });
    for (const path of ['/operator/payout-runs', `/operator/payout-runs/${pending!.run_id}/approve`, `/operator/payouts/${pending!._id}/release`])
      expectErrorShape(await support.post(path), 403, 'role_not_allowed');
    expectErrorShape(await support.get(`/operator/payout-runs/${pending!.run_id}/files`), 403, 'role_not_allowed');

    const admin = await signedIn(APPROVER);
    const released = await admin.post(`/operator/payouts/${pending!._id}/release`);
    expect(released.status, released.text).toBe(200);
    expect(released.body).toMatchObject({ id: pending!._id, status: 'pending', publisher_id: acc });
    expectErrorShape(await admin.post(`/operator/payouts/${pending!._id}/cancel`), 404, 'not_found');
    await p.deps.models.Payout.updateOne({ _id: pending!._id }, { $set: { status: 'held' } });
    expect((await admin.post(`/operator/payouts/${pending!._id}/cancel`)).body).toMatchObject({ status: 'canceled' });
    expect((await (await owner2()).get(`/accounts/${acc}/payouts/${pending!._id}`)).body.status).toBe('canceled');
  });

  it('imports ECB rates, and answers 4xx (never 500) for files that are not what they claim, a body over 1 MB, and unknown runs', async () => {
    const admin = await signedIn(APPROVER);
    const fx = await admin.post('/operator/fx', { xml: ECB_DAILY });
    expect(fx.status, fx.text).toBe(200);
    expect(fx.body).toEqual({ days: 1, from: '2025-06-27', to: '2025-06-27' });
    expectErrorShape(await admin.post('/operator/fx', { xml: '<html>not rates</html>' }), 400, 'invalid_parameter');
    expectErrorShape(await admin.post('/operator/fx', { xml: '<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>' }), 400, 'invalid_parameter');
    expectErrorShape(await admin.post('/operator/fx', {}), 400, 'invalid_parameter');

    const run = (await admin.get('/operator/payout-runs')).body.data.find((r: { status: string }) => r.status === 'settled')._id as string;
    for (const body of [
      { file: 'not,a,results,file\n1,2,3,4' },
      { file: '<?xml version="1.0"?><Document><broken></Document>' },
      { file: '<!DOCTYPE lolz [<!ENTITY lol "lol">]><Document>&lol;</Document>' },
      { sandbox: false },
      { sandbox: true, file: 'x' },
      {},
    ])
      expectErrorShape(await admin.post(`/operator/payout-runs/${run}/settle`, body), 400, 'invalid_parameter');
    expectErrorShape(await admin.post(`/operator/payout-runs/${run}/settle`, { file: 'x'.repeat(1_100_000) }), 413, 'payload_too_large');
    expectErrorShape(await admin.post('/operator/payout-runs/prun_nothing/settle', { sandbox: true }), 404, 'not_found');
    expectErrorShape(await admin.post('/operator/payout-runs/prun_nothing/approve'), 404, 'not_found');
    expectErrorShape(await admin.get('/operator/payout-runs/prun_nothing'), 404, 'not_found');
    expectErrorShape(await admin.get('/operator/payout-runs?limit=0'), 400, 'invalid_parameter');
    expectErrorShape(await admin.post('/operator/payouts/po_nothing/release'), 404, 'not_found');
    // A file that is not JSON text is refused before anything runs.
    const raw = await admin.agent
      .post(`${PORTAL_API}/operator/fx`)
      .set('Origin', p.origin)
      .set('X-Forwarded-For', admin.ip)
      .set('Content-Type', 'application/xml')
      .send(ECB_DAILY);
    expect([403, 415]).toContain(raw.status);
  });

  it('refuses the sandbox bank when the portal runs in production (400), leaving the run as it was', async () => {
    const production = createApp({ ...p.deps, config: { ...p.deps.config, nodeEnv: 'production' } }, { webDir: '/nonexistent' });
    const b = portalBrowser({ http: production.callback(), origin: p.origin });
    await b.signIn(APPROVER.email, APPROVER.password);
    const run = (await b.get('/operator/payout-runs')).body.data[0]._id as string;
    const before = (await b.get(`/operator/payout-runs/${run}`)).body.run;
    const res = await b.post(`/operator/payout-runs/${run}/settle`, { sandbox: true });
    expectErrorShape(res, 400, 'invalid_parameter');
    expect(res.body.errors).toEqual([expect.objectContaining({ param: 'sandbox' })]);
    expect((await b.get(`/operator/payout-runs/${run}`)).body.run).toEqual(before);
  });
});

/** A payout as its account's owner reads it. */
async function o1Payout(account: string, id: string) {
  return (await (await owner1()).get(`/accounts/${account}/payouts/${id}`)).body as { status: string };
}
