/** Link health on the links API: each link shows `health`, and GET /links/ filters by it (docs/decisions/0064-link-health.md). */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLinkHealth } from '@cw/links';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let server: ReturnType<ReturnType<typeof createApp>['callback']>;
const B = '/api/v1/publisher';

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20, env: { RATELIMIT_LINKS_PER_MIN: '100000' } });
  server = createApp(deps).callback();
});
afterAll(async () => deps?.close());

const key = () => deps.demo!.publishers[0].keys.live;
const get = (path: string) => request(server).get(`${B}${path}`).set('X-API-Key', key());
const post = (path: string, body: unknown) =>
  request(server)
    .post(`${B}${path}`)
    .set('X-API-Key', key())
    .send(body as object);
type View = { id: string; subid: string | null; created_at: string; health: { state: string; since: string } };

describe('health on GET /links/', () => {
  it('shows a new link ok since its creation', async () => {
    const res = await post('/links/', { program_id: 1001, subid: 'health-new' });
    expect(res.status).toBe(201);
    expect(res.body.health).toEqual({ state: 'ok', since: res.body.created_at });
    expect(res.body.check_landing).toBe(false);
  });

  it('turns the landing check on and off for a link (check_landing), and keeps it when not sent', async () => {
    const on = await post('/links/', { program_id: 1001, subid: 'health-landing', check_landing: true });
    expect(on.body.check_landing).toBe(true);
    expect((await post('/links/', { program_id: 1001, subid: 'health-landing' })).body.check_landing).toBe(true);
    expect((await post('/links/', { program_id: 1001, subid: 'health-landing', check_landing: false })).body.check_landing).toBe(false);
    expectErrorShape(await post('/links/', { program_id: 1001, subid: 'health-landing', check_landing: 'yes' }), 400, 'invalid_parameter');
  });

  it('lists only the links in the state asked for after a program pauses, keeping since on the next pass', async () => {
    const a = (await post('/links/', { program_id: 1001, subid: 'health-a' })).body as View;
    const b = (await post('/links/', { campaign_id: '503', subid: 'health-b' })).body as View & { program_id: number };
    await deps.data.programs.setStatus(b.program_id, 'paused');
    const first = new Date();
    await checkLinkHealth(deps, { now: first });

    const paused = await get('/links/?health=program_paused&page_size=1000');
    expect(paused.status).toBe(200);
    const ids = paused.body.data.map((l: View) => l.id);
    expect(ids).toContain(b.id);
    expect(ids).not.toContain(a.id);
    for (const l of paused.body.data as View[]) expect(l.health.state).toBe('program_paused');
    expect(paused.body.data.find((l: View) => l.id === b.id).health).toEqual({ state: 'program_paused', since: first.toISOString() });

    const ok = await get('/links/?health=ok&page_size=1000');
    const okIds = ok.body.data.map((l: View) => l.id);
    expect(okIds).toContain(a.id);
    expect(okIds).not.toContain(b.id);
    expect(ok.body.data.find((l: View) => l.id === a.id).health).toEqual({ state: 'ok', since: a.created_at });

    // A later pass finding the same: since unchanged; with other filters.
    await checkLinkHealth(deps, { now: new Date(first.getTime() + 60_000) });
    const again = await get('/links/?health=program_paused&subid=health-b');
    expect(again.body.data.map((l: View) => [l.id, l.health.since])).toEqual([[b.id, first.toISOString()]]);
    expect((await get('/links/?health=out_of_stock&subid=health-b')).body.data).toEqual([]);
  });

  it('answers 400 naming health for a state it does not know', async () => {
    const res = await get('/links/?health=broken');
    expectErrorShape(res, 400, 'invalid_parameter');
    expect(JSON.stringify(res.body)).toContain('health');
  });
});
