/**
 * Behind one trusted proxy (TRUST_PROXY_HOPS=1) the client address is the rightmost
 * X-Forwarded-For entry, the one the proxy wrote: whatever a client puts in the header itself
 * (a new forged address on every request), it is limited and bot-flagged by its real address.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLinks } from '@cw/links';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp as trackerApp, type TrackerApp } from '@cw/app-tracker';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
let deps: TestDeps;
let tracker: TrackerApp;
let code: string;

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 10, env: { TRUST_PROXY_HOPS: '1', RATELIMIT_IP_PER_MIN: '5', RATELIMIT_ACCOUNT_PER_MIN: '1000' } });
  tracker = trackerApp(deps);
  [{ code }] = await ensureLinks(
    deps.data.links,
    deps.config.secretKey,
    [{ publisherId: deps.demo!.publishers[0].account_id, programId: 1001, merchantId: 501, landingUrl: 'https://www.example.com/', subid: 'xff' }],
    { source: 'api', listed: true },
  );
});
afterAll(async () => {
  await tracker?.clicks.close();
  await deps?.close();
});

/** What a proxy that appends sends on: the client's own header, then the address it saw. */
const via = (forged: string, real: string) => `${forged}, ${real}`;

describe('client addresses behind a trusted proxy', () => {
  it('limits a client by its real address whatever X-Forwarded-For it sends itself', async () => {
    const api = publisherApi(deps).callback();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await request(api)
        .get('/api/v1/publisher/me/')
        .set('X-API-Key', deps.demo!.publishers[0].keys.live)
        .set('X-Forwarded-For', via(`198.51.100.${i}, 10.0.0.${i}`, '203.0.113.7'));
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    // Another real address has its own budget.
    const other = await request(api)
      .get('/api/v1/publisher/me/')
      .set('X-API-Key', deps.demo!.publishers[0].keys.live)
      .set('X-Forwarded-For', via('203.0.113.7', '203.0.113.99'));
    expect(other.status).toBe(200);
  });

  it('flags clicks as bots by the real address, on the first redirect of a link and on later (cached) ones', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await request(tracker.callback())
        .get(`/c/${code}`)
        .set('User-Agent', BROWSER)
        .set('X-Forwarded-For', via(`192.0.2.${i}`, '203.0.113.50'));
      expect(res.status).toBe(302);
      ids.push(new URL(res.headers.location).searchParams.get('cw_click_id')!);
    }
    await tracker.clicks.flush();
    const clicks = (await Promise.all(ids.map((id) => deps.data.links.clickById(id)))).filter((c) => c !== null);
    const byId = new Map(clicks.map((c) => [c._id, c]));
    const flags = ids.map((id) => byId.get(id)!.is_bot);
    expect(flags).toEqual([false, false, false, false, false, true, true, true]);
    expect(new Set(ids.map((id) => byId.get(id)!.ip_hash)).size).toBe(1);
  });
});
