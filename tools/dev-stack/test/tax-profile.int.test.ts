/**
 * The tax profile and its hold end to end on the local platform, through HTTP and the operator CLI:
 * publishers[0]'s owner moves to a US bank account (ACH, paid in USD) and is refused payment (409
 * tax_profile_incomplete); a run holds the payout with that reason and will not release it; the
 * owner sets a W-9 (the password asked again; an analyst refused), sees it masked, is mailed, and
 * the security log has it masked; then the payout is released, approved by another admin, paid by
 * the sandbox bank, and `tax:year-end` writes the 1099-NEC line (TIN in the clear) and the per-
 * country totals. No answer of the publisher API ever carries a tax field.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '@cw/db';
import { runCli } from '@cw-tools/admin-cli';
import { startPlatform, type Platform } from './support/test-platform';

let platform: Platform;
let mailDir: string;
const dir = mkdtempSync(join(tmpdir(), 'tax-profile-'));

const ACH = { type: 'ach', holder_name: 'Trailhead Reviews LLC', routing_number: '011000015', account_number: '123456789012', account_type: 'checking' };
const TIN = '912-70-4321';
const W9 = {
  kind: 'individual',
  legal_name: 'Dana Q. Whitfield',
  address: { lines: ['742 Evergreen Terrace', 'Apt 3'], city: 'Springfield', postal_code: '62704', region: 'IL', country: 'US' },
  country: 'US',
  w9: { tin_kind: 'ssn', tin: TIN },
  signature: 'dana q. whitfield',
};
/** What no publisher API answer may hold: the TIN in any form, the street. */
const SECRETS = ['912-70-4321', '912704321', '742 Evergreen', 'Evergreen Terrace'];
/** No digit of the TIN but its last four, in any spelling (not '912' alone: a random id may hold it). */
const expectNoTin = (text: string) => {
  for (const part of ['912-70', '70-4321', '912704321', '704321']) expect(text).not.toContain(part);
};

beforeAll(async () => {
  mailDir = mkdtempSync(join(tmpdir(), 'tax-profile-mail-'));
  platform = await startPlatform({
    env: {
      PORT: '0',
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      RATELIMIT_PORTAL_PER_MIN: '100000',
      RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '100000',
      RATELIMIT_SIGNIN_EMAIL_PER_MIN: '100000',
      // The 72-hour hold after a method change is payout-runs.int.test.ts's; here only the tax hold counts.
      PAYOUT_METHOD_HOLD_HOURS: '0',
    },
    seedProducts: 50,
    credentialsPath: null,
    mailDir,
  });
}, 180_000);
afterAll(async () => {
  await platform?.stop();
  rmSync(dir, { recursive: true, force: true });
  if (mailDir) rmSync(mailDir, { recursive: true, force: true });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, read field by field in assertions
type Json = Record<string, any>;

const creds = () => platform.credentials!;
const account = () => creds().publishers[0]!.account_id;

/** A signed-in person of the portal: the session cookie, the CSRF token, the portal's Origin on writes. */
async function session(login: { email: string; password: string }) {
  const res = await fetch(`${platform.url}/portal/api/signin`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: platform.url },
    body: JSON.stringify(login),
  });
  expect(res.status).toBe(200);
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = ((await res.json()) as { csrf_token: string }).csrf_token;
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${platform.url}/portal/api${path}`, {
      method,
      headers: { Cookie: cookie, 'X-CSRF-Token': csrf, Origin: platform.url, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, text, body: text ? (JSON.parse(text) as Json) : {} };
  };
  return { call, reauth: () => call('POST', '/reauth', { password: login.password }) };
}

const api = async (path: string) => {
  const r = await fetch(`${platform.url}/api/v1/publisher${path}`, { headers: { 'X-API-Key': creds().publishers[0]!.keys.live } });
  return { status: r.status, text: await r.text() };
};

const cli = async (email: string, ...args: string[]) => {
  const r = await runCli([...args, '--json'], { MONGODB_URI: platform.mongoUri, OPERATOR_EMAIL: email, PAYOUT_METHOD_HOLD_HOURS: '0' }, dir);
  return { code: r.code, body: JSON.parse(r.out) as Json };
};

const expectNoTaxField = (text: string) => {
  for (const s of SECRETS) expect(text, `an answer shows ${s}`).not.toContain(s);
  expect(text).not.toMatch(/"(tin|tax|legal_name|vat_id|w9|w8)"/);
};

let payoutId = '';
let runId = '';

describe('a US payee without a tax profile', () => {
  it('is refused payment (409 tax_profile_incomplete) and the portal says why', async () => {
    const owner = await session(creds().publishers[0]!.portal_login);
    expect((await owner.reauth()).status).toBe(200);
    const saved = await owner.call('PUT', `/accounts/${account()}/payout-settings`, { method: ACH, currency: 'USD', threshold: '25.00' });
    expect(saved.status, saved.text).toBe(200);
    const tax = await owner.call('GET', `/accounts/${account()}/tax-profile`);
    expect(tax.body).toEqual({ profile: null, payee_country: 'US', required: true, payouts_held: true });
    const balance = await owner.call('GET', `/accounts/${account()}/balance`);
    expect(balance.body.next_payout.holds).toContain('tax_profile_incomplete');
    expect(balance.body.next_payout.request_refused.code).toBe('tax_profile_incomplete');
    const refused = await owner.call('POST', `/accounts/${account()}/payouts`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'tax_profile_incomplete', detail: expect.stringContaining('tax profile') });
    const viaApi = await fetch(`${platform.url}/api/v1/publisher/payouts/`, {
      method: 'POST',
      headers: { 'X-API-Key': creds().publishers[0]!.keys.live, 'Idempotency-Key': 'tax-hold-1' },
    });
    expect(viaApi.status).toBe(409);
    expect(((await viaApi.json()) as { code: string }).code).toBe('tax_profile_incomplete');
  }, 60_000);

  it('is held in a payout run with that reason, shown to the publisher, and not released while the profile is missing', async () => {
    const created = await cli('alice@network.example', 'payout-run:create');
    expect(created.code, JSON.stringify(created.body)).toBe(0);
    runId = created.body.id;
    const shown = await cli('alice@network.example', 'payout-run:show', '--run', runId);
    const held = (shown.body.payouts as Array<Json>).find((p) => p.publisher_id === account())!;
    expect(held).toMatchObject({ status: 'held', holds: ['tax_profile_incomplete'], currency: 'USD', rail: 'csv' });
    payoutId = held.id;
    const mine = JSON.parse((await api('/payouts/')).text) as { data: Array<Json> };
    expect(mine.data.find((p) => p.id === payoutId)).toMatchObject({ status: 'pending', hold: { reasons: ['tax_profile_incomplete'] } });
    const release = await cli('alice@network.example', 'payout:release', '--payout', payoutId);
    expect(release.code).not.toBe(0);
    expect(release.body.error).toContain('no tax profile');
  }, 60_000);
});

describe('the tax profile', () => {
  it('is set by the owner only, with the password given again, and shown masked', async () => {
    const analyst = await session(creds().fixtures.analyst_login);
    expect((await analyst.reauth()).status).toBe(200);
    const notOwner = await analyst.call('PUT', `/accounts/${account()}/tax-profile`, W9);
    expect(notOwner.status).toBe(403);
    expect(notOwner.body.code).toBe('role_not_allowed');
    expect((await analyst.call('GET', `/accounts/${account()}/tax-profile`)).status).toBe(403);

    const owner = await session(creds().publishers[0]!.portal_login);
    // The password was given more than 10 minutes ago (as far as the server knows).
    const db = await connectDatabase(platform.mongoUri);
    await db.connection.collection('portal_sessions').updateMany({}, { $set: { reauthenticated_until: new Date(Date.now() - 1000) } });
    await db.close();
    const noPassword = await owner.call('PUT', `/accounts/${account()}/tax-profile`, W9);
    expect(noPassword.status).toBe(403);
    expect(noPassword.body.code).toBe('reauthentication_required');
    expect((await owner.reauth()).status).toBe(200);
    const bad = await owner.call('PUT', `/accounts/${account()}/tax-profile`, { ...W9, signature: 'Someone Else' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ param: 'signature' })]);
    const badTin = await owner.call('PUT', `/accounts/${account()}/tax-profile`, { ...W9, w9: { tin_kind: 'ssn', tin: '123-00-4567' } });
    expect(badTin.status).toBe(400);
    expect(badTin.body.errors).toEqual([expect.objectContaining({ param: 'w9.tin' })]);
    expect(badTin.text).not.toContain('4567');

    const saved = await owner.call('PUT', `/accounts/${account()}/tax-profile`, W9);
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toMatchObject({
      profile: { kind: 'individual', legal_name: 'Dana Q. Whitfield', country: 'US', form: 'w9', tin_kind: 'ssn', tin: '•••-••-4321', vat_id: null },
      payee_country: 'US',
      required: true,
      payouts_held: false,
    });
    expectNoTin(saved.text);
    expectNoTin((await owner.call('GET', `/accounts/${account()}/tax-profile`)).text);

    // In the security log, masked; the owner is mailed.
    const log = await owner.call('GET', `/accounts/${account()}/security-log`);
    const event = (log.body.data as Array<Json>).find((e) => e.type === 'tax_profile_changed');
    expect(event).toBeDefined();
    expectNoTin(JSON.stringify(event));
    await expect
      .poll(() => readdirSync(mailDir).some((n) => readFileSync(join(mailDir, n), 'utf8').includes('Your tax details were changed')), { timeout: 10_000 })
      .toBe(true);
  }, 60_000);

  it('is never in an answer of the publisher API', async () => {
    for (const path of ['/payment-status/', '/payouts/', `/payouts/${payoutId}`, '/balance/transactions/', '/me/']) {
      const res = await api(path);
      expect(res.status, `${path}: ${res.text}`).toBeLessThan(500);
      expectNoTaxField(res.text);
    }
  });
});

describe('once the profile is there', () => {
  it('the held payout is released, approved by another admin and paid; the year-end files list it', async () => {
    expect((await cli('alice@network.example', 'payout:release', '--payout', payoutId)).body).toMatchObject({ status: 'pending' });
    expect((await cli('bob@network.example', 'payout-run:approve', '--run', runId)).code).toBe(0);
    const settled = await cli('bob@network.example', 'payout-run:settle', '--run', runId, '--sandbox');
    expect(settled.code, JSON.stringify(settled.body)).toBe(0);
    const paid = JSON.parse((await api(`/payouts/${payoutId}`)).text) as { status: string; amount: string; currency: string };
    expect(paid).toMatchObject({ status: 'paid', currency: 'USD' });

    const year = new Date().getUTCFullYear();
    const out = join(dir, 'year-end');
    const exported = await cli('alice@network.example', 'tax:year-end', '--year', String(year), '--out', out);
    expect(exported.code, JSON.stringify(exported.body)).toBe(0);
    expect(exported.body).toMatchObject({ year, us_payees: 1, missing_tin: 0 });
    expect(readdirSync(out).sort()).toEqual([`1099-nec-${year}.csv`, `payouts-by-country-${year}.csv`]);
    expect(statSync(join(out, `1099-nec-${year}.csv`)).mode & 0o077).toBe(0);

    const [header, ...rows] = readFileSync(join(out, `1099-nec-${year}.csv`), 'utf8')
      .trimEnd()
      .split('\r\n');
    expect(header).toBe(
      'tax_year,payer_name,payer_tin,payer_address,publisher_id,recipient_name,recipient_tin_kind,recipient_tin,recipient_address,recipient_city,recipient_state,recipient_zip,box1_nonemployee_compensation_usd,payouts,currencies,paid_through_paypal_usd,threshold_usd,at_or_above_threshold,missing_tin',
    );
    expect(rows).toHaveLength(1);
    const threshold = year >= 2026 ? '2000.00' : '600.00';
    const flag = Number(paid.amount) >= Number(threshold) ? 'yes' : 'no';
    expect(rows[0]).toBe(
      `${year},CW Affiliate Network GmbH,,"Musterstrasse 1, 10115 Berlin, Germany",${account()},Dana Q. Whitfield,ssn,${TIN},"742 Evergreen Terrace, Apt 3",Springfield,IL,62704,${paid.amount},1,USD,0.00,${threshold},${flag},no`,
    );

    const byCountry = readFileSync(join(out, `payouts-by-country-${year}.csv`), 'utf8')
      .trimEnd()
      .split('\r\n');
    expect(byCountry[0]).toBe('country,currency,payees,payouts,total');
    expect(byCountry).toContain(`US,USD,1,1,${paid.amount}`);

    // The operator's act is audited, with counts and never a TIN.
    const audit = await cli('alice@network.example', 'audit:list', '--action', 'tax_year_end_exported');
    expect(audit.code).toBe(0);
    expect(JSON.stringify(audit.body)).toContain('tax_year_end_exported');
    expect(JSON.stringify(audit.body)).not.toContain('4321');
  }, 120_000);
});
