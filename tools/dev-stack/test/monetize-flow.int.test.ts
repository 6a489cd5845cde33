/**
 * Instant monetization end to end: a creator with no account gets a provisional link, a visitor
 * follows it (the tracker records the click), the merchant reports a sale on it (held), the
 * creator claims, and the operator's approval turns the application into a publisher account that
 * keeps the link, the click and the conversion. A rejected application can no longer change.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueMerchantToken } from '@cw/auth';
import { approveApplication, rejectApplication } from '@cw/monetize';
import { countStoredClicks } from '@cw/stats';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp as monetizeApi } from '@cw/app-monetize-api';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp as trackerApp, type TrackerApp } from '@cw/app-tracker';

let deps: TestDeps;
let tracker: TrackerApp;
let monetize: ReturnType<ReturnType<typeof monetizeApi>['callback']>;
let publisher: ReturnType<ReturnType<typeof publisherApi>['callback']>;
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20 });
  tracker = trackerApp(deps);
  monetize = monetizeApi(deps).callback();
  publisher = publisherApi(deps).callback();
});
afterAll(async () => {
  await tracker?.clicks.close();
  await deps?.close();
});

describe('instant monetization, from provisional link to publisher account', () => {
  it('records clicks and conversions on provisional links and keeps them through approval', async () => {
    const opened = await request(monetize)
      .post('/api/v1/monetize/links/')
      .send({ publisher_url: 'https://trail-notes.example/', placement_description: 'gear list', program_ids: [1001] });
    expect(opened.status).toBe(201);
    const { application_id: id, access_secret: secret } = opened.body;
    const code = new URL(opened.body.links[0].url).pathname.split('/').pop()!;

    const click = await request(tracker.callback()).get(`/c/${code}`).set('User-Agent', BROWSER);
    expect(click.status).toBe(302);
    await tracker.clicks.flush();
    await countStoredClicks(deps); // the worker's clicks round
    const clickId = new URL(click.headers.location).searchParams.get('cw_click_id')!;
    const token = (await issueMerchantToken(deps.data.auth, 501)).secret;
    const sale = await request(tracker.callback())
      .post('/api/v1/track/conversions/')
      .set('Authorization', `Bearer ${token}`)
      .send({ click_id: clickId, order_id: 'ORD-MON-1', amount: '123.45', currency: 'EUR' });
    expect(sale.status).toBe(201);

    const status = `/api/v1/monetize/requests/${id}/?access_secret=${secret}`;
    expect((await request(monetize).get(status)).body).toMatchObject({
      status: 'provisional',
      clicks: 1,
      conversions: 1,
      pending_earnings: [{ currency: 'EUR', amount: '9.88' }],
      payout_held: true,
    });

    const profile = await request(monetize)
      .patch(`/api/v1/monetize/profile/${id}/?access_secret=${secret}`)
      .send({ claim_email: 'runner@trail-notes.example', display_name: 'Trail Notes', country: 'DE' });
    expect(profile.body.status).toBe('under_review');

    const approved = await approveApplication(deps, id);
    expect(approved).toMatchObject({ status: 'approved', claim_email: 'runner@trail-notes.example', claimed_in_portal: false });
    const key = approved.api_key!.secret;
    const me = await request(publisher).get('/api/v1/publisher/me/').set('X-API-Key', key);
    expect(me.status).toBe(200);
    expect(JSON.stringify(me.body)).toContain('Trail Notes');
    const listed = await request(publisher).get('/api/v1/publisher/links/').set('X-API-Key', key);
    expect(listed.body.data.map((l: { id: string }) => l.id)).toEqual([code]);
    const clicks = await request(publisher).get('/api/v1/publisher/clicks/').set('X-API-Key', key);
    expect(JSON.stringify(clicks.body)).toContain(clickId);
    const conversions = await request(publisher).get('/api/v1/publisher/conversions/').set('X-API-Key', key);
    expect(conversions.body.data).toHaveLength(1);
    expect(conversions.body.data[0]).toMatchObject({ commission: '9.88', status: 'pending' });

    const after = (await request(monetize).get(status)).body;
    expect(after).toMatchObject({ status: 'approved', payout_held: false, clicks: 1 });
    expect(after.links[0].provisional).toBe(false);
    expectErrorShape(await request(monetize).patch(`/api/v1/monetize/profile/${id}/?access_secret=${secret}`).send({ display_name: 'Again' }), 409, 'conflict');
    await expect(approveApplication(deps, id)).rejects.toMatchObject({ code: 'invalid_transition' });
  });

  it('a rejected application is closed and its publisher never becomes an account', async () => {
    const opened = await request(monetize)
      .post('/api/v1/monetize/social-post/')
      .send({ post_text: 'Look 👉 https://www.nordlicht-sports.example/', channel: 'social' });
    expect(opened.status).toBe(201);
    // Unclaimed: approval needs a claim first.
    await expect(approveApplication(deps, opened.body.application_id)).rejects.toMatchObject({ code: 'invalid_transition' });
    const rejected = await rejectApplication(deps, opened.body.application_id, 'spam');
    expect(rejected.status).toBe('rejected');
    expect((await deps.models.Publisher.findById(rejected.account_id).lean())!.status).toBe('inactive');
    const res = await request(monetize).get(`/api/v1/monetize/requests/${opened.body.application_id}/?access_secret=${opened.body.access_secret}`);
    expect(res.body.status).toBe('rejected');
    await expect(rejectApplication(deps, 'app_doesnotexist00')).rejects.toMatchObject({ code: 'not_found' });
  });
});
