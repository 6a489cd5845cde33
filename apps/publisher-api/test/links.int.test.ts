/** Links (list, create, batch), idempotency under real concurrency, and clicks, through HTTP. */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let server: ReturnType<ReturnType<typeof createApp>['callback']>;
const B = '/api/v1/publisher';

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20, env: { RATELIMIT_LINKS_PER_MIN: '100000', RATELIMIT_REPORTING_PER_MIN: '100000' } });
  server = createApp(deps).callback();
});
afterAll(async () => deps?.close());

const keys = (i = 0) => deps.demo!.publishers[i].keys;
const fx = () => deps.demo!.fixtures;
const get = (path: string, key = keys().live) => request(server).get(`${B}${path}`).set('X-API-Key', key);
const post = (path: string, body: unknown, key = keys().live, idem?: string) => {
  const r = request(server).post(`${B}${path}`).set('X-API-Key', key);
  if (idem) r.set('Idempotency-Key', idem);
  return r.send(body as object);
};

describe('POST /links/', () => {
  it('creates a tracked link (201), then returns the same link (200)', async () => {
    const body = { program_id: fx().approved_program_id, subid: 'spring-sale_01', landing_url: `${fx().approved_program_landing_url}sale?x=1#top` };
    const first = await post('/links/', body);
    expect(first.status).toBe(201);
    expect(Object.keys(first.body).sort()).toEqual([
      'campaign_id',
      'check_landing',
      'created_at',
      'deeplink_id',
      'fallback',
      'health',
      'id',
      'landing_url',
      'program_id',
      'routes',
      'subid',
      'url',
    ]);
    expect(first.body).toMatchObject({
      program_id: 1001,
      campaign_id: 501,
      subid: 'spring-sale_01',
      landing_url: `${fx().approved_program_landing_url}sale?x=1`,
    });
    expect(first.body.url).toBe(`${deps.config.trackingUrl}/c/${first.body.id}`);
    expect(first.body.deeplink_id).toBe(first.body.id);
    const again = await post('/links/', body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
  });

  it("uses the program's landing page by default and resolves a campaign with one approved program", async () => {
    const res = await post('/links/', { campaign_id: '503' });
    expect([200, 201]).toContain(res.status); // the demo data may already hold this link
    expect(res.body).toMatchObject({ program_id: 1004, campaign_id: 503, subid: null });
    expect(res.body.landing_url).toMatch(/^https:\/\/www\./);
    expectErrorShape(await post('/links/', { campaign_id: 501 }), 400, 'invalid_parameter'); // 1001 and 1002
  });

  it('gives two publishers asking for the same link two different links', async () => {
    const body = { program_id: 1001, subid: 'shared' };
    const a = await post('/links/', body, keys(0).live);
    const b = await post('/links/', body, keys(1).live);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.id).not.toBe(b.body.id);
  });

  it('answers 400 for invalid requests, naming the parameter', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'program_id'],
      [{ program_id: 1001, subid: 'has space' }, 'subid'],
      [{ program_id: 1001, subid: 'x'.repeat(101) }, 'subid'],
      [{ program_id: 1001, landing_url: 'ftp://nordlicht.example/' }, 'landing_url'],
      [{ program_id: 1001, landing_url: 'https://evil.example/' }, 'landing_url'],
      [{ program_id: 1001, landing_url: 'not a url' }, 'landing_url'],
      [{ program_id: 1001, campaign_id: 999 }, 'campaign_id'],
      [{ program_id: 1001, colour: 'red' }, 'colour'],
      [{ program_id: 'abc' }, 'program_id'],
    ];
    for (const [body, param] of cases) {
      const res = await post('/links/', body);
      expectErrorShape(res, 400);
      expect(res.body.errors?.map((e: { param: string }) => e.param).join(' '), JSON.stringify(body)).toContain(param);
    }
  });

  it('answers 404 for an unknown program and 403 for programs not approved for the caller', async () => {
    expectErrorShape(await post('/links/', { program_id: 424242 }), 404, 'not_found');
    expectErrorShape(await post('/links/', { program_id: 1006 }), 403, 'program_not_approved'); // pending
    expectErrorShape(await post('/links/', { program_id: 1007 }), 403, 'program_not_approved'); // rejected
    expectErrorShape(await post('/links/', { program_id: 1012 }), 403, 'program_not_approved'); // never assigned
  });

  it('answers 401 without a key and 405 for other methods', async () => {
    expectErrorShape(await request(server).post(`${B}/links/`).send({ program_id: 1001 }), 401, 'not_authenticated');
    const res = await request(server).delete(`${B}/links/`).set('X-API-Key', keys().live);
    expectErrorShape(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toMatch(/GET/);
    expect(res.headers.allow).toMatch(/POST/);
  });

  it('refuses demo and read-only keys; test keys may create links', async () => {
    expectErrorShape(await post('/links/', { program_id: 1001 }, keys().demo), 403, 'credential_not_allowed');
    expectErrorShape(await post('/links/', { program_id: 1001 }, keys().read_only), 403, 'credential_not_allowed');
    expect((await post('/links/', { program_id: 1001, subid: 'from-test-key' }, keys().test)).status).toBe(201);
  });
});

describe('Idempotency-Key on POST /links/', () => {
  it('replays the first response byte for byte, and 409 for another body under the key', async () => {
    const body = { program_id: 1001, subid: 'idem-1' };
    const first = await post('/links/', body, keys().live, 'key-idem-1');
    expect(first.status).toBe(201);
    const replay = await post('/links/', { subid: 'idem-1', program_id: 1001 }, keys().live, 'key-idem-1'); // same body, keys reordered
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(first.text);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expectErrorShape(await post('/links/', { program_id: 1001, subid: 'idem-2' }, keys().live, 'key-idem-1'), 409, 'idempotency_key_reused');
    // Scoped per account and route: another account or route may use the same key.
    expect((await post('/links/', body, keys(1).live, 'key-idem-1')).status).toBe(201);
    expect((await post('/links/batch/', { links: [body] }, keys().live, 'key-idem-1')).status).toBe(200);
  });

  it('stores 4xx answers too, and answers 400 for a key over 255 characters', async () => {
    const bad = await post('/links/', { program_id: 1006 }, keys().live, 'key-idem-403');
    expectErrorShape(bad, 403, 'program_not_approved');
    const again = await post('/links/', { program_id: 1006 }, keys().live, 'key-idem-403');
    expect(again.status).toBe(403);
    expect(again.text).toBe(bad.text);
    expectErrorShape(await post('/links/', { program_id: 1001 }, keys().live, 'k'.repeat(256)), 400, 'idempotency_key_invalid');
    expect((await post('/links/', { program_id: 1001, subid: 'k255' }, keys().live, 'k'.repeat(255))).status).toBe(201);
  });

  it('forgets a key after 24 hours, before the TTL index removes it (MongoDB sweeps every 60 s), and the key can be used again', async () => {
    const indexes = await deps.models.Idempotency.collection.listIndexes().toArray();
    expect(indexes.find((i) => i.key.created_at === 1)?.expireAfterSeconds).toBe(86_400);
    expect((await post('/links/', { program_id: 1001, subid: 'ttl-1' }, keys().live, 'key-ttl')).status).toBe(201);
    const stillStored = await post('/links/', { program_id: 1001, subid: 'ttl-2' }, keys().live, 'key-ttl');
    expect(stillStored.status).toBe(409); // another body under a key within 24 h
    // 25 hours later, the record expired but not yet swept: no waiting on any TTL monitor.
    await deps.models.Idempotency.updateMany({ publisher_id: 'pub_trailhead' }, { $set: { created_at: new Date(Date.now() - 25 * 3_600_000) } });
    const reused = await post('/links/', { program_id: 1001, subid: 'ttl-2' }, keys().live, 'key-ttl');
    expect(reused.status).toBe(201);
    expect(reused.headers['idempotent-replayed']).toBeUndefined();
  });

  it('lets exactly one of many concurrent requests with one key have an effect', async () => {
    const body = { program_id: 1003, subid: 'race' };
    const responses = await Promise.all(Array.from({ length: 12 }, () => post('/links/', body, keys().live, 'key-race')));
    const statuses = responses.map((r) => r.status);
    const winners = responses.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(winners).toHaveLength(1);
    for (const r of responses) {
      if (r.status === 409) expect(r.body.code).toBe('idempotency_key_in_use');
      else expect(r.text, statuses.join(',')).toBe(winners[0].text);
    }
    expect(await deps.models.Link.countDocuments({ publisher_id: 'pub_trailhead', program_id: 1003, subid: 'race' })).toBe(1);
    expect(await deps.models.Idempotency.countDocuments({ publisher_id: 'pub_trailhead', state: 'running' })).toBe(0);
  });
});

describe('POST /links/batch/', () => {
  it('answers one entry per item: created, existing or error, in order', async () => {
    const res = await post('/links/batch/', {
      links: [
        { program_id: 1001, subid: 'b1' },
        { program_id: 1001, subid: 'b1' },
        { program_id: 1006 },
        { program_id: 1001, subid: 'bad subid' },
        { program_id: 1004, subid: 'b2' },
        'nope',
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['created', 'existing', 'error', 'error', 'created', 'error']);
    expect(res.body.results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(res.body.results[1].link).toEqual(res.body.results[0].link);
    expect(res.body.results[2].error).toMatchObject({ code: 'program_not_approved' });
    expect(res.body.results[3].error).toMatchObject({ code: 'invalid_parameter', errors: [{ param: 'subid' }] });
    expect(res.body).toMatchObject({ created: 2, existing: 1, errors: 3 });
    const again = await post('/links/batch/', { links: [{ program_id: 1001, subid: 'b1' }] });
    expect(again.body.results[0]).toMatchObject({ status: 'existing', link: res.body.results[0].link });
  });

  it('answers 400 for 0 or more than 50 items and for a missing links member', async () => {
    expectErrorShape(await post('/links/batch/', { links: [] }), 400);
    expectErrorShape(await post('/links/batch/', { links: Array.from({ length: 51 }, (_, i) => ({ program_id: 1001, subid: `s${i}` })) }), 400);
    expectErrorShape(await post('/links/batch/', {}), 400);
    expect((await post('/links/batch/', { links: Array.from({ length: 50 }, (_, i) => ({ program_id: 1001, subid: `s${i}` })) })).body.created).toBe(50);
  });
});

describe('GET /links/', () => {
  it("lists the caller's API links newest first, filtered by subid and campaign, never another publisher's", async () => {
    const all = await get('/links/?page_size=1000');
    expect(all.status).toBe(200);
    expect(all.body.data.length).toBeGreaterThan(50);
    const times = all.body.data.map((l: { created_at: string }) => Date.parse(l.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const mine = new Set((await deps.models.Link.find({ publisher_id: 'pub_trailhead' }, { _id: 1 }).lean()).map((l) => l._id));
    for (const l of all.body.data) expect(mine.has(l.id)).toBe(true);
    const bySub = await get('/links/?subid=spring-sale_01');
    expect(bySub.body.data.map((l: { subid: string }) => l.subid)).toEqual(['spring-sale_01']);
    const byCampaign = await get('/links/?campaign_id=503&page_size=1000');
    expect(byCampaign.body.data.length).toBeGreaterThan(0);
    for (const l of byCampaign.body.data) expect(l.campaign_id).toBe(503);
    const other = await get('/links/?subid=shared', keys(1).live);
    expect(other.body.data).toHaveLength(1);
    expect(other.body.data[0].id).not.toBe(bySub.body.data[0]?.id);
  });

  it('does not list the links product results created, and pages', async () => {
    await get('/products/?country=DE&limit=5');
    const listed = await get('/links/?page_size=1000');
    const sources = await deps.models.Link.find({ _id: { $in: listed.body.data.map((l: { id: string }) => l.id) } }, { source: 1 }).lean();
    expect(new Set(sources.map((s) => s.source))).toEqual(new Set(['api']));
    const p1 = await get('/links/?page_size=2');
    const p2 = await get('/links/?page_size=2&page=2');
    expect(p1.body).toMatchObject({ page: 1, page_size: 2, has_more: true, next_page: 2 });
    expect([...p1.body.data, ...p2.body.data].map((l: { id: string }) => l.id)).toEqual(listed.body.data.slice(0, 4).map((l: { id: string }) => l.id));
    expectErrorShape(await get('/links/?page=0'), 400);
    expectErrorShape(await get('/links/?subid=a%20b'), 400);
  });
});
