/**
 * Pages read as ids with the rows the process holds (libs/domains/catalog/src/row-cache.ts) answer
 * exactly what reading every row answers: two publisher-api instances on one database, one
 * holding rows, the other holding none (PRODUCT_ROW_CACHE_ENTRIES=0), neither keeping pages, asked
 * the same searches and lookups; and a row changed by a catalog write is answered changed by the
 * very next page nobody asked for, though the process held it.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

const B = '/api/v1/publisher';
const LIFTED = { RATELIMIT_PRODUCTS_PER_MIN: '1000000', RATELIMIT_IP_PER_MIN: '1000000', PRODUCT_PAGE_CACHE_ENTRIES: '0' };
let holding: TestDeps;
let reading: TestDeps;
let servers: { holding: ReturnType<ReturnType<typeof createApp>['callback']>; reading: ReturnType<ReturnType<typeof createApp>['callback']> };
let key: string;
/** Product reads the holding instance sent, by projection: `ids` (only `_id`), `rows` (whole rows). */
const sent = { ids: 0, rows: 0 };

beforeAll(async () => {
  holding = await createTestDeps({ seedProducts: 800, env: LIFTED, monitorCommands: true });
  reading = await createTestDeps({ sameDatabaseAs: holding, env: { ...LIFTED, PRODUCT_ROW_CACHE_ENTRIES: '0' } });
  servers = { holding: createApp(holding).callback(), reading: createApp(reading).callback() };
  key = holding.demo!.publishers[0].keys.live;
  const products = holding.models.Product.collection.collectionName;
  holding.db.connection.getClient().on('commandStarted', (e) => {
    if (e.commandName !== 'find' || e.command.find !== products) return;
    const projection = (e.command.projection as Record<string, unknown> | undefined) ?? {};
    if (Object.keys(projection).join() === '_id') sent.ids++;
    else sent.rows++;
  });
});
afterAll(async () => {
  await reading?.close();
  await holding?.close();
});

async function both(path: string): Promise<[unknown, unknown]> {
  const [h, r] = await Promise.all([
    request(servers.holding).get(`${B}${path}`).set('X-API-Key', key),
    request(servers.reading).get(`${B}${path}`).set('X-API-Key', key),
  ]);
  expect([h.status, r.status], `${path}: ${h.text}`).toEqual([200, 200]);
  // The page is written from its products' JSON: exactly what JSON.stringify writes of it.
  expect(h.text).toBe(JSON.stringify(h.body));
  return [h.body, r.body];
}

describe('pages read as ids with the rows held', () => {
  it('answer every search and lookup exactly as reading every row does', async () => {
    const fx = holding.demo!.fixtures;
    const page = (await request(servers.reading).get(`${B}/products/?country=DE&limit=30`).set('X-API-Key', key)).body.products as Array<{
      id: string;
      gtin: string;
      price: string;
      merchant: { id: number };
    }>;
    const gtins = page.map((p) => p.gtin);
    const paths = [
      '/products/?country=DE',
      '/products/?country=DE&offset=20&limit=7',
      '/products/?country=GB&currency=gbp&min_price=10&max_price=150.5',
      `/products/?country=DE&merchant=${page[0]!.merchant.id}&limit=50`,
      '/products/?brand=nordlicht&country=DE&limit=50',
      '/products/?category=running&limit=40',
      `/products/?q=${encodeURIComponent(fx.group_query)}&country=DE&group=1`,
      `/products/?q=${encodeURIComponent(fx.group_query)}&group=1&limit=3&offset=1`,
      `/products/lookup/?gtins=${gtins.slice(0, 10).join(',')}&country=DE`,
      `/products/lookup/?ids=${page
        .slice(5, 12)
        .map((p) => p.id)
        .join(',')}&gtins=${gtins.slice(10, 14).join(',')}&limit=5&offset=2`,
      `/products/lookup/?gtins=${fx.gtin_out_of_stock},${fx.gtin_preorder},${fx.gtin_stale},${fx.gtin_unapproved_program},${fx.gtin_leading_zero}`,
    ];
    // Each asked with a new price floor below every price: the same rows, a page nobody asked for.
    let n = 0;
    const distinct = (path: string) => (path.includes('min_price') || path.includes('lookup') ? path : `${path}&min_price=0.0${++n}`);
    for (let round = 0; round < 4; round++) for (const path of paths) await both(distinct(path));
    sent.ids = 0;
    sent.rows = 0;
    for (const path of paths) {
      const [held, read] = await both(distinct(path));
      expect(held, path).toEqual(read);
    }
    // The answers above came from ids and held rows, not from whole rows read again.
    expect(sent.ids).toBeGreaterThanOrEqual(paths.length - 2);
    expect(sent.rows).toBeLessThan(sent.ids);
  });

  it("answer a catalog write's new price and stock from the very next page, though the row was held", async () => {
    const path = (i: number) => `/products/?country=DE&limit=10&min_price=0.00${i}`;
    for (let i = 1; i <= 12; i++) await both(path(i));
    const [before] = (await both(path(13))) as Array<{ products: Array<{ id: string; price: string; title: string }> }>;
    const target = before.products[3]!;
    sent.ids = 0;
    const title = 'Läufer "Pro" 2\\3 \u2028 🚀 <b>&</b>';
    await holding.models.Product.updateOne({ _id: target.id }, { $set: { price: '4321.99', title } });
    const [after, read] = (await both(path(14))) as Array<{ products: Array<{ id: string; price: string; title: string }> }>;
    expect(after).toEqual(read);
    expect(after.products.find((p) => p.id === target.id)).toMatchObject({ price: '4321.99', title });
    await holding.models.Product.updateOne({ _id: target.id }, { $set: { availability: 'out_of_stock' } });
    const [gone] = (await both(path(15))) as Array<{ products: Array<{ id: string }> }>;
    expect(gone.products.map((p) => p.id)).not.toContain(target.id);
    await holding.models.Product.updateOne({ _id: target.id }, { $set: { price: target.price, title: target.title, availability: 'in_stock' } });
  });
});
