/**
 * The weekly summary's week and send hour on the embedded engine: a person's own time zone decides
 * (set in `/settings/notifications`), else the account's, else UTC; a zone that is not an IANA
 * zone is refused; a person is mailed once per account and week whatever zone they move to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomain, startTestDatabase, type TestDatabase } from '@cw-tools/test-engine';
import { auditDomain } from '@cw/audit';
import { authDomain } from '@cw/auth';
import { peopleDomain } from '@cw/people';
import { MAIL_JOB, notificationsDomain } from './data/notifications.data';
import type { NotifyDeps } from './deps';
import { notificationSettings, updateNotificationSettings } from './preferences.service';
import { queueWeeklySummaries } from './weekly-summary';

let engine: TestDatabase;
let deps: NotifyDeps;

interface QueuedJob {
  data: { user_id: string; account_id: string; notice: { week: string; from: number; to: number; zone?: string } };
}
const queued = async (userId: string): Promise<QueuedJob[]> =>
  engine.db.connection
    .collection('jobs')
    .find({ name: MAIL_JOB, 'data.user_id': userId, 'data.notice.kind': 'weekly_summary' })
    .toArray() as unknown as Promise<QueuedJob[]>;

async function account(id: string, timezone: string | null, members: Array<{ user: string; role: 'owner' | 'analyst' }>) {
  await engine.db.connection
    .collection('publishers')
    .insertOne({ _id: id as never, name: id, status: 'active', ...(timezone ? { timezone } : {}), created_at: new Date() });
  await engine.db.connection
    .collection('account_members')
    .insertMany(members.map((m) => ({ _id: `${id}:${m.user}` as never, account_id: id, user_id: m.user, role: m.role, joined_at: new Date() })));
}

beforeAll(async () => {
  engine = await startTestDatabase();
  const [notifications, people, auth, audit] = await Promise.all([
    openDomain(engine, notificationsDomain),
    openDomain(engine, peopleDomain),
    openDomain(engine, authDomain),
    openDomain(engine, auditDomain),
  ]);
  deps = { data: { notifications, people, auth, audit } };
  // Berlin (UTC+1 in winter): one owner follows the account's zone, one set Los Angeles (UTC-8).
  await account('pub_tz_berlin', 'Europe/Berlin', [
    { user: 'usr_tz_account', role: 'owner' },
    { user: 'usr_tz_la', role: 'owner' },
  ]);
  // No zone on the account: UTC, unless the person has one.
  await account('pub_tz_none', null, [
    { user: 'usr_tz_utc', role: 'owner' },
    { user: 'usr_tz_tokyo', role: 'owner' },
  ]);
}, 60_000);
afterAll(() => engine?.stop());

// 2026-11-30 is a Monday.
const at = (iso: string) => new Date(iso);

describe('the weekly summary in the person’s time zone', () => {
  it('refuses a zone that is not an IANA time zone, and keeps and clears one that is', async () => {
    for (const bad of ['Mars/Olympus_Mons', 'Berlin', 'CET+1', ''])
      await expect(updateNotificationSettings(deps, 'usr_tz_la', { timezone: bad })).rejects.toMatchObject({ code: 'invalid_parameter' });
    expect((await notificationSettings(deps, 'usr_tz_la')).timezone).toBeNull();
    expect((await updateNotificationSettings(deps, 'usr_tz_la', { timezone: 'America/Los_Angeles' })).timezone).toBe('America/Los_Angeles');
    // Changing a kind leaves the zone; null clears it.
    expect((await updateNotificationSettings(deps, 'usr_tz_tokyo', { timezone: 'Asia/Tokyo' })).timezone).toBe('Asia/Tokyo');
    const after = await updateNotificationSettings(deps, 'usr_tz_tokyo', { kinds: { payout_paid: false } });
    expect(after.timezone).toBe('Asia/Tokyo');
    expect(after.kinds.find((k) => k.kind === 'payout_paid')?.enabled).toBe(false);
    expect((await updateNotificationSettings(deps, 'usr_tz_utc', { timezone: 'Europe/Paris' })).timezone).toBe('Europe/Paris');
    expect((await updateNotificationSettings(deps, 'usr_tz_utc', { timezone: null })).timezone).toBeNull();
  });

  it('sends from Monday 08:00 in the person’s zone, else the account’s, else UTC, over that zone’s Monday to Sunday', async () => {
    // Monday 00:30 UTC: 09:30 in Tokyo (due), 01:30 in Berlin, Sunday in Los Angeles, 00:30 UTC.
    await queueWeeklySummaries(deps, at('2026-11-30T00:30:00Z'));
    const [tokyo] = await queued('usr_tz_tokyo');
    expect(tokyo?.data.notice).toMatchObject({
      week: '2026-11-30',
      zone: 'Asia/Tokyo',
      from: Date.parse('2026-11-22T15:00:00Z'),
      to: Date.parse('2026-11-29T15:00:00Z'),
    });
    for (const u of ['usr_tz_account', 'usr_tz_la', 'usr_tz_utc']) expect(await queued(u)).toHaveLength(0);

    // 07:30 UTC: 08:30 in Berlin (the account's zone: due); not yet 08:00 UTC; Sunday night in Los Angeles.
    await queueWeeklySummaries(deps, at('2026-11-30T07:30:00Z'));
    const [berlin] = await queued('usr_tz_account');
    expect(berlin?.data.notice).toMatchObject({
      week: '2026-11-30',
      zone: 'Europe/Berlin',
      from: Date.parse('2026-11-22T23:00:00Z'),
      to: Date.parse('2026-11-29T23:00:00Z'),
    });
    expect(await queued('usr_tz_la')).toHaveLength(0);
    expect(await queued('usr_tz_utc')).toHaveLength(0);

    // 08:00 UTC: the person and account without a zone.
    await queueWeeklySummaries(deps, at('2026-11-30T08:00:00Z'));
    expect((await queued('usr_tz_utc'))[0]?.data.notice).toMatchObject({ week: '2026-11-30', zone: 'UTC', from: Date.parse('2026-11-23T00:00:00Z') });
    expect(await queued('usr_tz_la')).toHaveLength(0);

    // 16:00 UTC is 08:00 in Los Angeles: the owner who chose it, though the account is in Berlin.
    await queueWeeklySummaries(deps, at('2026-11-30T16:00:00Z'));
    expect((await queued('usr_tz_la'))[0]?.data.notice).toMatchObject({
      week: '2026-11-30',
      zone: 'America/Los_Angeles',
      from: Date.parse('2026-11-23T08:00:00Z'),
      to: Date.parse('2026-11-30T08:00:00Z'),
    });
    // Each person once.
    for (const u of ['usr_tz_account', 'usr_tz_la', 'usr_tz_utc', 'usr_tz_tokyo']) expect(await queued(u)).toHaveLength(1);
  });

  it('mails nobody twice in a week when they change zone within it', async () => {
    // The Los Angeles owner moves to Tokyo on Tuesday: Tokyo's window of the same week is still open.
    await updateNotificationSettings(deps, 'usr_tz_la', { timezone: 'Asia/Tokyo' });
    const pass = await queueWeeklySummaries(deps, at('2026-12-01T10:00:00Z'));
    expect(pass.queued).toBe(0);
    expect(await queued('usr_tz_la')).toHaveLength(1);
  });

  it('follows the account’s zone when the stored zone is one this runtime does not know', async () => {
    await deps.data.notifications.choose('usr_tz_account', {}, new Date(), { timezone: 'Atlantis/Lost_City' });
    // The next Monday, 08:30 in Berlin.
    await queueWeeklySummaries(deps, at('2026-12-07T07:30:00Z'));
    const jobs = await queued('usr_tz_account');
    expect(jobs.map((j) => j.data.notice.week)).toEqual(['2026-11-30', '2026-12-07']);
    expect(jobs[1]!.data.notice.zone).toBe('Europe/Berlin');
  });
});
