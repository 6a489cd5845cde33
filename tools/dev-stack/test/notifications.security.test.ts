/**
 * The unsubscribe links (decision record 0056): a token is signed per person and kind under a key
 * derived from the key ring. Altered, cut, re-aimed at another kind or signed with another key, it
 * is 400 invalid_unsubscribe_link on every surface (preview, button, RFC 8058 one-click), the same
 * answer whoever it names; a genuine token of nobody answers like one of somebody; opening a link
 * changes nothing; a one-click POST needs its exact body; a link used again after the person turned
 * the kind back on works again (it is the person's own link); transactional mail carries no
 * List-Unsubscribe header and no unsubscribe link.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyRing } from '@cw/config';
import { unsubscribeToken } from '@cw/notifications';
import { browser, PORTAL_API, startNotifications, until, type NotificationsHarness } from './support/notifications-harness';

let h: NotificationsHarness;
let userId: string;
const owner = () => h.deps.demo!.publishers[0]!.portal_login;

beforeAll(async () => {
  h = await startNotifications();
  userId = (await browser(h).signIn(owner())).user.id;
}, 90_000);
afterAll(async () => {
  await h?.close();
});

const preview = (token: string) => request(h.http).post(`${PORTAL_API}/unsubscribe/preview`).set('Origin', h.origin).send({ token });
const action = (token: string) => request(h.http).post(`${PORTAL_API}/unsubscribe`).set('Origin', h.origin).send({ token });
const oneClick = (token: string, body = 'List-Unsubscribe=One-Click') =>
  request(h.http)
    .post(`/unsubscribe/one-click?t=${encodeURIComponent(token)}`)
    .type('form')
    .send(body);

async function enabled(kind: string): Promise<boolean> {
  const b = browser(h);
  await b.signIn(owner());
  return (await b.get('/me/notifications')).body.kinds.find((k: { kind: string }) => k.kind === kind).enabled;
}

function expectRefused(res: request.Response) {
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ code: 'invalid_unsubscribe_link' });
  expect(res.body.detail).toBe(
    'This unsubscribe link is not valid (it was changed or cut short). Use the link in the mail as it is, or sign in and change Settings, Notifications.',
  );
  expect(res.body.request_id).toBeTruthy();
}

describe('unsubscribe tokens that are not genuine', () => {
  it('refuses an altered signature, a cut token, another kind, another person and a foreign key on every surface, changing nothing', async () => {
    const good = unsubscribeToken(h.deps.config.keys, userId, 'payout_paid');
    const parts = good.split('.');
    const sig = parts[4]!;
    const flipped = `${sig.slice(0, 10)}${sig[10] === 'A' ? 'B' : 'A'}${sig.slice(11)}`;
    const forged = [
      [...parts.slice(0, 4), flipped].join('.'),
      good.slice(0, -5),
      [parts[0], parts[1], 'weekly_summary', parts[3], parts[4]].join('.'),
      [parts[0], 'usr_someoneelse', parts[2], parts[3], parts[4]].join('.'),
      unsubscribeToken(keyRing(Buffer.alloc(32, 0x42)), userId, 'payout_paid'),
      unsubscribeToken(keyRing(Buffer.alloc(32, 0x42), [{ id: 'k2', key: Buffer.alloc(32, 9) }]), userId, 'payout_paid'),
      'u1..payout_paid.base.',
      '',
    ];
    for (const t of forged) {
      if (t) expectRefused(await preview(t));
      if (t) expectRefused(await action(t));
      expectRefused(await oneClick(t));
    }
    expect(await enabled('payout_paid')).toBe(true);
  });

  it('answers a genuine token of nobody exactly like one of somebody (no person is revealed)', async () => {
    const nobody = await action(unsubscribeToken(h.deps.config.keys, 'usr_nobodyatall', 'weekly_summary'));
    const somebody = await action(unsubscribeToken(h.deps.config.keys, userId, 'weekly_summary'));
    expect(nobody.status).toBe(200);
    expect(somebody.status).toBe(200);
    expect(nobody.body).toEqual(somebody.body);
    expect(await h.deps.models.NotificationPreference.exists({ _id: 'usr_nobodyatall' })).toBeNull();
    const b = browser(h);
    await b.signIn(owner());
    await b.put('/me/notifications', { kinds: { weekly_summary: true } });
  });
});

describe('genuine unsubscribe links', () => {
  it('change nothing when opened or previewed (mail scanners open links); the button and the one-click POST turn the kind off', async () => {
    const t = unsubscribeToken(h.deps.config.keys, userId, 'postback_failing');
    const page = await request(h.http)
      .get(`/unsubscribe?t=${encodeURIComponent(t)}`)
      .set('Accept', 'text/html');
    expect(page.status).toBe(200);
    const clickPage = await request(h.http)
      .get(`/unsubscribe/one-click?t=${encodeURIComponent(t)}`)
      .set('Accept', 'text/html');
    expect(clickPage.status).toBe(200);
    expect((await preview(t)).body).toMatchObject({ kind: 'postback_failing', label: 'Postback endpoint failing' });
    expect(await enabled('postback_failing')).toBe(true);
    expect((await action(t)).status).toBe(200);
    expect(await enabled('postback_failing')).toBe(false);
  });

  it('one-click needs the body RFC 8058 names, and no cookie, Origin or CSRF token', async () => {
    const t = unsubscribeToken(h.deps.config.keys, userId, 'payout_failed');
    const empty = await oneClick(t, '');
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ code: 'invalid_parameter' });
    expect((await oneClick(t, 'List-Unsubscribe=Yes')).status).toBe(400);
    expect((await oneClick(t, `List-Unsubscribe=One-Click&pad=${'x'.repeat(5000)}`)).status).toBe(400);
    expect(await enabled('payout_failed')).toBe(true);
    const ok = await oneClick(t);
    expect(ok.status).toBe(200);
    expect(await enabled('payout_failed')).toBe(false);
  });

  it('used again after the person turned the kind back on, turns it off again (their own link, no harm)', async () => {
    const t = unsubscribeToken(h.deps.config.keys, userId, 'payout_method_changed');
    expect((await oneClick(t)).status).toBe(200);
    const b = browser(h);
    await b.signIn(owner());
    await b.put('/me/notifications', { kinds: { payout_method_changed: true } });
    expect(await enabled('payout_method_changed')).toBe(true);
    expect((await oneClick(t)).status).toBe(200);
    expect(await enabled('payout_method_changed')).toBe(false);
  });

  it('are not asked for by the portal’s own API without its Origin (the page’s calls), unlike the one-click address', async () => {
    const t = unsubscribeToken(h.deps.config.keys, userId, 'tax_profile_changed');
    const noOrigin = await request(h.http).post(`${PORTAL_API}/unsubscribe`).send({ token: t });
    expect(noOrigin.status).toBe(403);
    expect(await enabled('tax_profile_changed')).toBe(true);
  });
});

describe('transactional mail', () => {
  it('a password reset carries no List-Unsubscribe header and no unsubscribe link', async () => {
    const email = owner().email;
    const res = await request(h.http).post(`${PORTAL_API}/password/forgot`).set('Origin', h.origin).send({ email });
    expect(res.status).toBeLessThan(300);
    const [mail] = await until(() => (h.sink.to(email).some((m) => /Reset your password/.test(m.headers.subject ?? '')) ? h.sink.to(email) : null));
    const reset = h.sink.to(email).find((m) => /Reset your password/.test(m.headers.subject ?? ''))!;
    expect(mail).toBeTruthy();
    expect(reset.headers['list-unsubscribe']).toBeUndefined();
    expect(reset.headers['list-unsubscribe-post']).toBeUndefined();
    expect(reset.body).not.toContain('/unsubscribe');
  });
});
