/**
 * Clicks from hosting and data-centre networks (issue 66, docs/decisions/0067-datacenter-clicks.md),
 * through HTTP: the tracker behind one trusted proxy, its AS table the test table (real rows of
 * `@ip-location-db/asn`, loaded by the same code as the package's); a click from an AWS or Hetzner
 * address (IPv4 and IPv6) is recorded with `bot_reason: datacenter`, one from Comcast or Deutsche
 * Telekom is not, on the first redirect of a link (Koa) and on cached ones (the node route). The
 * flagged clicks are left out of the list by default and listed apart with
 * `bot_reason=datacenter`; a sale on one is refused as on any flagged click. ASN_FIXTURE places a
 * documentation address, HOSTING_ASNS adds an AS.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueMerchantToken } from '@cw/auth';
import { serveApp } from '@cw/http';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp as trackerApp, type TrackerApp } from '@cw/app-tracker';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const B = '/api/v1/publisher';
/** Addresses in the test table's rows. */
const AWS = '3.5.140.2';
const HETZNER_V6 = '2a01:4f8:c17:1::9';
const COMCAST = '73.1.2.3';
const TELEKOM_V6 = '2003:e0:1::77';

let deps: TestDeps;
let tracker: TrackerApp;
let publisher: ReturnType<ReturnType<typeof publisherApi>['callback']>;
let redirect: ReturnType<typeof serveApp>;
let key: string;
let merchantToken: string;

beforeAll(async () => {
  deps = await createTestDeps({
    seedProducts: 10,
    env: {
      TRUST_PROXY_HOPS: '1',
      // A documentation address in an AS that is no hosting network, made one by the override.
      ASN_FIXTURE: JSON.stringify({ '203.0.113.0/28': 64500 }),
      HOSTING_ASNS: '64500',
      RATELIMIT_IP_PER_MIN: '1000000',
      RATELIMIT_REPORTING_PER_MIN: '1000000',
      RATELIMIT_LINKS_PER_MIN: '1000000',
    },
  });
  tracker = trackerApp(deps);
  await tracker.networksLoaded;
  publisher = publisherApi(deps).callback();
  redirect = serveApp(tracker);
  key = deps.demo!.publishers[0].keys.live;
  merchantToken = (await issueMerchantToken(deps.data.auth, 501)).secret;
});
afterAll(async () => {
  await tracker?.clicks.close();
  await tracker?.addresses.close();
  await deps?.close();
});

/** A visit through the trusted proxy: the proxy appends the address it saw. */
const visit = (code: string, ip: string, ua = BROWSER) => request(redirect).get(`/c/${code}`).set('User-Agent', ua).set('X-Forwarded-For', ip);

async function clickOf(location: string) {
  await tracker.clicks.flush();
  const id = new URL(location).searchParams.get('cw_click_id')!;
  return deps.data.links.clickById(id);
}

describe('clicks from data-centre networks', () => {
  let code: string;

  beforeAll(async () => {
    const res = await request(publisher).post(`${B}/links/`).set('X-API-Key', key).send({ program_id: 1001, subid: 'dc' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    code = res.body.id;
  });

  it('records a click from an AWS address (IPv4) or Hetzner (IPv6) as a bot with reason datacenter, first (Koa) and cached (node route)', async () => {
    for (const ip of [AWS, AWS, HETZNER_V6]) {
      const res = await visit(code, ip);
      // Redirected like any click: the flag changes what reports count, not where the visitor goes.
      expect(res.status).toBe(302);
      const click = await clickOf(res.headers.location);
      expect([click?.is_bot, click?.bot_reason]).toEqual([true, 'datacenter']);
    }
  });

  it('records a click from a consumer network (Comcast IPv4, Deutsche Telekom IPv6) as a person', async () => {
    for (const ip of [COMCAST, TELEKOM_V6]) {
      const click = await clickOf((await visit(code, ip)).headers.location);
      expect([click?.is_bot, click?.bot_reason ?? null], ip).toEqual([false, null]);
    }
  });

  it("keeps an agent's own reason from a data-centre address", async () => {
    const click = await clickOf((await visit(code, AWS, 'python-httpx/0.27.0')).headers.location);
    expect(click?.bot_reason).toBe('user_agent');
  });

  it('places fixture addresses, and counts an AS added by HOSTING_ASNS', async () => {
    expect((await clickOf((await visit(code, '203.0.113.5')).headers.location))?.bot_reason).toBe('datacenter');
    expect((await clickOf((await visit(code, '203.0.113.50')).headers.location))?.bot_reason ?? null).toBeNull();
  });

  it('leaves datacenter clicks out of the list by default and lists them apart', async () => {
    const list = (q: string) => request(publisher).get(`${B}/clicks/?deeplink_id=${code}${q}`).set('X-API-Key', key);
    const people = (await list('')).body.data as Array<{ bot_reason: string | null; is_bot: boolean }>;
    expect(people.length).toBe(3);
    expect(people.every((c) => !c.is_bot)).toBe(true);
    const apart = (await list('&bot_reason=datacenter')).body.data as Array<{ bot_reason: string }>;
    expect(apart.map((c) => c.bot_reason)).toEqual(['datacenter', 'datacenter', 'datacenter', 'datacenter']);
    expect(((await list('&include_bots=true')).body.data as unknown[]).length).toBe(8);
  });

  it('refuses a sale on a datacenter click as on any flagged click', async () => {
    const location = (await visit(code, AWS)).headers.location as string;
    await tracker.clicks.flush();
    const clickId = new URL(location).searchParams.get('cw_click_id')!;
    const res = await request(tracker.callback())
      .post('/api/v1/track/conversions/')
      .set('Authorization', `Bearer ${merchantToken}`)
      .send({ click_id: clickId, order_id: 'DC-1', amount: '10.00', currency: 'EUR' });
    expectErrorShape(res, 422, 'click_is_bot');
  });
});
