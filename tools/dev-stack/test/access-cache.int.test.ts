/**
 * The access cache's contract: principals and catalog scopes are cached per process, and a change
 * made by another process (the operator CLI, on its own connections) applies to the very next
 * request on every instance. Two publisher-api instances share one database and Redis, as two
 * processes behind a load balancer; every change is made with the operator CLI. Product pages
 * are cached too (while the catalog version and the principal are unchanged): a catalog import
 * shows on the very next search and lookup everywhere.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDeps, redisUrl, type TestDeps } from '@cw-tools/testing';
import { runCli } from '@cw-tools/admin-cli';
import { createApp } from '@cw/app-publisher-api';

const B = '/api/v1/publisher';
const dir = mkdtempSync(join(tmpdir(), 'access-cache-'));

const MODES = {
  redis: 'versions in Redis',
  'redis-cluster': "versions in a Redis Cluster (the run's shared six nodes)",
  'one-process': 'in-process versions fed by the embedded engine',
} as const;

for (const mode of Object.keys(MODES) as Array<keyof typeof MODES>) {
  describe(`access cache (${MODES[mode]})`, () => {
    let a: TestDeps;
    let b: TestDeps;
    let servers: Array<ReturnType<ReturnType<typeof createApp>['callback']>>;
    let account: string;
    let key: string;

    beforeAll(async () => {
      a = await createTestDeps({
        seedProducts: 60,
        redis: mode === 'redis',
        redisCluster: mode === 'redis-cluster' ? inject('redisClusterNodes') : undefined,
        env: { RATELIMIT_PRODUCTS_PER_MIN: '100000', RATELIMIT_ACCOUNT_PER_MIN: '100000', RATELIMIT_IP_PER_MIN: '100000' },
      });
      b = await createTestDeps({
        sameDatabaseAs: a,
        env: { RATELIMIT_PRODUCTS_PER_MIN: '100000', RATELIMIT_ACCOUNT_PER_MIN: '100000', RATELIMIT_IP_PER_MIN: '100000' },
      });
      servers = [createApp(a).callback(), createApp(b).callback()];
      account = a.demo!.publishers[0].account_id;
      key = a.demo!.publishers[0].keys.live;
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
    });

    /** The operator CLI as its own process would run it: own connection, REDIS_URL or REDIS_CLUSTER_NODES when the platform has Redis. */
    async function admin(...args: string[]): Promise<Record<string, unknown>> {
      const redisEnv =
        mode === 'redis' ? { REDIS_URL: redisUrl() } : mode === 'redis-cluster' ? { REDIS_CLUSTER_NODES: inject('redisClusterNodes').join(',') } : {};
      const r = await runCli([...args, '--json'], { MONGODB_URI: a.tdb.uri, ...redisEnv }, dir);
      expect(r.code, r.out).toBe(0);
      return JSON.parse(r.out) as Record<string, unknown>;
    }

    /** Statuses on both instances, each asked twice so its cache is warm before the next change. */
    async function statuses(path: string, apiKey = key): Promise<number[]> {
      const out: number[] = [];
      for (const s of servers) {
        await request(s).get(`${B}${path}`).set('X-API-Key', apiKey);
        out.push((await request(s).get(`${B}${path}`).set('X-API-Key', apiKey)).status);
      }
      return out;
    }

    async function lookupCounts(gtin: string): Promise<number[]> {
      const out: number[] = [];
      for (const s of servers) {
        const res = await request(s).get(`${B}/products/lookup/?gtins=${gtin}`).set('X-API-Key', key);
        expect(res.status).toBe(200);
        out.push(res.body.products.length);
      }
      return out;
    }

    async function newKey(): Promise<{ id: string; secret: string }> {
      const issued = await admin('key:issue', '--publisher', account, '--kind', 'live');
      return { id: issued.id as string, secret: issued.secret as string };
    }

    it('refuses a revoked key on the next request of every instance', async () => {
      const k = await newKey();
      expect(await statuses('/me/', k.secret)).toEqual([200, 200]);
      await admin('credential:revoke', '--id', k.id);
      const res = await Promise.all(servers.map((s) => request(s).get(`${B}/products/?country=DE`).set('X-API-Key', k.secret)));
      expect(res.map((r) => r.status)).toEqual([401, 401]);
    });

    it('refuses a rotated-away key at once and accepts its replacement everywhere', async () => {
      const k = await newKey();
      expect(await statuses('/products/?country=DE', k.secret)).toEqual([200, 200]);
      const rotated = await admin('credential:rotate', '--id', k.id);
      for (const s of servers) {
        expect((await request(s).get(`${B}/products/?country=DE`).set('X-API-Key', k.secret)).status).toBe(401);
        expect(
          (
            await request(s)
              .get(`${B}/products/?country=DE`)
              .set('X-API-Key', rotated.secret as string)
          ).status,
        ).toBe(200);
      }
    });

    it('refuses every key of a deactivated account on the next request, and accepts them again once reactivated', async () => {
      expect(await statuses('/products/?country=DE')).toEqual([200, 200]);
      await admin('publisher:set-status', '--publisher', account, '--status', 'inactive');
      for (const s of servers) expect((await request(s).get(`${B}/products/?country=DE`).set('X-API-Key', key)).status).toBe(401);
      await admin('publisher:set-status', '--publisher', account, '--status', 'active');
      for (const s of servers) expect((await request(s).get(`${B}/products/?country=DE`).set('X-API-Key', key)).status).toBe(200);
    });

    it("shows a program's products from the request after its approval, and hides them from the request after a pause or a rejection", async () => {
      const gtin = a.demo!.fixtures.gtin_unapproved_program;
      const program = String((await a.models.Product.findOne({ gtin }).lean())!.program_id);
      expect(await lookupCounts(gtin)).toEqual([0, 0]);
      await admin('program:assign', '--publisher', account, '--program', program, '--status', 'approved');
      expect(await lookupCounts(gtin)).toEqual([1, 1]);
      await admin('program:set-status', '--id', program, '--status', 'paused');
      expect(await lookupCounts(gtin)).toEqual([0, 0]);
      await admin('program:set-status', '--id', program, '--status', 'active');
      expect(await lookupCounts(gtin)).toEqual([1, 1]);
      await admin('program:assign', '--publisher', account, '--program', program, '--status', 'rejected');
      expect(await lookupCounts(gtin)).toEqual([0, 0]);
    });

    it('answers a catalog import (price, stock) from the very next search and lookup on every instance', async () => {
      const row = (await a.models.Product.findOne({ program_id: a.demo!.fixtures.approved_program_id, country: 'DE', availability: 'in_stock', removed: false })
        .sort({ _id: 1 })
        .lean())!;
      const search = `/products/?country=DE&merchant=${row.merchant_id}&limit=100`;
      const priceIn = async (path: string) => {
        const out: Array<string | undefined> = [];
        for (const s of servers) {
          await request(s).get(`${B}${path}`).set('X-API-Key', key); // warm: the page is cached after this
          const res = await request(s).get(`${B}${path}`).set('X-API-Key', key);
          expect(res.status).toBe(200);
          out.push((res.body.products as Array<{ id: string; price: string }>).find((p) => p.id === row._id)?.price);
        }
        return out;
      };
      expect(await priceIn(search)).toEqual([row.price.toString(), row.price.toString()]);
      expect(await priceIn(`/products/lookup/?gtins=${row.gtin}&country=DE`)).toEqual([row.price.toString(), row.price.toString()]);
      const feed = join(dir, `feed-${mode}.csv`);
      const csv = (availability: string) =>
        `gtin,title,link,price,availability\n${row.gtin},${row.title.replace(/,/g, ' ')},${row.source_url},4321.99 ${row.currency},${availability}\n`;
      writeFileSync(feed, csv('in stock'));
      await admin('catalog:import', '--file', feed, '--program', String(row.program_id), '--country', 'DE');
      const once = async (path: string) =>
        Promise.all(
          servers.map(
            async (s) => (await request(s).get(`${B}${path}`).set('X-API-Key', key)).body.products.find((p: { id: string }) => p.id === row._id)?.price,
          ),
        );
      expect(await once(search)).toEqual(['4321.99', '4321.99']);
      expect(await once(`/products/lookup/?gtins=${row.gtin}&country=DE`)).toEqual(['4321.99', '4321.99']);
      writeFileSync(feed, csv('out of stock'));
      await admin('catalog:import', '--file', feed, '--program', String(row.program_id), '--country', 'DE');
      expect(await once(search)).toEqual([undefined, undefined]); // search: in stock only
    });

    it('turns feed access off for the very next search (403 feed_access_inactive)', async () => {
      expect(await statuses('/products/?country=DE')).toEqual([200, 200]);
      await a.data.auth.updatePublisher(account, { feed_access: false });
      const res = await Promise.all(servers.map((s) => request(s).get(`${B}/products/?country=DE`).set('X-API-Key', key)));
      expect(res.map((r) => [r.status, r.body.code])).toEqual([
        [403, 'feed_access_inactive'],
        [403, 'feed_access_inactive'],
      ]);
      await a.data.auth.updatePublisher(account, { feed_access: true });
      expect(await statuses('/products/?country=DE')).toEqual([200, 200]);
    });
  });
}
