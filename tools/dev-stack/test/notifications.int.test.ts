/**
 * Notification mail end to end (issue 63, decision record 0056): the portal and the worker on one
 * database, mail through a real local SMTP server. A person's settings through the portal API; a
 * payout paid mail with its unsubscribe link and List-Unsubscribe headers; the one-click POST turns
 * it off and the next one does not arrive; an SMTP server that is down never holds up a request,
 * and the mail goes out once it is back; a reversal after payout and a failing postback endpoint
 * (at most once a day); the weekly summary of the seeded account, once per person and week.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { book } from '@cw/ledger';
import { addDays } from '@cw/stats';
import { MAIL_JOB, notifyPeople, queueWeeklySummaries, weekDue, weeklyNumbers } from '@cw/notifications';
import { browser, PORTAL_API, startNotifications, tokenIn, until, type NotificationsHarness } from './support/notifications-harness';

let h: NotificationsHarness;
const pub = (i: number) => h.deps.demo!.publishers[i]!;
const ownerOf = (i: number) => pub(i).portal_login;

beforeAll(async () => {
  h = await startNotifications();
}, 90_000);
afterAll(async () => {
  await h?.close();
});

const mailsTo = (email: string, subject?: RegExp) => h.sink.to(email).filter((m) => !subject || subject.test(m.headers.subject ?? ''));

describe('notification settings through the portal API', () => {
  it('shows every kind to the owner, all on, and saves a change with the settings as they now are', async () => {
    const b = browser(h);
    await b.signIn(ownerOf(1));
    const res = await b.get('/me/notifications');
    expect(res.status).toBe(200);
    const kinds = Object.fromEntries(res.body.kinds.map((k: { kind: string; enabled: boolean; receives: boolean }) => [k.kind, k]));
    expect(Object.keys(kinds)).toEqual(
      expect.arrayContaining([
        'payout_paid',
        'payout_failed',
        'payout_method_changed',
        'tax_profile_changed',
        'sale_reversed_after_payout',
        'inquiry_decided',
        'postback_failing',
        'weekly_summary',
      ]),
    );
    expect(Object.values(kinds).every((k) => (k as { enabled: boolean }).enabled && (k as { receives: boolean }).receives)).toBe(true);
    const saved = await b.put('/me/notifications', { kinds: { postback_failing: false } });
    expect(saved.status).toBe(200);
    expect(saved.body.kinds.find((k: { kind: string }) => k.kind === 'postback_failing')).toMatchObject({ enabled: false });
    expect((await b.get('/me/notifications')).body.kinds.find((k: { kind: string }) => k.kind === 'postback_failing').enabled).toBe(false);
    await b.put('/me/notifications', { kinds: { postback_failing: true } });
  });

  it('tells an analyst which kinds reach their role, with the weekly summary off until they turn it on', async () => {
    const b = browser(h);
    await b.signIn(h.deps.demo!.fixtures.analyst_login);
    const kinds = (await b.get('/me/notifications')).body.kinds as Array<{ kind: string; enabled: boolean; receives: boolean }>;
    expect(kinds.find((k) => k.kind === 'payout_paid')).toMatchObject({ receives: false });
    expect(kinds.find((k) => k.kind === 'weekly_summary')).toMatchObject({ receives: true, enabled: false });
  });

  it('answers 400 naming an unknown kind or a value that is not true or false, and 401 without a session', async () => {
    const b = browser(h);
    await b.signIn(ownerOf(1));
    const unknown = await b.put('/me/notifications', { kinds: { newsletter: false } });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body.errors)).toContain('newsletter');
    expect(unknown.body.request_id).toBeTruthy();
    const notBool = await b.put('/me/notifications', { kinds: { payout_paid: 'no' } });
    expect(notBool.status).toBe(400);
    expect(JSON.stringify(notBool.body.errors)).toContain('payout_paid');
    expect((await b.put('/me/notifications', { kinds: {} })).status).toBe(400);
    expect((await request(h.http).get(`${PORTAL_API}/me/notifications`)).status).toBe(401);
  });

  it('keeps the person’s own time zone, refuses one that is not an IANA zone, and clears it with null', async () => {
    const b = browser(h);
    await b.signIn(ownerOf(1));
    expect((await b.get('/me/notifications')).body.timezone).toBeNull();
    const set = await b.put('/me/notifications', { timezone: 'America/New_York' });
    expect(set.status).toBe(200);
    expect(set.body.timezone).toBe('America/New_York');
    expect((await b.get('/me/notifications')).body.timezone).toBe('America/New_York');
    for (const bad of ['Mars/Olympus_Mons', 'EST5EDT+1', 42]) {
      const res = await b.put('/me/notifications', { timezone: bad });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_parameter');
      expect(JSON.stringify(res.body.errors)).toContain('timezone');
    }
    expect((await b.put('/me/notifications', {})).status).toBe(400);
    expect((await b.get('/me/notifications')).body.timezone).toBe('America/New_York');
    const cleared = await b.put('/me/notifications', { timezone: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.timezone).toBeNull();
  });
});

describe('a payout paid mail', () => {
  it('arrives through SMTP with an unsubscribe link and the List-Unsubscribe headers; one click turns it off and the next does not arrive', async () => {
    const owner = ownerOf(0).email;
    expect(await notifyPeople(h.deps, { kind: 'payout_paid', publisherId: pub(0).account_id, payoutId: 'po_notify_1' })).toBeGreaterThanOrEqual(1);
    const [mail] = await until(() => (mailsTo(owner, /po_notify_1/).length ? mailsTo(owner, /po_notify_1/) : null));
    expect(mail!.headers['list-unsubscribe']).toMatch(/^<http:\/\/.+\/unsubscribe\/one-click\?t=[^>]+>$/);
    expect(mail!.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(mail!.body).toContain('/unsubscribe?t=');
    // The job held ids only: no address, no text of the mail.
    const t = tokenIn(mail!.headers['list-unsubscribe']!, '/unsubscribe/one-click');
    expect(tokenIn(mail!.body, '/unsubscribe')).toBe(t);

    const oneClick = await request(h.http)
      .post(`/unsubscribe/one-click?t=${encodeURIComponent(t)}`)
      .type('form')
      .send('List-Unsubscribe=One-Click');
    expect(oneClick.status).toBe(200);
    expect(oneClick.body).toMatchObject({ kind: 'payout_paid', enabled: false });

    const b = browser(h);
    await b.signIn(ownerOf(0));
    expect((await b.get('/me/notifications')).body.kinds.find((k: { kind: string }) => k.kind === 'payout_paid').enabled).toBe(false);

    // The next payout paid: nobody of the account has it on any more (the only owner turned it off).
    await notifyPeople(h.deps, { kind: 'payout_paid', publisherId: pub(0).account_id, payoutId: 'po_notify_2' });
    // A mail of another kind, queued after it, arrives: the worker ran past the second one.
    await notifyPeople(h.deps, { kind: 'payout_failed', publisherId: pub(0).account_id, payoutId: 'po_notify_3' });
    await until(() => mailsTo(owner, /po_notify_3/).length);
    expect(mailsTo(owner, /po_notify_2/)).toHaveLength(0);
    await b.put('/me/notifications', { kinds: { payout_paid: true } });
  });

  it('queued before the person turned it off, is not sent', async () => {
    const owner = ownerOf(0).email;
    await h.worker.agenda.stop();
    try {
      await notifyPeople(h.deps, { kind: 'payout_paid', publisherId: pub(0).account_id, payoutId: 'po_notify_4' });
      const b = browser(h);
      await b.signIn(ownerOf(0));
      await b.put('/me/notifications', { kinds: { payout_paid: false } });
    } finally {
      await h.worker.agenda.start();
    }
    await notifyPeople(h.deps, { kind: 'payout_failed', publisherId: pub(0).account_id, payoutId: 'po_notify_5' });
    await until(() => mailsTo(owner, /po_notify_5/).length);
    await until(async () => !(await h.deps.models.AgendaJob.exists({ name: MAIL_JOB, 'data.notice.payoutId': 'po_notify_4' })));
    expect(mailsTo(owner, /po_notify_4/)).toHaveLength(0);
    const b = browser(h);
    await b.signIn(ownerOf(0));
    await b.put('/me/notifications', { kinds: { payout_paid: true } });
  });
});

describe('an SMTP server that is down', () => {
  it('never holds up the request that raised a notice; the mail goes out once the server is back', async () => {
    const owner = ownerOf(1).email;
    await h.sink.close();
    try {
      const b = browser(h);
      await b.signIn(ownerOf(1));
      // A payout method change tells the owner: the answer comes while no SMTP server listens.
      const res = await b.put(`/accounts/${pub(1).account_id}/payout-settings`, {
        method: { type: 'iban', holder_name: 'Second Shop GmbH', iban: 'DE02120300000000202051', bic: 'BYLADEM1001' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(mailsTo(owner, /payout method/i)).toHaveLength(0);
      // The worker tried, failed, and scheduled the job again.
      const failed = await until(() =>
        h.deps.models.AgendaJob.findOne({ name: MAIL_JOB, 'data.account_id': pub(1).account_id, failCount: { $gte: 1 } }).lean(),
      );
      expect(JSON.stringify(failed)).not.toContain(owner);
    } finally {
      await h.sink.listen(h.smtpPort);
    }
    const [mail] = await until(() => (mailsTo(owner, /payout method/i).length ? mailsTo(owner, /payout method/i) : null));
    expect(mail!.headers['list-unsubscribe']).toContain('/unsubscribe/one-click?t=');
  });
});

describe('notices other domains raise', () => {
  it('a reversal of a sale whose commission was paid out mails the owner once; one not paid out mails nobody', async () => {
    const id = pub(1).account_id;
    const owner = ownerOf(1).email;
    const at = (s: number) => new Date(Date.now() - s * 1000);
    const credit = (key: string, conversionId: string, created: Date) =>
      book(h.deps, {
        key,
        publisher_id: id,
        type: 'commission',
        conversion_id: conversionId,
        created_at: created,
        postings: [
          { account: 'publisher', currency: 'EUR', amount: '12.50' },
          { account: 'merchant_commission', currency: 'EUR', amount: '-12.50' },
        ],
      });
    await credit('test:paid-sale', 'cnv_notify_paid', at(30));
    await book(h.deps, {
      key: 'test:payout',
      publisher_id: id,
      type: 'payout',
      payout_id: 'po_notify_rev',
      created_at: at(20),
      postings: [
        { account: 'publisher', currency: 'EUR', amount: '-12.50' },
        { account: 'payouts', currency: 'EUR', amount: '12.50' },
      ],
    });
    await credit('test:unpaid-sale', 'cnv_notify_unpaid', at(10));
    // What the ledger tells the composition root's listener when it books a reversal.
    for (const conversionId of ['cnv_notify_paid', 'cnv_notify_paid', 'cnv_notify_unpaid'])
      await h.deps.data.ledger.reversalBooked({ publisherId: id, conversionId, currency: 'EUR', amount: '12.50' });
    const [mail] = await until(() => (mailsTo(owner, /reversed/).length ? mailsTo(owner, /reversed/) : null));
    expect(mail!.body).toContain('cnv_notify_paid');
    expect(mail!.body).toContain('€12.50');
    expect(mail!.body).toContain('po_notify_rev');
    await notifyPeople(h.deps, { kind: 'payout_failed', publisherId: id, payoutId: 'po_notify_after_rev' });
    await until(() => mailsTo(owner, /po_notify_after_rev/).length);
    expect(mailsTo(owner, /reversed/)).toHaveLength(1);
  });

  it('a postback endpoint whose breaker opens mails the owner at most once a day', async () => {
    const id = pub(1).account_id;
    const owner = ownerOf(1).email;
    await h.deps.data.postbacks.breakerOpened(id);
    await h.deps.data.postbacks.breakerOpened(id);
    await until(() => mailsTo(owner, /postback endpoint/).length);
    await notifyPeople(h.deps, { kind: 'payout_failed', publisherId: id, payoutId: 'po_notify_after_breaker' });
    await until(() => mailsTo(owner, /po_notify_after_breaker/).length);
    expect(mailsTo(owner, /postback endpoint/)).toHaveLength(1);
    expect(mailsTo(owner, /postback endpoint/)[0]!.body).toContain('/settings/postback');
  });
});

describe('the weekly summary', () => {
  it('mails the owner last week’s clicks, sales and commission (Intl-formatted) and top links, once per person and week', async () => {
    const account = (await h.deps.data.auth.publisherById(pub(0).account_id))!;
    // A Monday, 09:00 in the account's zone, a week or two back (the seed's traffic is in the last
    // 90 days; the worker's own pass at its start may have queued this week's already).
    let now = new Date(Date.now() - 7 * 86_400_000);
    let due = weekDue(account.timezone, now);
    for (let back = 0; !due && back < 8 * 24; back++) {
      now = new Date(now.getTime() - 3_600_000);
      due = weekDue(account.timezone, now);
    }
    expect(due).toBeTruthy();
    const expected = await weeklyNumbers(h.deps, { publisherId: account._id, from: due!.from, to: due!.to });
    const first = await queueWeeklySummaries(h.deps, now);
    expect(first.queued).toBeGreaterThanOrEqual(1);
    // Run again (another worker, a crash): nothing more is queued.
    expect((await queueWeeklySummaries(h.deps, now)).queued).toBe(0);
    const owner = ownerOf(0).email;
    const firstDay = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${addDays(due!.week, -7)}T00:00:00Z`));
    const ofWeek = () => mailsTo(owner, /Your week on/).filter((m) => m.body.includes(`, ${firstDay} to `));
    const [mail] = await until(() => (ofWeek().length ? ofWeek() : null));
    expect(ofWeek()).toHaveLength(1);
    const clicks = new Intl.NumberFormat('en').format(expected.clicks);
    expect(mail!.body).toContain(`Clicks: ${clicks}`);
    expect(mail!.body).toContain(`Sales: ${new Intl.NumberFormat('en').format(expected.sales)}`);
    for (const c of expected.commission)
      expect(mail!.body).toContain(new Intl.NumberFormat('en', { style: 'currency', currency: c.currency }).format(c.amount as unknown as number));
    if (expected.topLinks.length) expect(mail!.body).toContain('Top links:');
    expect(mail!.headers['list-unsubscribe']).toContain('/unsubscribe/one-click?t=');
    // The analyst (weekly summary off by default) got none.
    expect(mailsTo(h.deps.demo!.fixtures.analyst_login.email, /Your week on/)).toHaveLength(0);
    // Outside Monday 08:00 to Tuesday's end nothing is due.
    expect(weekDue(account.timezone, new Date(due!.to + 3 * 86_400_000))).toBeNull();
  });

  it('comes in the person’s own time zone, set in their notification settings, over that zone’s week', async () => {
    const zone = 'Pacific/Kiritimati'; // UTC+14: its Monday 09:00 is Sunday in UTC
    const b = browser(h);
    await b.signIn(ownerOf(1));
    expect((await b.put('/me/notifications', { timezone: zone })).status).toBe(200);
    const account = (await h.deps.data.auth.publisherById(pub(1).account_id))!;
    // An hour three weeks back when the week is due in Kiritimati but not in the account's own zone.
    let now = new Date(Date.now() - 21 * 86_400_000);
    let due = weekDue(zone, now);
    for (let back = 0; (!due || weekDue(account.timezone, now)) && back < 8 * 24; back++) {
      now = new Date(now.getTime() - 3_600_000);
      due = weekDue(zone, now);
    }
    expect(due).toBeTruthy();
    expect(weekDue(account.timezone, now)).toBeNull();
    expect((await queueWeeklySummaries(h.deps, now)).queued).toBeGreaterThanOrEqual(1);
    const firstDay = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${addDays(due!.week, -7)}T00:00:00Z`));
    const ofWeek = () => mailsTo(ownerOf(1).email, /Your week on/).filter((m) => m.body.includes(`, ${firstDay} to `));
    const [mail] = await until(() => (ofWeek().length ? ofWeek() : null));
    expect(mail!.body).toContain(`(${zone})`);
    const expected = await weeklyNumbers(h.deps, { publisherId: account._id, from: due!.from, to: due!.to });
    expect(mail!.body).toContain(`Clicks: ${new Intl.NumberFormat('en').format(expected.clicks)}`);
    await b.put('/me/notifications', { timezone: null });
  });
});
