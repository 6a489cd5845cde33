/** GET /clicks/: the caller's recorded clicks, newest first; bots only when asked for. */
import type { Principal } from '@cw/auth';
import type { Models } from '@cw/db';
import { envelope, skipFor } from './paging';

export async function listClicks(models: Models, principal: Principal, q: { sub_id?: string; campaign_id?: string; deeplink_id?: string; include_bots?: boolean; page: number; page_size: number }) {
  const filter: Record<string, unknown> = { publisher_id: principal.publisher._id };
  if (q.sub_id !== undefined) filter.subid = q.sub_id;
  if (q.campaign_id !== undefined) filter.campaign_id = Number(q.campaign_id);
  if (q.deeplink_id !== undefined) filter.link_id = q.deeplink_id;
  if (!q.include_bots) filter.is_bot = false;
  const rows = await models.Click.find(filter, { ip_hash: 0 }).sort({ created_at: -1, _id: 1 }).skip(skipFor(q.page, q.page_size)).limit(q.page_size + 1).lean();
  return envelope(
    rows.map((c) => ({
      id: c._id,
      created_at: c.created_at,
      deeplink_id: c.link_id,
      program_id: c.program_id,
      campaign_id: c.campaign_id,
      sub_id: c.subid || null,
      referrer: c.referrer || null,
      user_agent: c.user_agent || null,
      is_bot: c.is_bot,
      bot_reason: c.bot_reason ?? null,
    })),
    q.page,
    q.page_size,
  );
}
