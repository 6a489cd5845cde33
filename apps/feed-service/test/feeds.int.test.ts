/**
 * Product feeds through HTTP against the real engine: the signed URL and its refusals, the four
 * formats carrying the same rows with tracked links, caps and samples, merchant_filter, gzip,
 * prepared files with ETag/Last-Modified and 304, a client that leaves mid-feed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import { parse as parseCsv } from 'csv-parse/sync';
import { Types } from 'mongoose';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential, revokeCredential } from '@cw/auth';
import { FEED_FIELDS, regenerateMarket, signedFeedUrl } from '@cw/feeds';
import { createTestDeps, expectErrorShape, type TestDeps, handlerServer } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
const pub = () => deps.demo!.publishers[0];
const key = () => pub().keys.live;
const feed = (q: string, k: string | null = key()) => {
  const r = request(app).get(`/api/v1/feeds/products/?${q}`);
  return k ? r.set('X-API-Key', k) : r;
};
const signedPath = (url: string) => url.slice(deps.config.feedUrl.length);
const issue = async (q: string, k = key()) => {
  const res = await request(app).get(`/api/v1/affiliates/feed/?${q}`).set('X-API-Key', k);
  expect(res.status).toBe(200);
  return res.body as { url: string; expires_at: string; renew_after: string; format: string; country: string };
};
const xmlItems = (text: string) => {
  const doc = new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(text);
  const items = doc.rss.channel.item ?? [];
  return { doc, items: (Array.isArray(items) ? items : [items]) as Array<Record<string, string>> };
};

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 400, env: { RATELIMIT_FEEDS_PER_MIN: '100000', RATELIMIT_IP_PER_MIN: '100000' } });
  app = createApp(deps).callback();
});
afterAll(() => deps?.close());

describe('GET /api/v1/affiliates/feed/', () => {
  it('answers a signed URL valid 90 days, to renew 30 days before expiry', async () => {
    const body = await issue('country=DE&format=xml');
    expect(body).toMatchObject({ format: 'xml', country: 'DE' });
    expect(body.url.startsWith(`${deps.config.feedUrl}/api/v1/feeds/products/?account=${pub().account_id}&country=DE&format=xml&expires=`)).toBe(true);
    const expires = new Date(body.expires_at).getTime();
    expect(Math.abs(expires - Date.now() - 90 * 86_400_000)).toBeLessThan(60_000);
    expect(expires - new Date(body.renew_after).getTime()).toBe(30 * 86_400_000);
    expect((await issue('country=UK&format=csv')).country).toBe('GB');
  });

  it('refuses demo keys, accounts without feed access, countries outside the markets and bad parameters', async () => {
    expectErrorShape(await request(app).get('/api/v1/affiliates/feed/?country=DE').set('X-API-Key', pub().keys.demo), 403, 'credential_not_allowed');
    expectErrorShape(
      await request(app).get('/api/v1/affiliates/feed/?country=DE').set('X-API-Key', deps.demo!.special_keys.no_feed_access),
      403,
      'feed_access_inactive',
    );
    expectErrorShape(await request(app).get('/api/v1/affiliates/feed/?country=DE'), 401, 'not_authenticated');
    expectErrorShape(await request(app).get('/api/v1/affiliates/feed/?country=US').set('X-API-Key', key()), 403, 'forbidden');
    for (const q of [
      '',
      'country=de',
      'country=DE&format=pdf',
      'country=DE&sample=2',
      'country=DE&x=1',
      'country=DE&country=GB',
      'country=DE&merchant_filter=abc',
    ]) {
      expectErrorShape(await request(app).get(`/api/v1/affiliates/feed/?${q}`).set('X-API-Key', key()), 400);
    }
  });
});

describe('GET /api/v1/feeds/products/', () => {
  it("serves a Google Shopping RSS 2.0 feed of the account's tracked products from the signed URL, without a key", async () => {
    const { url } = await issue('country=DE&format=xml');
    const res = await request(app).get(signedPath(url));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/rss\+xml/);
    const { doc, items } = xmlItems(res.text);
    expect(doc.rss['@_version']).toBe('2.0');
    expect(doc.rss['@_xmlns:g']).toBe('http://base.google.com/ns/1.0');
    expect(items.length).toBeGreaterThan(10);
    const approved = new Set(await deps.data.programs.activeApprovedIds(pub().account_id));
    const ids = items.map((i) => i['g:id']);
    expect([...ids].sort()).toEqual(ids);
    const rows = await deps.models.Product.find({ _id: { $in: ids } }).lean();
    expect(rows).toHaveLength(ids.length);
    for (const r of rows) {
      expect(r.country).toBe('DE');
      expect(approved.has(r.program_id)).toBe(true);
    }
    for (const i of items) {
      expect(i.link).toMatch(new RegExp(`^${deps.config.trackingUrl}/c/[A-Za-z0-9]+$`));
      expect(i['g:ads_redirect']).toBe(i.link);
      expect(i['g:price']).toMatch(/^\d+\.\d{2} [A-Z]{3}$/);
      expect(['in_stock', 'out_of_stock', 'preorder', 'backorder']).toContain(i['g:availability']);
      expect(i['g:identifier_exists']).toBe('yes');
      expect(i['g:gtin']).toMatch(/^\d{8,14}$/);
      expect(Object.keys(i).join()).not.toContain('source');
    }
    // The spec's field order inside each item (empty fields are left out).
    const order = Object.keys(items[0]).map((k) => k.replace(/^g:/, ''));
    expect(order).toEqual(FEED_FIELDS.filter((f) => order.includes(f)));
  });

  it('carries the same rows, fields and links in CSV, TSV and JSON', async () => {
    const xml = xmlItems((await feed('country=DE&format=xml')).text).items;
    const csv = await feed('country=DE&format=csv');
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const csvRows = parseCsv(csv.text, { columns: true }) as Array<Record<string, string>>;
    expect(csv.text.split('\r\n')[0]).toBe(FEED_FIELDS.join(','));
    const tsv = await feed('country=DE&format=tsv');
    expect(tsv.headers['content-type']).toMatch(/^text\/tab-separated-values/);
    const tsvRows = parseCsv(tsv.text, { columns: true, delimiter: '\t' }) as Array<Record<string, string>>;
    const json = await feed('country=DE&format=json');
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.body).toMatchObject({ country: 'DE', format: 'json', sample: false });
    const pick = (r: Record<string, string>) => [r.id ?? r['g:id'], r.link, r.price ?? r['g:price'], r.availability ?? r['g:availability']].join('|');
    const expected = xml.map(pick);
    expect(csvRows.map(pick)).toEqual(expected);
    expect(tsvRows.map(pick)).toEqual(expected);
    expect(json.body.products.map(pick)).toEqual(expected);
    expect(Object.keys(json.body.products[0])).toEqual([...FEED_FIELDS]);
  });

  it('holds at most 500 products of one program: the first by product id', async () => {
    const now = new Date();
    const fresh = { last_seen_at: now, fresh_until: new Date(now.getTime() + 86_400_000), removed: false, created_at: now, updated_at: now };
    await deps.models.Product.insertMany(
      Array.from({ length: 520 }, (_, i) => ({
        _id: `zz_cap_${String(i).padStart(4, '0')}`,
        gtin: '4006381333931',
        gtin14: '04006381333931',
        title: `Cap test ${i}`,
        title_lc: `cap test ${i}`,
        price: Types.Decimal128.fromString('10.00'),
        currency: 'EUR',
        source_url: `https://www.casacucina.example/p/${i}`,
        merchant_id: 503,
        program_id: 1004,
        country: 'DE',
        availability: 'in_stock',
        ...fresh,
      })),
    );
    const body = (await feed('country=DE&format=json')).body as { products: Array<{ id: string; seller_name: string }> };
    const casa = await deps.models.Product.find(
      { country: 'DE', program_id: 1004, removed: false, fresh_until: { $gt: now }, last_seen_at: { $gte: new Date(now.getTime() - 48 * 3_600_000) } },
      { _id: 1 },
    )
      .sort({ _id: 1 })
      .lean();
    const expected = casa.slice(0, 500).map((p) => p._id);
    const served = new Set(body.products.map((p) => p.id));
    expect(expected.filter((id) => served.has(id))).toEqual(expected);
    expect(casa.slice(500).some((p) => served.has(p._id))).toBe(false);
  });

  it('samples at most 12 products (100 rows in CSV) with merchant pages, no tracked links', async () => {
    const xml = xmlItems((await feed('country=DE&format=xml&sample=1')).text).items;
    expect(xml).toHaveLength(12);
    for (const i of xml) {
      expect(i.link).not.toContain(deps.config.trackingUrl);
      expect(i.link).toMatch(/^https:\/\//);
      expect(i['g:ads_redirect']).toBeUndefined();
    }
    const csv = parseCsv((await feed('country=DE&format=csv&sample=1')).text, { columns: true });
    expect(csv).toHaveLength(100);
    const { url } = await issue('country=DE&format=json&sample=1');
    expect(url).toContain('sample=1');
    expect((await request(app).get(signedPath(url))).body.products).toHaveLength(12);
  });

  it('filters by merchant for comparison sites only', async () => {
    expectErrorShape(await feed('country=DE&format=json&merchant_filter=501'), 403, 'forbidden');
    await deps.models.Publisher.updateOne({ _id: pub().account_id }, { $set: { comparison_site: true } });
    try {
      const body = (await feed('country=DE&format=json&merchant_filter=501')).body;
      expect(body.products.length).toBeGreaterThan(0);
      const rows = await deps.models.Product.find({ _id: { $in: body.products.map((p: { id: string }) => p.id) } }, { merchant_id: 1 }).lean();
      expect(new Set(rows.map((r) => r.merchant_id))).toEqual(new Set([501]));
      const { url } = await issue('country=DE&format=csv&merchant_filter=501');
      expect((await request(app).get(signedPath(url))).status).toBe(200);
      // Changing the filter of a signed URL is a changed URL.
      expectErrorShape(await request(app).get(signedPath(url).replace('merchant_filter=501', 'merchant_filter=502')), 403, 'feed_url_invalid');
    } finally {
      await deps.models.Publisher.updateOne({ _id: pub().account_id }, { $set: { comparison_site: false } });
    }
  });

  it('refuses a changed, expired or revoked signed URL and a deactivated account, each with 403', async () => {
    const { url } = await issue('country=DE&format=xml');
    const path = signedPath(url);
    expectErrorShape(await request(app).get(path.replace('format=xml', 'format=csv')), 403, 'feed_url_invalid');
    expectErrorShape(await request(app).get(path.replace('country=DE', 'country=GB')), 403, 'feed_url_invalid');
    // Another first character of the signature (never the same one: 'A' becomes 'B').
    expectErrorShape(await request(app).get(path.replace(/sig=(.)/, (_, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`)), 403, 'feed_url_invalid');
    expectErrorShape(await request(app).get(path.replace(/expires=\d+/, (m) => `expires=${Number(m.slice(8)) + 1}`)), 403, 'feed_url_invalid');
    expectErrorShape(await request(app).get(path.replace(/&sig=[^&]+/, '')), 403, 'feed_url_invalid');
    expectErrorShape(await request(app).get(`${path}&x=1`), 400);
    const kid = new URL(url).searchParams.get('kid')!;
    const expired = signedFeedUrl(deps.config.feedUrl, deps.config.keys, {
      account: pub().account_id,
      country: 'DE',
      format: 'xml',
      expires: Math.floor(Date.now() / 1000) - 1,
      kid,
    });
    expectErrorShape(await request(app).get(signedPath(expired)), 403, 'feed_url_expired');

    const own = await issueCredential(deps.data.auth, pub().account_id, 'api_key', 'live', 'feed reader');
    const mine = signedPath((await issue('country=DE&format=csv', own.secret)).url);
    expect((await request(app).get(mine)).status).toBe(200);
    await revokeCredential(deps.data.auth, own.id);
    expectErrorShape(await request(app).get(mine), 403, 'feed_url_invalid');

    await deps.models.Publisher.updateOne({ _id: pub().account_id }, { $set: { status: 'inactive' } });
    try {
      expectErrorShape(await request(app).get(path), 403, 'feed_url_invalid');
    } finally {
      await deps.models.Publisher.updateOne({ _id: pub().account_id }, { $set: { status: 'active' } });
    }
    expect((await request(app).get(path)).status).toBe(200);
  });

  it('gzips when the client accepts it', async () => {
    const res = await request(app)
      .get('/api/v1/feeds/products/?country=DE&format=csv')
      .set('X-API-Key', key())
      .set('Accept-Encoding', 'gzip')
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toMatch(/Accept-Encoding/);
    const plain = await feed('country=DE&format=csv').set('Accept-Encoding', 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    // supertest may already have inflated it; either way the content is the plain feed.
    const body = res.body as Buffer;
    const text = body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body).toString() : body.toString();
    expect(text).toBe(plain.text);
  });

  it('serves prepared files with ETag and Last-Modified (304 on revalidation) and follows regeneration', async () => {
    expect((await feed('country=GB&format=xml')).headers.etag).toBeUndefined(); // no prepared files yet
    const r = await regenerateMarket(deps.data, 'GB');
    expect(r.files).toBeGreaterThan(0);
    const first = await feed('country=GB&format=xml');
    const etag = first.headers.etag;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers['last-modified']).toBeDefined();
    expect((await feed('country=GB&format=xml')).text).toBe(first.text);
    expect((await feed('country=GB&format=xml').set('If-None-Match', etag)).status).toBe(304);
    expect((await feed('country=GB&format=xml').set('If-Modified-Since', first.headers['last-modified'])).status).toBe(304);
    expect((await feed('country=GB&format=csv').set('If-None-Match', etag)).status).toBe(200);
    await new Promise((ok) => setTimeout(ok, 1100));
    await regenerateMarket(deps.data, 'GB');
    const after = await feed('country=GB&format=xml').set('If-None-Match', etag);
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(etag);
    expect(after.text).toBe(first.text);
  });

  it('answers 400 for bad parameters and 401/403 for credentials', async () => {
    for (const q of ['', 'country=DE&format=html', 'country=Germany', 'country=DE&limit=5', 'country=DE&format=xml&format=csv'])
      expectErrorShape(await feed(q), 400);
    expectErrorShape(await feed('country=DE', null), 401, 'not_authenticated');
    expectErrorShape(await feed('country=DE', pub().keys.demo), 403, 'credential_not_allowed');
    expectErrorShape(await feed('country=FR', deps.demo!.publishers[1].keys.live), 403, 'forbidden');
    expectErrorShape(await request(app).post('/api/v1/feeds/products/?country=DE').set('X-API-Key', key()), 405);
  });

  it('stops reading the catalog when the client goes away mid-feed', async () => {
    const openCursors = async () => Number((await deps.db.connection.db!.admin().command({ serverStatus: 1 })).metrics.cursor.open.total);
    const before = await openCursors();
    const server = handlerServer(app);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      await new Promise<void>((ok, no) => {
        const req = http.get(
          { port: (server.address() as AddressInfo).port, path: '/api/v1/feeds/products/?country=DE&format=xml', headers: { 'X-API-Key': key() } },
          (res) => {
            res.once('data', () => {
              req.destroy();
              ok();
            });
          },
        );
        req.on('error', (e) => (e.message.includes('socket hang up') ? ok() : no(e)));
      });
      let open = await openCursors();
      for (let i = 0; i < 50 && open > before; i++) {
        await new Promise((r) => setTimeout(r, 20));
        open = await openCursors();
      }
      expect(open).toBe(before);
      expect((await request(server).get('/api/v1/feeds/products/?country=DE&format=json&sample=1').set('X-API-Key', key())).status).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    }
  });
});
