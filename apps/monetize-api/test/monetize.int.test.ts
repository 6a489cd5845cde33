/**
 * The instant-monetization API through HTTP against the real engine: programs open to instant
 * links, provisional links and social posts (no account, no e-mail), status and profile behind the
 * access secret, abuse limits and bad input.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '@cw/auth';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let http: ReturnType<ReturnType<typeof createApp>['callback']>;
let addressNo = 0;
/** Each test speaks from its own address (the daily cap is per address). */
const from = () => `203.0.113.${++addressNo}`;
const BASE = '/api/v1/monetize';
const CAP = 3;

beforeAll(async () => {
  deps = await createTestDeps({
    seedProducts: 20,
    env: { TRUST_PROXY_HOPS: '1', MONETIZE_APPLICATIONS_PER_DAY: String(CAP), RATELIMIT_MONETIZE_PER_MIN: '100000', RATELIMIT_IP_PER_MIN: '100000' },
  });
  http = createApp(deps).callback();
});
afterAll(() => deps?.close());

const links = (body: unknown, ip = from()) =>
  request(http)
    .post(`${BASE}/links/`)
    .set('X-Forwarded-For', ip)
    .send(body as object);
const social = (body: unknown, ip = from()) =>
  request(http)
    .post(`${BASE}/social-post/`)
    .set('X-Forwarded-For', ip)
    .send(body as object);
const opened = async () => {
  const res = await links({ publisher_url: 'https://trail-notes.example/', placement_description: 'gear list in my running blog', program_ids: [1001, 1008] });
  expect(res.status).toBe(201);
  return res.body as { application_id: string; access_secret: string; links: Array<{ url: string }> };
};

describe('GET /programs/', () => {
  it('lists active, joinable programs matching country, channel and topic, with their terms', async () => {
    const all = await request(http).get(`${BASE}/programs/`);
    expect(all.status).toBe(200);
    const ids = all.body.data.map((p: { id: number }) => p.id);
    expect(ids).toContain(1001);
    expect(ids).not.toContain(1012); // not joinable
    expect(all.body.data[0]).toMatchObject({
      id: expect.any(Number),
      name: expect.any(String),
      merchant: { id: expect.any(Number), name: expect.any(String) },
      commission: expect.any(String),
      cookie_days: 30,
      channels: expect.any(Array),
    });
    expect(all.body.data[0]).not.toHaveProperty('relationship');
    const de = await request(http).get(`${BASE}/programs/?country=DE&channel=coupon`);
    for (const p of de.body.data) expect(p.countries).toContain('DE');
    expect(de.body.data.map((p: { id: number }) => p.id)).not.toContain(1003); // content and social only
    const social = await request(http).get(`${BASE}/programs/?country=DE&channel=social`);
    expect(social.body.data.map((p: { id: number }) => p.id)).toContain(1003);
    const gb = await request(http).get(`${BASE}/programs/?country=UK&publisher_url=${encodeURIComponent('https://trail-notes.example/')}`);
    expect(gb.status).toBe(200);
    for (const p of gb.body.data) expect(p.countries).toContain('GB');
  });

  it('answers 400 for bad parameters', async () => {
    for (const q of [
      'country=germany',
      'channel=tv',
      'topic=x',
      'page=0',
      'page_size=101',
      'nope=1',
      'publisher_url=ftp%3A%2F%2Fx.example',
      `publisher_url=${encodeURIComponent('http://127.0.0.1/')}`,
    ]) {
      expectErrorShape(await request(http).get(`${BASE}/programs/?${q}`), 400);
    }
  });
});

describe('POST /links/', () => {
  it('issues provisional links at once, no account and no e-mail; the secret is shown once and stored hashed', async () => {
    const res = await links({
      publisher_url: 'https://trail-notes.example/',
      placement_description: 'gear list in my running blog',
      program_ids: [1008, 1001],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'provisional',
      email_required: false,
      payout_claim_required: true,
      claim: { how: expect.stringContaining('PATCH'), deadline: expect.any(String) },
    });
    expect(res.body.application_id).toMatch(/^app_/);
    expect(res.body.access_secret).toMatch(/^mon_[A-Za-z0-9_-]{40,}$/);
    expect(res.body.links.map((l: { program_id: number }) => l.program_id)).toEqual([1008, 1001]);
    for (const l of res.body.links) {
      expect(l).toMatchObject({ provisional: true, landing_url: expect.stringMatching(/^https:\/\//) });
      expect(l.url).toMatch(new RegExp(`^${deps.config.trackingUrl}/c/[A-Za-z0-9]+$`));
    }
    expect(new Date(res.body.claim.deadline).getTime() - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const stored = await deps.models.MonetizeApplication.findById(res.body.application_id).lean();
    expect(stored!.secret_hash).toBe(hashSecret(res.body.access_secret));
    expect(JSON.stringify(stored)).not.toContain(res.body.access_secret);
    expect(JSON.stringify(stored)).not.toContain('203.0.113.');
    const publisher = await deps.models.Publisher.findById(stored!.publisher_id).lean();
    expect(publisher).toMatchObject({ status: 'provisional', website: 'https://trail-notes.example/' });
  });

  it('defaults to every program open to instant links', async () => {
    const res = await links({ publisher_url: 'https://trail-notes.example/', placement_description: 'sidebar' });
    expect(res.status).toBe(201);
    const open = await request(http).get(`${BASE}/programs/?page_size=100`);
    expect(res.body.links.map((l: { program_id: number }) => l.program_id)).toEqual(open.body.data.map((p: { id: number }) => p.id));
  });

  it('refuses bad bodies with 400: unknown members, closed programs, URLs that are not public http(s)', async () => {
    const ok = { publisher_url: 'https://trail-notes.example/', placement_description: 'gear list' };
    for (const body of [
      {},
      { ...ok, extra: 1 },
      { ...ok, program_ids: [1012] },
      { ...ok, program_ids: [999999] },
      { ...ok, program_ids: [] },
      { ...ok, program_ids: [1001, 1001] },
      { ...ok, program_ids: ['1001'] },
      { ...ok, placement_description: 'x'.repeat(501) },
      { ...ok, publisher_url: 'javascript:alert(1)' },
      { ...ok, publisher_url: 'https://me:pw@trail-notes.example/' },
      { ...ok, publisher_url: 'http://192.168.1.10/' },
      { ...ok, publisher_url: 'http://localhost:8080/' },
      { ...ok, publisher_url: 42 },
    ]) {
      const res = await links(body);
      expectErrorShape(res, 400);
    }
    expectErrorShape(await request(http).post(`${BASE}/links/`).set('Content-Type', 'application/json').send('{"publisher_url":'), 400);
  });

  it('caps applications per address per day (429 with Retry-After); other addresses are unaffected', async () => {
    const ip = from();
    const body = { publisher_url: 'https://trail-notes.example/', placement_description: 'gear list', program_ids: [1001] };
    for (let i = 0; i < CAP; i++) expect((await links(body, ip)).status).toBe(201);
    const over = await links(body, ip);
    expectErrorShape(over, 429, 'rate_limited');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(86_000);
    expectErrorShape(await social({ post_text: 'https://www.nordlicht-sports.example/x', channel: 'social' }, ip), 429, 'rate_limited');
    expect((await links(body)).status).toBe(201);
  });
});

describe('POST /social-post/', () => {
  it('rewrites merchant URLs to provisional links and leaves everything else as sent, in any script and with emoji', async () => {
    const text =
      'Лучшие кроссовки 👟 https://www.nordlicht-sports.example/p/summit?size=42#reviews — 日本語も OK!\n' +
      'Not a merchant: https://en.wikipedia.org/wiki/Trail_running, mail me: me@trail-notes.example 🙂\n' +
      '(https://shop.casacucina.example/pan) عربي 🇩🇪';
    const res = await social({ post_text: text, channel: 'social' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'provisional', email_required: false, payout_claim_required: true });
    expect(res.body.links).toHaveLength(2);
    const [a, b] = res.body.links;
    expect(a).toMatchObject({
      original_url: 'https://www.nordlicht-sports.example/p/summit?size=42#reviews',
      landing_url: 'https://www.nordlicht-sports.example/p/summit?size=42',
      provisional: true,
    });
    expect(b).toMatchObject({ original_url: 'https://shop.casacucina.example/pan', provisional: true });
    const expected = text.replace(a.original_url, a.url).replace(b.original_url, b.url);
    expect(res.body.post_text).toBe(expected);
    expect(res.body.post_text).toContain('https://en.wikipedia.org/wiki/Trail_running');
    expect(res.body.post_text).toContain('me@trail-notes.example 🙂');
  });

  it('a claim e-mail makes the application claimed at once', async () => {
    const res = await social({ post_text: 'New pan! https://www.casacucina.example/pan', channel: 'content', claim_email: 'cook@trail-notes.example' });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('claimed');
  });

  it('answers 422 when no URL belongs to a merchant open for the channel, and 400 for bad bodies', async () => {
    expectErrorShape(await social({ post_text: 'Nothing here but https://en.wikipedia.org/ 🎉', channel: 'social' }), 422, 'no_merchant_urls');
    // Klangwerk accepts content and social only; Gadget Vault's program is not joinable.
    expectErrorShape(await social({ post_text: 'Coupons: https://www.klangwerk.example/deal', channel: 'coupon' }), 422, 'no_merchant_urls');
    expectErrorShape(await social({ post_text: 'Laptop: https://www.gadgetvault.example/nova', channel: 'content' }), 422, 'no_merchant_urls');
    expect((await social({ post_text: 'Headphones: https://www.klangwerk.example/deal', channel: 'content' })).status).toBe(201);
    for (const body of [
      { channel: 'social' },
      { post_text: 'x', channel: 'radio' },
      { post_text: '', channel: 'social' },
      { post_text: `${'😀'.repeat(10_001)}`, channel: 'social' },
      { post_text: `${'a'.repeat(10_001)}`, channel: 'social' },
      { post_text: 'https://www.casacucina.example/', channel: 'social', claim_email: 'not-an-email' },
      { post_text: 'https://www.casacucina.example/', channel: 'social', extra: true },
    ])
      expectErrorShape(await social(body), 400);
    expect((await social({ post_text: `${'a'.repeat(9_960)} https://www.casacucina.example/`, channel: 'social' })).status).toBe(201);
  });
});

describe('GET /requests/{id}/ and /profile/{id}/', () => {
  it('show status, links, clicks and pending earnings with the secret, and 404 without it or with a wrong one', async () => {
    const app = await opened();
    const res = await request(http).get(`${BASE}/requests/${app.application_id}/?access_secret=${app.access_secret}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      application_id: app.application_id,
      status: 'provisional',
      clicks: 0,
      conversions: 0,
      pending_earnings: [],
      payout_held: true,
    });
    expect(res.body.links.map((l: { url: string }) => l.url).sort()).toEqual(app.links.map((l) => l.url).sort());
    for (const path of ['requests', 'profile']) {
      expectErrorShape(await request(http).get(`${BASE}/${path}/${app.application_id}/`), 404, 'not_found');
      expectErrorShape(
        await request(http).get(`${BASE}/${path}/${app.application_id}/?access_secret=mon_wrong${app.access_secret.slice(9)}`),
        404,
        'not_found',
      );
      expectErrorShape(await request(http).get(`${BASE}/${path}/app_doesnotexist00/?access_secret=${app.access_secret}`), 404, 'not_found');
      expectErrorShape(await request(http).get(`${BASE}/${path}/../../x?access_secret=${app.access_secret}`), 404);
      expectErrorShape(await request(http).get(`${BASE}/${path}/${app.application_id}/?access_secret=${app.access_secret}&x=1`), 400);
    }
    expectErrorShape(
      await request(http).patch(`${BASE}/profile/${app.application_id}/?access_secret=nope-nope-nope-nope`).send({ display_name: 'X' }),
      404,
      'not_found',
    );
  });

  it('reads and changes the profile: a claim e-mail claims, with name and country it goes under review', async () => {
    const app = await opened();
    const url = `${BASE}/profile/${app.application_id}/?access_secret=${app.access_secret}`;
    const first = await request(http).get(url);
    expect(first.body).toEqual({
      application_id: app.application_id,
      status: 'provisional',
      display_name: null,
      website: 'https://trail-notes.example/',
      channels: [],
      country: null,
      claim_email: null,
    });
    const claimed = await request(http)
      .patch(url)
      .send({ claim_email: 'runner@trail-notes.example', channels: ['content', 'social'] });
    expect(claimed.status).toBe(200);
    expect(claimed.body).toMatchObject({ status: 'claimed', claim_email: 'runner@trail-notes.example', channels: ['content', 'social'] });
    const review = await request(http).patch(url).send({ display_name: 'Trail Notes 🏃', country: 'UK', website: 'https://trail-notes.example/about' });
    expect(review.body).toMatchObject({ status: 'under_review', display_name: 'Trail Notes 🏃', country: 'GB', website: 'https://trail-notes.example/about' });
    expect((await request(http).get(url)).body).toEqual(review.body);
    expect((await request(http).get(`${BASE}/requests/${app.application_id}/?access_secret=${app.access_secret}`)).body.status).toBe('under_review');
  });

  it('refuses bad profile changes with 400', async () => {
    const app = await opened();
    const url = `${BASE}/profile/${app.application_id}/?access_secret=${app.access_secret}`;
    for (const body of [
      {},
      { nickname: 'x' },
      { display_name: '' },
      { channels: ['tv'] },
      { channels: ['content', 'content'] },
      { country: 'Germany' },
      { claim_email: 'x@' },
      { website: 'http://10.0.0.1/' },
      { website: 'file:///etc/passwd' },
    ]) {
      expectErrorShape(await request(http).patch(url).send(body), 400);
    }
  });
});
