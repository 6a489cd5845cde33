/**
 * The `links_unhealthy` mail end to end (docs/decisions/0064-link-health.md): the worker's link
 * health job finds a seeded link's program paused, counts the human clicks the link received since
 * its state began from the stats read model, and mails the owner once (the link, its state and
 * the clicks lost); a later pass that finds no new loss mails nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkHealthJobs } from '@cw/app-postback-worker';
import { readFacts } from '@cw/stats';
import { startNotifications, until, type NotificationsHarness } from './support/notifications-harness';

let h: NotificationsHarness;

beforeAll(async () => {
  h = await startNotifications();
}, 90_000);
afterAll(async () => {
  await h?.close();
});

const QUARTER_MS = 15 * 60_000;

describe('links losing clicks', () => {
  it('mails the owner the links that lost clicks while their program was paused, with the clicks lost, once', async () => {
    const pub = h.deps.demo!.publishers[0]!;
    const owner = pub.portal_login.email;
    // Since: a quarter hour 20 days back; the seeded link with the most human clicks since then.
    const since = new Date(Math.floor((Date.now() - 20 * 86_400_000) / QUARTER_MS) * QUARTER_MS);
    const facts = await readFacts(h.deps, { publisherId: pub.account_id, from: since.getTime(), byLink: true });
    const top = facts.filter((f) => f.link_id && f.clicks > 0).sort((a, b) => b.clicks - a.clicks)[0]!;
    expect(top).toBeDefined();
    const link = (await h.deps.data.links.byCode(top.link_id!))!;
    // The human clicks the stored clicks hold since then (what the read model counted).
    const expected = (await h.deps.data.links.storedClicks({ linkId: link._id })).filter((c) => !c.is_bot && c.created_at >= since).length;
    expect(expected).toBeGreaterThan(0);

    const passes: Array<{ mailed: number }> = [];
    const [job] = linkHealthJobs(h.deps, (r) => passes.push(r));
    await h.deps.data.programs.setStatus(link.program_id, 'paused');
    try {
      await job!.run(undefined);
      expect((await h.deps.data.links.byCode(link._id))!.health).toMatchObject({ state: 'program_paused' });
      // The state began 20 days ago (as if the pause had been found then).
      await h.deps.models.Link.updateOne({ _id: link._id }, { $set: { 'health.since': since } });
      await job!.run(undefined);
      expect((await h.deps.data.links.byCode(link._id))!.health).toMatchObject({ state: 'program_paused', clicks_lost: expected });

      const [mail] = await until(() => {
        const m = h.sink.to(owner).filter((x) => /clicks lost on links of/.test(x.headers.subject ?? ''));
        return m.length ? m : null;
      });
      expect(mail!.body).toContain(`${h.deps.config.trackingUrl}/c/${link._id}`);
      expect(mail!.body).toContain('the program is paused');
      expect(mail!.body).toContain(`${new Intl.NumberFormat('en').format(expected)} clicks lost`);
      expect(mail!.body).toContain('/settings/notifications');
      expect(mail!.headers['list-unsubscribe']).toContain('/unsubscribe/one-click?t=');

      expect(passes.map((p) => p.mailed)).toEqual([0, 1]);
      // Another pass: the same clicks lost, nothing new to tell.
      await job!.run(undefined);
      expect(passes.at(-1)!.mailed).toBe(0);
    } finally {
      await h.deps.data.programs.setStatus(link.program_id, 'active');
    }
  }, 120_000);
});
