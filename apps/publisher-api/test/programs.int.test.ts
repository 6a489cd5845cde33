/** Programs: list, joinable, apply (with Idempotency-Key), through HTTP against the engine. */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let server: ReturnType<ReturnType<typeof createApp>['callback']>;
const B = '/api/v1/publisher';

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20, env: { RATELIMIT_PROGRAMS_PER_MIN: '100000' } });
  server = createApp(deps).callback();
});
afterAll(async () => deps?.close());

const keys = (i = 0) => deps.demo!.publishers[i].keys;
const get = (path: string, key = keys().live) => request(server).get(`${B}${path}`).set('X-API-Key', key);
const apply = (body: unknown, key = keys().live, idem?: string) => {
  const r = request(server).post(`${B}/programs/apply/`).set('X-API-Key', key);
  if (idem) r.set('Idempotency-Key', idem);
  return r.send(body as object);
};

describe('GET /programs/', () => {
  it("lists the caller's assignments with their relationship in a page envelope", async () => {
    const res = await get('/programs/');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor', 'next_page', 'page', 'page_size']);
    expect(res.body).toMatchObject({ page: 1, page_size: 50, has_more: false, next_page: null, next_cursor: null });
    const rel = Object.fromEntries(res.body.data.map((p: { id: number; relationship: string }) => [p.id, p.relationship]));
    expect(rel).toMatchObject({ 1001: 'approved', 1006: 'pending', 1007: 'rejected' });
    expect(rel[1008]).toBeUndefined();
    const p = res.body.data.find((x: { id: number }) => x.id === 1001);
    expect(p).toMatchObject({ name: expect.any(String), merchant: { id: 501, name: 'Nordlicht Sports' }, campaign_id: 501, status: 'active' });
  });

  it('adds programs open for application with include_available=true, filters by name, and pages', async () => {
    const all = await get('/programs/?include_available=true&page_size=1000');
    const ids = all.body.data.map((p: { id: number }) => p.id);
    expect(ids).toContain(1008);
    expect(ids).not.toContain(1012); // invitation only
    expect(all.body.data.find((p: { id: number }) => p.id === 1008).relationship).toBe('available');
    const name = all.body.data[0].name as string;
    const searched = await get(`/programs/?include_available=true&search=${encodeURIComponent(name.slice(0, 5).toUpperCase())}`);
    expect(searched.body.data.length).toBeGreaterThan(0);
    for (const p of searched.body.data) expect(p.name.toLowerCase()).toContain(name.slice(0, 5).toLowerCase());
    const p1 = await get('/programs/?include_available=true&page_size=3');
    const p2 = await get('/programs/?include_available=true&page_size=3&page=2');
    expect(p1.body).toMatchObject({ has_more: true, next_page: 2 });
    expect([...p1.body.data, ...p2.body.data].map((p: { id: number }) => p.id)).toEqual(ids.slice(0, 6));
  });

  it('answers 400 for page 0, page_size over 1000, unknown and repeated parameters', async () => {
    expectErrorShape(await get('/programs/?page=0'), 400, 'invalid_parameter');
    expectErrorShape(await get('/programs/?page_size=1001'), 400, 'invalid_parameter');
    expectErrorShape(await get('/programs/?status=approved'), 400, 'unknown_parameter');
    expectErrorShape(await get('/programs/?page=1&page=2'), 400, 'repeated_parameter');
  });

  it('refuses demo keys, and shows another publisher only its own assignments', async () => {
    expectErrorShape(await get('/programs/', keys().demo), 403, 'credential_not_allowed');
    const other = await get('/programs/', keys(1).live);
    const rel = Object.fromEntries(other.body.data.map((p: { id: number; relationship: string }) => [p.id, p.relationship]));
    expect(rel[1006]).toBe('approved');
    expect(rel[1007]).toBeUndefined();
  });
});

describe('GET /programs/joinable/', () => {
  it('lists active programs open for application that the caller is not assigned to', async () => {
    const res = await get('/programs/joinable/');
    expect(res.status).toBe(200);
    const ids = res.body.data.map((p: { id: number }) => p.id);
    expect(ids).toContain(1008);
    expect(ids).toContain(1009);
    for (const assigned of [1001, 1006, 1007, 1012]) expect(ids).not.toContain(assigned);
  });
});

describe('POST /programs/apply/', () => {
  it('answers 201 when the program approves at once, then 200 with the same assignment', async () => {
    const first = await apply({ program_id: 1008 });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ program_id: 1008, status: 'approved', created: true, program: { relationship: 'approved' } });
    const again = await apply({ program_id: 1008 });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ program_id: 1008, status: 'approved', created: false });
    expect((await get('/programs/joinable/')).body.data.map((p: { id: number }) => p.id)).not.toContain(1008);
  });

  it('answers 200 pending review when the program reviews applications, and a decision stands', async () => {
    const res = await apply({ program_id: 1009, campaign_id: '508' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'pending', created: true, decided_at: null });
    const rejected = await apply({ program_id: 1007 });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'rejected', created: false });
  });

  it('answers 404 for an unknown program, 403 for invitation-only programs, 400 for bad bodies', async () => {
    expectErrorShape(await apply({ program_id: 999999 }), 404, 'not_found');
    expectErrorShape(await apply({ program_id: 1012 }, keys(1).live), 403, 'program_not_joinable');
    expectErrorShape(await apply({ program_id: 1009, campaign_id: 501 }), 400, 'invalid_parameter');
    expectErrorShape(await apply({}), 400);
    expectErrorShape(await apply({ program_id: '1009' }), 400);
    expectErrorShape(await apply({ program_id: 1009, extra: true }), 400);
    const bad = await request(server)
      .post(`${B}/programs/apply/`)
      .set('X-API-Key', keys().live)
      .set('Content-Type', 'application/json')
      .send('{"program_id": ');
    expectErrorShape(bad, 400, 'invalid_json');
  });

  it('never applies for demo keys, demo accounts or read-only keys', async () => {
    expectErrorShape(await apply({ program_id: 1009 }, keys(1).demo), 403, 'credential_not_allowed');
    expectErrorShape(await apply({ program_id: 1009 }, keys(1).read_only), 403, 'credential_not_allowed');
    await deps.models.Publisher.updateOne({ _id: 'pub_dealradar' }, { $set: { is_demo: true } });
    try {
      expectErrorShape(await apply({ program_id: 1009 }, keys(1).live), 403, 'credential_not_allowed');
    } finally {
      await deps.models.Publisher.updateOne({ _id: 'pub_dealradar' }, { $set: { is_demo: false } });
    }
    expect(await deps.models.Membership.countDocuments({ publisher_id: 'pub_dealradar', program_id: 1009 })).toBe(0);
  });

  it('replays the first response for a retried Idempotency-Key, and 409 for another body', async () => {
    const first = await apply({ program_id: 1009 }, keys(1).live, 'apply-1009-a');
    expect(first.status).toBe(200);
    const replay = await apply({ program_id: 1009 }, keys(1).live, 'apply-1009-a');
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expectErrorShape(await apply({ program_id: 1008 }, keys(1).live, 'apply-1009-a'), 409, 'idempotency_key_reused');
  });
});
