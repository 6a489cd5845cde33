/** The reporting token reads the account's events feed at /api/v1/affiliate-reporting/events/: the publisher API's feed, the same cursors. */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '@cw/events-feed';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let server: ReturnType<ReturnType<typeof createApp>['callback']>;
beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20, env: { RATELIMIT_REPORTING_TOKEN_PER_MIN: '100000' } });
  server = createApp(deps).callback();
});
afterAll(async () => deps?.close());

const get = (path: string, token = deps.demo!.publishers[0].reporting_token) =>
  request(server).get(`/api/v1/affiliate-reporting${path}`).set('Authorization', `Bearer ${token}`);

describe('GET /api/v1/affiliate-reporting/events/', () => {
  it("pages the account's events with the publisher feed's order and cursors", async () => {
    const account = deps.demo!.publishers[0].account_id;
    const first = await get('/events/?limit=20');
    expect(first.status).toBe(200);
    expect(first.body).toEqual(await listEvents(deps, account, { limit: 20 }));
    const next = await get(`/events/?limit=5&cursor=${first.body.next_cursor}`);
    expect(next.body.data).toEqual((await listEvents(deps, account, { limit: 25 })).data.slice(20));
  });

  it("takes only the reporting token, and refuses another account's cursor", async () => {
    expectErrorShape(await get('/events/', deps.demo!.publishers[0].keys.live), 401, 'not_authenticated');
    const theirs = (await get('/events/?limit=1', deps.demo!.publishers[1].reporting_token)).body.next_cursor as string;
    expectErrorShape(await get(`/events/?cursor=${theirs}`), 400, 'invalid_parameter');
  });
});
