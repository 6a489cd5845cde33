/** GET /products/ and /products/lookup/ through HTTP, against the engine and the real drivers. */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential, revokeCredential } from '@cw/auth';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let server: ReturnType<ReturnType<typeof createApp>['callback']>;
let key: string;
let otherKey: string;
const B = '/api/v1/publisher';

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 1500, env: { RATELIMIT_PRODUCTS_PER_MIN: '100000' } });
  server = createApp(deps).callback();
  key = deps.demo!.publishers[0].keys.live;
  otherKey = deps.demo!.publishers[1].keys.live;
});
afterAll(async () => deps?.close());

const get = (path: string, k: string | null = key) => {
  const r = request(server).get(`${B}${path}`);
  return k ? r.set('X-API-Key', k) : r;
};
const fx = () => deps.demo!.fixtures;

describe('GET /products/', () => {
  it('returns a page of fresh in-stock products with exactly the documented fields', async () => {
    const res = await get(`/products/?q=${encodeURIComponent(fx().group_query)}&country=DE`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(Object.keys(res.body).sort()).toEqual(['count', 'freshness_hours', 'limit', 'next_offset', 'offset', 'products']);
    expect(res.body).toMatchObject({ limit: 20, offset: 0, next_offset: null, freshness_hours: 48 });
    expect(res.body.count).toBe(res.body.products.length);
    expect(res.body.count).toBe(5); // six sizes, one out of stock
    for (const p of res.body.products) {
      expect(Object.keys(p).sort()).toEqual(['availability', 'country', 'currency', 'gtin', 'id', 'image', 'merchant', 'price', 'title', 'updated_at', 'url']);
      expect(p.availability).toBe('in_stock');
      expect(p.country).toBe('DE');
      expect(p.price).toMatch(/^\d+\.\d{2}$/);
      expect(p.title.toLowerCase()).toContain(fx().group_query);
      expect(p.merchant).toEqual({ id: 501, name: 'Nordlicht Sports' });
      expect(p.url).toMatch(new RegExp(`^${deps.config.trackingUrl}/c/[A-Za-z0-9]{14}$`));
      expect(Date.parse(p.updated_at)).toBeLessThan(Date.now());
    }
    const ids = res.body.products.map((p: { id: string }) => p.id);
    expect(ids).toEqual([...ids].sort());
  });

  it('never exposes merchant source links or financial terms', async () => {
    const res = await get('/products/?country=DE&limit=100');
    const text = JSON.stringify(res.body);
    expect(text).not.toContain('src=feed');
    expect(text).not.toMatch(/commission|source_url|program_id|rate/);
  });

  it('gives each publisher its own tracked link, reused on later calls', async () => {
    const a1 = await get(`/products/?q=${encodeURIComponent(fx().group_query)}&country=DE`);
    const a2 = await get(`/products/?q=${encodeURIComponent(fx().group_query)}&country=DE`);
    const b = await get(`/products/?q=${encodeURIComponent(fx().group_query)}&country=DE`, otherKey);
    expect(a2.body.products.map((p: { url: string }) => p.url)).toEqual(a1.body.products.map((p: { url: string }) => p.url));
    expect(b.body.products.length).toBe(a1.body.products.length);
    const mine = new Set(a1.body.products.map((p: { url: string }) => p.url));
    for (const p of b.body.products) expect(mine.has(p.url)).toBe(false);
    const code = a1.body.products[0].url.split('/c/')[1];
    expect(await deps.models.Link.findById(code).lean()).toMatchObject({ publisher_id: 'pub_trailhead', subid: '', source: 'product' });
  });

  it('pages by offset and next_offset in stable id order', async () => {
    const first = await get('/products/?country=DE&limit=7');
    expect(first.body.next_offset).toBe(7);
    const second = await get('/products/?country=DE&limit=7&offset=7');
    const all = await get('/products/?country=DE&limit=14');
    expect([...first.body.products, ...second.body.products].map((p: { id: string }) => p.id)).toEqual(all.body.products.map((p: { id: string }) => p.id));
  });

  it('searches the account markets when country is omitted, and accepts UK for GB', async () => {
    const res = await get('/products/?q=running&limit=100');
    const countries = new Set(res.body.products.map((p: { country: string }) => p.country));
    for (const c of countries) expect(['DE', 'GB', 'FR', 'NL']).toContain(c);
    const uk = await get('/products/?country=UK&limit=5');
    expect(uk.status).toBe(200);
    expect(uk.body.products.length).toBeGreaterThan(0);
    for (const p of uk.body.products) expect(p.country).toBe('GB');
  });

  it('returns nothing from markets the account is not authorized for', async () => {
    // Program 1014 (US) is approved for this publisher, but US is not one of its feed markets.
    const res = await get('/products/?country=US');
    expect(res.status).toBe(200);
    expect(res.body.products).toEqual([]);
  });

  it('returns nothing from unapproved merchants', async () => {
    const res = await get(`/products/?country=DE&merchant=${fx().unapproved_merchant_id}`);
    expect(res.status).toBe(200);
    expect(res.body.products).toEqual([]);
    const approved = await get('/products/?country=DE&merchant=501&limit=5');
    expect(approved.body.products.length).toBeGreaterThan(0);
    for (const p of approved.body.products) expect(p.merchant.id).toBe(501);
  });

  it('filters by brand exactly and by category text, case-insensitively', async () => {
    const brand = await get('/products/?brand=nordlicht&country=DE&limit=50');
    expect(brand.body.products.length).toBeGreaterThan(0);
    for (const p of brand.body.products) expect(p.title.startsWith('Nordlicht')).toBe(true);
    expect((await get('/products/?brand=nordl&country=DE')).body.products).toEqual([]);
    const cat = await get('/products/?category=RUNNING%20SHOES&country=DE&limit=50');
    expect(cat.body.products.length).toBeGreaterThan(0);
  });

  it('filters prices inclusively and exactly in decimal, and by currency', async () => {
    const res = await get('/products/?country=DE&min_price=99.95&max_price=99.95&limit=100');
    expect(res.body.products.length).toBeGreaterThan(0);
    for (const p of res.body.products) expect(p.price).toBe('99.95');
    const range = await get('/products/?country=GB&min_price=100&max_price=200.5&currency=gbp&limit=100');
    expect(range.status).toBe(200);
    expect(range.body.products.length).toBeGreaterThan(0);
    for (const p of range.body.products) {
      expect(p.currency).toBe('GBP');
      expect(Number(p.price)).toBeGreaterThanOrEqual(100);
      expect(Number(p.price)).toBeLessThanOrEqual(200.5);
    }
  });

  it('groups variants: the cheapest in-stock variant per group, with sizes and a total', async () => {
    const res = await get(`/products/?q=${encodeURIComponent(fx().group_query)}&country=DE&group=1`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    const [p] = res.body.products;
    expect(p.price).toBe('99.95'); // size 40 at 89.00 is out of stock
    expect(p.sizes.map((s: { size: string }) => s.size)).toEqual(['40', '41', '42', '43', '44', '45']);
    expect(p.sizes[0]).toMatchObject({ availability: 'out_of_stock' });
    expect(Object.keys(p.sizes[0]).sort()).toEqual(['availability', 'product_id', 'size']);
    expect(p.sizes.map((s: { product_id: string }) => s.product_id)).toContain(p.id);
  });

  it('answers 400 for missing q, bad bounds, patterns, unknown and repeated parameters', async () => {
    const cases: Array<[string, string, string]> = [
      ['/products/', 'invalid_parameter', 'q'],
      ['/products/?q=ab', 'invalid_parameter', 'q'],
      [`/products/?q=${'x'.repeat(201)}`, 'invalid_parameter', 'q'],
      ['/products/?brand=x', 'invalid_parameter', 'brand'],
      ['/products/?country=de', 'invalid_parameter', 'country'],
      ['/products/?country=DEU', 'invalid_parameter', 'country'],
      ['/products/?country=DE&merchant=0', 'invalid_parameter', 'merchant'],
      ['/products/?country=DE&group=2', 'invalid_parameter', 'group'],
      ['/products/?country=DE&min_price=1.23456', 'invalid_parameter', 'min_price'],
      ['/products/?country=DE&max_price=1e5', 'invalid_parameter', 'max_price'],
      ['/products/?country=DE&min_price=10&max_price=9.99', 'invalid_parameter', 'max_price'],
      ['/products/?country=DE&currency=EURO', 'invalid_parameter', 'currency'],
      ['/products/?country=DE&limit=0', 'invalid_parameter', 'limit'],
      ['/products/?country=DE&limit=101', 'invalid_parameter', 'limit'],
      ['/products/?country=DE&offset=10001', 'invalid_parameter', 'offset'],
      ['/products/?country=DE&sort=price', 'unknown_parameter', 'sort'],
      ['/products/?country=DE&country=GB', 'repeated_parameter', 'country'],
    ];
    for (const [path, code, param] of cases) {
      const res = await get(path);
      expectErrorShape(res, 400, code);
      expect(res.body.errors?.[0]?.param, path).toBe(param);
      expect(res.headers['cache-control']).toBe('private, no-store');
    }
  });

  it('asks for country when the account has no market list', async () => {
    const res = await get('/products/?q=running', deps.demo!.special_keys.no_markets);
    expectErrorShape(res, 400, 'country_required');
    expect((await get('/products/?q=running&country=DE', deps.demo!.special_keys.no_markets)).status).toBe(200);
  });

  it('refuses writes with 405', async () => {
    for (const method of ['post', 'put', 'patch', 'delete'] as const) {
      const res = await request(server)[method](`${B}/products/`).set('X-API-Key', key);
      expectErrorShape(res, 405, 'method_not_allowed');
      expect(res.headers.allow).toContain('GET');
    }
  });
});

describe('GET /products/lookup/', () => {
  it('combines ids and gtins as a union without duplicate products', async () => {
    const s = await get(`/products/?q=${encodeURIComponent(fx().group_query)}&country=DE&limit=2`);
    const [a, b] = s.body.products;
    const res = await get(`/products/lookup/?ids=${a.id},${b.id}&gtins=${a.gtin}&country=DE`);
    expect(res.status).toBe(200);
    expect(res.body.products.map((p: { id: string }) => p.id).sort()).toEqual([a.id, b.id].sort());
  });

  it('includes fresh out-of-stock and preorder products and omits stale and unapproved ones', async () => {
    const res = await get(
      `/products/lookup/?gtins=${fx().gtin_out_of_stock},${fx().gtin_preorder},${fx().gtin_stale},${fx().gtin_unapproved_program}&country=DE`,
    );
    expect(res.status).toBe(200);
    expect(res.body.products.map((p: { gtin: string; availability: string }) => [p.gtin, p.availability]).sort()).toEqual(
      [
        [fx().gtin_out_of_stock, 'out_of_stock'],
        [fx().gtin_preorder, 'preorder'],
      ].sort(),
    );
  });

  it('stops answering a product the moment it leaves the freshness window, though its page was answered just before', async () => {
    const s = await get(`/products/?q=${encodeURIComponent(fx().group_query)}&country=DE&limit=1`);
    const id = s.body.products[0].id as string;
    const endsAt = Date.now() + 1500;
    await deps.models.Product.updateOne({ _id: id }, { $set: { fresh_until: new Date(endsAt) } });
    const ids = async (path: string) => (await get(path)).body.products.map((p: { id: string }) => p.id) as string[];
    const lookup = `/products/lookup/?ids=${id}&country=DE`;
    const search = `/products/?q=${encodeURIComponent(fx().group_query)}&country=DE&limit=1`;
    expect(await ids(lookup)).toEqual([id]);
    expect(await ids(lookup)).toEqual([id]);
    expect(await ids(search)).toEqual([id]);
    await new Promise((r) => setTimeout(r, endsAt - Date.now() + 50));
    expect(await ids(lookup)).toEqual([]);
    expect(await ids(search)).not.toContain(id);
  });

  it('omits missing, unknown and unauthorized items identically', async () => {
    const res = await get(`/products/lookup/?ids=p_doesnotexist0000000&gtins=${fx().gtin_unapproved_program}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ products: [], count: 0, next_offset: null });
  });

  it('keeps leading zeroes, matches the GTIN-12 form, and pages across markets', async () => {
    const g = fx().gtin_leading_zero;
    const res = await get(`/products/lookup/?gtins=${g.slice(1)}&limit=1`);
    expect(res.body.products[0].gtin).toBe(g);
    expect(res.body.next_offset).toBe(1);
    const rest = await get(`/products/lookup/?gtins=${g}&limit=1&offset=1`);
    expect(rest.body.products[0].gtin).toBe(g);
    expect(rest.body.products[0].country).not.toBe(res.body.products[0].country);
    expect(rest.body.next_offset).toBeNull();
  });

  it('answers 400 for invalid GTINs and for 0 or more than 100 identifiers', async () => {
    const bad = await get('/products/lookup/?gtins=4006381333932');
    expectErrorShape(bad, 400, 'invalid_gtin');
    expect(bad.body.detail).toContain('4006381333932');
    expectErrorShape(await get('/products/lookup/?gtins=12345'), 400, 'invalid_gtin');
    expectErrorShape(await get('/products/lookup/'), 400, 'invalid_parameter');
    const ids = Array.from({ length: 101 }, (_, i) => `p_${i}`).join(',');
    expectErrorShape(await get(`/products/lookup/?ids=${ids}`), 400, 'invalid_parameter');
    expectErrorShape(await get('/products/lookup/?ids=a,,b'), 400, 'invalid_parameter');
    expectErrorShape(await get('/products/lookup/?ids=p_1&q=shoe'), 400, 'unknown_parameter');
  });
});

describe('credentials on product endpoints', () => {
  it('accepts the key as X-API-Key or as a Bearer token', async () => {
    expect((await get('/products/?country=DE&limit=1')).status).toBe(200);
    expect((await request(server).get(`${B}/products/?country=DE&limit=1`).set('Authorization', `Bearer ${key}`)).status).toBe(200);
  });

  it('answers missing, unknown, revoked and inactive-account credentials with the same 401', async () => {
    const bodies = [];
    for (const k of [null, 'live_' + 'x'.repeat(43), deps.demo!.publishers[0].keys.revoked, deps.demo!.special_keys.inactive_account]) {
      const res = await get('/products/?country=DE', k);
      expectErrorShape(res, 401, 'not_authenticated');
      bodies.push(res.body.detail);
    }
    expect(new Set(bodies).size).toBe(1);
  });

  it('never takes a key from the URL', async () => {
    expectErrorShape(await get(`/products/?country=DE&api_key=${key}`, null), 401, 'not_authenticated');
  });

  it('does not accept reporting tokens, offers credentials or portal tokens', async () => {
    const p = deps.demo!.publishers[0];
    for (const t of [p.reporting_token, p.offers_credential, p.portal_token]) {
      expectErrorShape(await request(server).get(`${B}/products/?country=DE`).set('Authorization', `Bearer ${t}`), 401, 'not_authenticated');
    }
  });

  it('lets demo keys search and look up, and nothing else', async () => {
    const demo = deps.demo!.publishers[0].keys.demo;
    expect((await get('/products/?country=DE&limit=1', demo)).status).toBe(200);
    expect((await get(`/products/lookup/?gtins=${fx().gtin_preorder}`, demo)).status).toBe(200);
    expectErrorShape(await get('/me/', demo), 403, 'credential_not_allowed');
  });

  it('refuses accounts without product feed access with 403 feed_access_inactive', async () => {
    expectErrorShape(await get('/products/?country=DE', deps.demo!.special_keys.no_feed_access), 403, 'feed_access_inactive');
  });

  it('applies revocation and deactivation to the very next request', async () => {
    const fresh = await issueCredential(deps.data.auth, 'pub_dealradar', 'api_key', 'live');
    expect((await get('/products/?country=DE&limit=1', fresh.secret)).status).toBe(200);
    expect(await revokeCredential(deps.data.auth, fresh.id)).toBe(true);
    expectErrorShape(await get('/products/?country=DE&limit=1', fresh.secret), 401, 'not_authenticated');
    const other = await issueCredential(deps.data.auth, 'pub_dealradar', 'api_key', 'live');
    await deps.models.Publisher.updateOne({ _id: 'pub_dealradar' }, { $set: { status: 'inactive' } });
    expectErrorShape(await get('/products/?country=DE&limit=1', other.secret), 401, 'not_authenticated');
    await deps.models.Publisher.updateOne({ _id: 'pub_dealradar' }, { $set: { status: 'active' } });
    expect((await get('/products/?country=DE&limit=1', other.secret)).status).toBe(200);
  });

  it('drops a program from results as soon as its approval is withdrawn', async () => {
    const before = await get('/products/?country=DE&merchant=501&limit=1');
    expect(before.body.products.length).toBe(1);
    await deps.models.Membership.updateOne({ publisher_id: 'pub_trailhead', program_id: 1001 }, { $set: { status: 'rejected' } });
    try {
      expect((await get('/products/?country=DE&merchant=501&limit=1')).body.products).toEqual([]);
    } finally {
      await deps.models.Membership.updateOne({ publisher_id: 'pub_trailhead', program_id: 1001 }, { $set: { status: 'approved' } });
    }
  });
});
