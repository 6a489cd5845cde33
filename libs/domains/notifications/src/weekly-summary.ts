/**
 * The weekly summary's pass (the worker's `mail:weekly-summaries` job, every 15 minutes): every
 * membership page by page; each member who has the summary on and whose local time is between
 * Monday 08:00 and the end of Tuesday gets last week's (Monday to Sunday) queued once. Local means
 * in the person's own time zone (`/settings/notifications`), else the account's, else UTC. The key
 * (person, account, week) is claimed first, so a pass run again, by another worker or after a
 * crash, sends nothing twice; a person who changes zone within the window keeps the same Monday
 * (two zones' windows never overlap on different Mondays), so is not mailed twice either.
 */
import { addDays, zoneCalendar, type Calendar } from '@cw/stats';
import type { NotifyDeps } from './deps';
import { enabledMembers } from './notify';
import { summaryZone } from './preferences.service';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Sent from Monday 08:00 local; a pass after Tuesday ends skips that week (a late summary is no summary). */
export const WEEKLY_SEND_HOUR = 8;
const WINDOW_MS = 2 * DAY_MS - WEEKLY_SEND_HOUR * HOUR_MS;

const calendars = new Map<string, Calendar>();
function calendarOf(zone: string | null | undefined): Calendar {
  const z = zone || 'UTC';
  let c = calendars.get(z);
  if (!c) {
    try {
      c = zoneCalendar(z);
    } catch {
      c = zoneCalendar('UTC');
    }
    if (calendars.size < 1000) calendars.set(z, c);
  }
  return c;
}

/** The week due now in `zone` (its Monday and the range before it), or null outside Monday 08:00 to Tuesday's end. */
export function weekDue(zone: string | null | undefined, now: Date): { week: string; from: number; to: number } | null {
  const cal = calendarOf(zone);
  const today = cal.dayOf(now.getTime());
  const dow = new Date(`${today}T00:00:00Z`).getUTCDay();
  const monday = addDays(today, -((dow + 6) % 7));
  const start = cal.dayStart(monday);
  const sendFrom = start + WEEKLY_SEND_HOUR * HOUR_MS;
  if (now.getTime() < sendFrom || now.getTime() >= sendFrom + WINDOW_MS) return null;
  return { week: monday, from: cal.dayStart(addDays(monday, -7)), to: start };
}

export interface WeeklyPassResult {
  /** Memberships read. */
  members: number;
  /** Summaries queued by this pass. */
  queued: number;
}

/** One pass over every membership: queues the summaries due and not queued yet. */
export async function queueWeeklySummaries(deps: NotifyDeps, now = new Date(), opts: { pageSize?: number } = {}): Promise<WeeklyPassResult> {
  const pageSize = opts.pageSize ?? 500;
  let after: string | null = null;
  const result: WeeklyPassResult = { members: 0, queued: 0 };
  for (;;) {
    const page = await deps.data.people.membersAfter(after, pageSize);
    if (!page.length) break;
    after = page[page.length - 1]!._id;
    result.members += page.length;
    const [accounts, zones] = await Promise.all([
      deps.data.auth.publishersByIds([...new Set(page.map((m) => m.account_id))]).then((rows) => new Map(rows.map((a) => [a._id, a] as const))),
      deps.data.notifications.zonesOf([...new Set(page.map((m) => m.user_id))]),
    ]);
    /** Per membership id: the week due in the person's zone (else the account's), with that zone. */
    const due = new Map<string, { week: string; from: number; to: number; zone: string }>();
    for (const m of page) {
      const a = accounts.get(m.account_id);
      if (a?.status !== 'active') continue;
      const zone = summaryZone(zones.get(m.user_id), a.timezone);
      const w = weekDue(zone, now);
      if (w) due.set(m._id, { ...w, zone });
    }
    const candidates = await enabledMembers(
      deps,
      'weekly_summary',
      page.filter((m) => due.has(m._id)),
    );
    if (!candidates.length) continue;
    const keyOf = (m: { _id: string; user_id: string; account_id: string }) => `weekly_summary:${m.account_id}:${m.user_id}:${due.get(m._id)!.week}`;
    const claimed = await deps.data.notifications.claim(
      candidates.map((m) => ({ key: keyOf(m), kind: 'weekly_summary' as const, expiresAt: new Date(now.getTime() + 9 * DAY_MS) })),
      now,
    );
    const jobs = candidates.filter((m) => claimed.has(keyOf(m)));
    try {
      await deps.data.notifications.enqueue(
        jobs.map((m) => {
          const w = due.get(m._id)!;
          return {
            user_id: m.user_id,
            account_id: m.account_id,
            notice: { kind: 'weekly_summary', publisherId: m.account_id, week: w.week, from: w.from, to: w.to, zone: w.zone },
          };
        }),
      );
    } catch (e) {
      // Not queued: given back, so the next pass queues them.
      await Promise.all(jobs.map((m) => deps.data.notifications.release(keyOf(m)).catch(() => undefined)));
      throw e;
    }
    result.queued += jobs.length;
  }
  return result;
}
