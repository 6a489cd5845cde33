/**
 * Products, Programs and Links in the portal through HTTP, against the real engine: each answer is
 * the publisher API's for the same account (the same use case, called as the API's route calls it
 * with the account's live key), an analyst reads but cannot apply or create links, bad input is a
 * 400 in the one error shape, and another account is 404 whatever the call.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCredential, type Principal } from '@cw/auth';
import { lookupProductsPage, searchProductsPage } from '@cw/catalog';
import { linkTotals } from '@cw/reports';
import { listLinks } from '@cw/links';
import { joinablePrograms, listPrograms } from '@cw/programs';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let http: ReturnType<ReturnType<typeof createApp>['callback']>;
let webDir: string;
let origin: string;

beforeAll(async () => {
  webDir = mkdtempSync(join(tmpdir(), 'portal-catalog-web-'));
  writeFileSync(join(webDir, 'index.html'), '<!doctype html><title>Portal</title>');
  deps = await createTestDeps({
    seedProducts: 60,
    env: { TRUST_PROXY_HOPS: '1', RATELIMIT_IP_PER_MIN: '100000', RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '100000', RATELIMIT_SIGNIN_EMAIL_PER_MIN: '100000' },
  });
  http = createApp(deps, { webDir }).callback();
  origin = new URL(deps.config.portalUrl).origin;
}, 60_000);
afterAll(async () => {
  await deps?.close();
  rmSync(webDir, { recursive: true, force: true });
});

const API = '/portal/api';
let addressNo = 0;

/** A signed-in browser: its cookie jar, the portal's Origin and the session's CSRF token on writes. */
async function signedIn(who: { email: string; password: string }) {
  const agent = request.agent(http);
  const ip = `203.0.113.${++addressNo}`;
  const res = await agent.post(`${API}/signin`).set('Origin', origin).set('X-Forwarded-For', ip).send(who);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const csrf = res.body.csrf_token as string;
  return {
    get: (path: string, query: Record<string, string | number> = {}) => agent.get(`${API}${path}`).query(query).set('X-Forwarded-For', ip),
    post: (path: string, body: object, headers: Record<string, string> = {}) =>
      agent.post(`${API}${path}`).set('Origin', origin).set('X-CSRF-Token', csrf).set('X-Forwarded-For', ip).set(headers).send(body),
  };
}

const fx = () => deps.demo!.fixtures;
const ACC = () => deps.demo!.publishers[0]!.account_id;
const OTHER = () => deps.demo!.publishers[1]!.account_id;
const owner = () => signedIn(deps.demo!.publishers[0]!.portal_login);
const analyst = () => signedIn(fx().analyst_login);

/** The caller the publisher API sees for the account's live key. */
const apiCaller = (): Promise<Principal> => verifyCredential(deps.data.auth, deps.demo!.publishers[0]!.keys.live, ['api_key']);
/** JSON as it went over the wire (dates as strings). */
const wire = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

describe('products', () => {
  it('searches with the API’s filters and answers what the API answers, every product with the account’s tracked link', async () => {
    const b = await owner();
    const res = await b.get(`/accounts/${ACC()}/products`, { country: fx().country, limit: 5 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.products.length).toBeGreaterThan(0);
    const api = await searchProductsPage(deps, await apiCaller(), { country: fx().country, limit: 5, offset: 0, group: 0 });
    expect(res.text).toBe(api);
    for (const p of res.body.products) expect(p.url).toMatch(new RegExp(`^${deps.config.trackingUrl}/c/`));

    // Every filter the API takes, at once.
    const first = res.body.products[0];
    const filters = {
      q: first.title.slice(0, 12),
      country: first.country,
      merchant: first.merchant.id,
      min_price: '0',
      max_price: '99999',
      currency: first.currency,
      group: 0 as const,
      limit: 3,
      offset: 0,
    };
    const filtered = await b.get(`/accounts/${ACC()}/products`, filters);
    expect(filtered.status, JSON.stringify(filtered.body)).toBe(200);
    expect(filtered.body.products.map((p: { id: string }) => p.id)).toContain(first.id);
    expect(filtered.text).toBe(await searchProductsPage(deps, await apiCaller(), filters));

    const grouped = await b.get(`/accounts/${ACC()}/products`, { q: fx().group_query, group: 1 });
    expect(grouped.status).toBe(200);
    expect(grouped.body.total).toEqual(expect.any(Number));
  });

  it('looks products up by GTIN as the API does, a leading zero kept', async () => {
    const b = await owner();
    const gtins = `${fx().gtin_leading_zero},${fx().gtin_out_of_stock}`;
    const res = await b.get(`/accounts/${ACC()}/products/lookup`, { gtins });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.products.map((p: { gtin: string }) => p.gtin)).toContain(fx().gtin_leading_zero);
    expect(res.text).toBe(await lookupProductsPage(deps, await apiCaller(), { gtins, limit: 20, offset: 0 }));
  });

  it('refuses bad input with a 400 in the one error shape, naming the parameter', async () => {
    const b = await owner();
    const bad = await b.get(`/accounts/${ACC()}/products`, { q: 'ab' });
    expectErrorShape(bad, 400, 'invalid_parameter');
    expect(bad.body.errors.map((e: { param: string }) => e.param)).toContain('q');
    expectErrorShape(await b.get(`/accounts/${ACC()}/products`, { country: 'DE', sort: 'price' }), 400);
    expectErrorShape(await b.get(`/accounts/${ACC()}/products`, { country: 'DE', min_price: '10', max_price: '5' }), 400, 'invalid_parameter');
    expectErrorShape(await b.get(`/accounts/${ACC()}/products?country=DE&country=FR`), 400, 'repeated_parameter');
    const gtin = await b.get(`/accounts/${ACC()}/products/lookup`, { gtins: '4006381333931,1234567890123' });
    expectErrorShape(gtin, 400, 'invalid_gtin');
    expect(gtin.body.detail).toContain('1234567890123');
  });
});

describe('programs', () => {
  it('lists the approved and the joinable programs with their terms, as the API does', async () => {
    const b = await analyst();
    const mine = await b.get(`/accounts/${ACC()}/programs`);
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual(wire(await listPrograms(deps, await apiCaller(), { include_available: false, page: 1, page_size: 50 })));
    expect(mine.body.data.map((p: { id: number }) => p.id)).toContain(fx().approved_program_id);
    expect(mine.body.data[0]).toMatchObject({ relationship: expect.any(String), commission: expect.any(String), cookie_days: expect.any(Number) });

    const joinable = await b.get(`/accounts/${ACC()}/programs/joinable`, { page_size: 100 });
    expect(joinable.status).toBe(200);
    expect(joinable.body).toEqual(wire(await joinablePrograms(deps, await apiCaller(), { page: 1, page_size: 100 })));
    expect(joinable.body.data.map((p: { id: number }) => p.id)).toContain(fx().joinable_program_id);
    expect(joinable.body.data.every((p: { relationship: string }) => p.relationship === 'available')).toBe(true);

    expectErrorShape(await b.get(`/accounts/${ACC()}/programs`, { page_size: 5000 }), 400, 'invalid_parameter');
  });

  it('lets an owner apply (idempotent: the same answer again) and refuses an analyst', async () => {
    const a = await analyst();
    const refused = await a.post(`/accounts/${ACC()}/programs/apply`, { program_id: fx().joinable_program_id }, { 'Idempotency-Key': 'analyst-apply-1' });
    expectErrorShape(refused, 403, 'role_not_allowed');
    expect(refused.body.detail).toContain('analyst');

    const b = await owner();
    const applied = await b.post(`/accounts/${ACC()}/programs/apply`, { program_id: fx().joinable_program_id }, { 'Idempotency-Key': 'apply-1008' });
    // The demo's joinable program approves at once.
    expect(applied.status, JSON.stringify(applied.body)).toBe(201);
    expect(applied.body).toMatchObject({ program_id: fx().joinable_program_id, status: 'approved', created: true });
    const replay = await b.post(`/accounts/${ACC()}/programs/apply`, { program_id: fx().joinable_program_id }, { 'Idempotency-Key': 'apply-1008' });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(applied.body);
    const again = await b.post(`/accounts/${ACC()}/programs/apply`, { program_id: fx().joinable_program_id });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'approved', created: false });
    // The analyst's refusal was not stored under its key: the owner's role decides afresh.
    expectErrorShape(
      await b.post(`/accounts/${ACC()}/programs/apply`, { program_id: 999_999 }, { 'Idempotency-Key': 'apply-1008' }),
      409,
      'idempotency_key_reused',
    );

    expectErrorShape(await b.post(`/accounts/${ACC()}/programs/apply`, { program_id: 'ten' }), 400, 'invalid_parameter');
    expectErrorShape(await b.post(`/accounts/${ACC()}/programs/apply`, { program_id: 999_999 }), 404, 'not_found');
    const joinable = await b.get(`/accounts/${ACC()}/programs/joinable`, { page_size: 100 });
    expect(joinable.body.data.map((p: { id: number }) => p.id)).not.toContain(fx().joinable_program_id);
  });
});

describe('links', () => {
  it('creates a link (201, then 200 for the same link) and lists it with the API’s filters, as the API does', async () => {
    const b = await owner();
    const input = { program_id: fx().approved_program_id, subid: 'portal-int-1', landing_url: fx().approved_program_landing_url };
    const created = await b.post(`/accounts/${ACC()}/links`, input);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ program_id: fx().approved_program_id, subid: 'portal-int-1', url: expect.stringMatching(/\/c\/\S+$/) });
    const existing = await b.post(`/accounts/${ACC()}/links`, input);
    expect(existing.status).toBe(200);
    expect(existing.body.id).toBe(created.body.id);

    const list = await b.get(`/accounts/${ACC()}/links`, { subid: 'portal-int-1' });
    expect(list.status).toBe(200);
    expect(list.body.data.map((l: { id: string }) => l.id)).toEqual([created.body.id]);
    expect(list.body).toEqual(wire(await listLinks(deps, await apiCaller(), { subid: 'portal-int-1', page: 1, page_size: 50 })));
    const byCampaign = await b.get(`/accounts/${ACC()}/links`, { campaign_id: String(created.body.campaign_id), page_size: 2 });
    expect(byCampaign.body).toEqual(wire(await listLinks(deps, await apiCaller(), { campaign_id: String(created.body.campaign_id), page: 1, page_size: 2 })));

    const bad = await b.post(`/accounts/${ACC()}/links`, { program_id: fx().approved_program_id, subid: 'has spaces' });
    expectErrorShape(bad, 400, 'invalid_parameter');
    expect(bad.body.errors.map((e: { param: string }) => e.param).join()).toContain('subid');
    expectErrorShape(await b.get(`/accounts/${ACC()}/links`, { subid: 'a b' }), 400, 'invalid_parameter');
  });

  it('creates a batch where each line reports its own outcome, one bad line among good ones', async () => {
    const b = await owner();
    const res = await b.post(`/accounts/${ACC()}/links/batch`, {
      links: [
        { program_id: fx().approved_program_id, subid: 'batch-a' },
        { program_id: fx().approved_program_id, subid: 'batch a' },
        { program_id: 999_999, subid: 'batch-c' },
        { program_id: fx().approved_program_id, subid: 'batch-a' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['created', 'error', 'error', 'existing']);
    expect(res.body.results[1].error.code).toBe('invalid_parameter');
    expect(res.body.results[2].error.code).toBe('not_found');
    expect(res.body).toMatchObject({ created: 1, existing: 1, errors: 2 });
    expectErrorShape(await b.post(`/accounts/${ACC()}/links/batch`, { links: [] }), 400, 'invalid_parameter');
  });

  it('lets an analyst read links but not create them, singly or in a batch', async () => {
    const a = await analyst();
    expect((await a.get(`/accounts/${ACC()}/links`)).status).toBe(200);
    const one = await a.post(`/accounts/${ACC()}/links`, { program_id: fx().approved_program_id, subid: 'analyst' });
    expectErrorShape(one, 403, 'role_not_allowed');
    expectErrorShape(await a.post(`/accounts/${ACC()}/links/batch`, { links: [{ program_id: fx().approved_program_id }] }), 403, 'role_not_allowed');
    const list = await a.get(`/accounts/${ACC()}/links`, { subid: 'analyst' });
    expect(list.body.data).toEqual([]);
  });
});

describe('clicks and sales of links', () => {
  it('answers each link’s clicks, conversions and commission as the linkTotals use case does, for a range too', async () => {
    const b = await analyst();
    const links = await b.get(`/accounts/${ACC()}/links`, { page_size: 10 });
    expect(links.body.data.length).toBeGreaterThan(0);
    const ids = links.body.data.map((l: { id: string }) => l.id).join(',');
    const all = await b.get(`/accounts/${ACC()}/links/totals`, { ids });
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.data.map((t: { link_id: string }) => t.link_id)).toEqual(ids.split(','));
    expect(all.body.data[0]).toMatchObject({ clicks: expect.any(Number), conversions: expect.any(Number), commission: expect.any(Object) });
    expect(all.body).toEqual(wire(await linkTotals(deps, await apiCaller(), { ids })));
    const range = { ids, date_from: '2024-01-01', date_to: '2024-01-31', timezone: 'America/New_York' };
    const ranged = await b.get(`/accounts/${ACC()}/links/totals`, range);
    expect(ranged.status).toBe(200);
    expect(ranged.body).toEqual(wire(await linkTotals(deps, await apiCaller(), range)));
  });

  it('refuses more than 100 ids, a bad date and unknown parameters with a 400', async () => {
    const b = await owner();
    const many = Array.from({ length: 101 }, (_, i) => `l${i}`).join(',');
    expectErrorShape(await b.get(`/accounts/${ACC()}/links/totals`, { ids: many }), 400, 'invalid_parameter');
    expectErrorShape(await b.get(`/accounts/${ACC()}/links/totals`, { ids: 'a', date_from: '31/01/2024' }), 400, 'invalid_parameter');
    expectErrorShape(await b.get(`/accounts/${ACC()}/links/totals`, { ids: 'a', sort: 'clicks' }), 400);
    expectErrorShape(await b.get(`/accounts/${ACC()}/links/totals`), 400, 'invalid_parameter');
  });
});

describe('another account', () => {
  it('is 404 on every catalog call, reads and writes alike, and nothing is created there', async () => {
    const b = await owner();
    const other = OTHER();
    for (const path of ['products?country=DE', 'products/lookup?gtins=4006381333931', 'programs', 'programs/joinable', 'links', 'links/totals?ids=x'])
      expectErrorShape(await b.get(`/accounts/${other}/${path}`), 404, 'not_found');
    expectErrorShape(await b.post(`/accounts/${other}/programs/apply`, { program_id: fx().joinable_program_id }), 404, 'not_found');
    expectErrorShape(await b.post(`/accounts/${other}/links`, { program_id: fx().approved_program_id, subid: 'intruder' }), 404, 'not_found');
    expectErrorShape(
      await b.post(`/accounts/${other}/links/batch`, { links: [{ program_id: fx().approved_program_id, subid: 'intruder' }] }),
      404,
      'not_found',
    );
    const theirs = await verifyCredential(deps.data.auth, deps.demo!.publishers[1]!.keys.live, ['api_key']);
    const listed = await listLinks(deps, theirs, { subid: 'intruder', page: 1, page_size: 10 });
    expect(listed.data).toEqual([]);
  });
});
