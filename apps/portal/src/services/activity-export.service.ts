/**
 * The clicks CSV: every click of a GET clicks filter, read page by page through the `listClicks`
 * use case (its cursor, 200 rows a page), never through the clicks' storage, so it lists exactly
 * what the list does however clicks are stored. One page is held at a time; the next is read only
 * when the response has taken the previous one (backpressure through the stream).
 */
import type { Principal } from '@cw/auth';
import { CLICKS_INPUT, listClicks } from '@cw/links';
import type { InputOf } from '@cw/usecase';
import type { PortalDeps } from '../portal-context';

const { sub_id, campaign_id, deeplink_id, include_bots } = CLICKS_INPUT.properties;

/** The filters of GET clicks without its paging: the export is every row of the filter. */
export const CLICKS_EXPORT_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: { sub_id, campaign_id, deeplink_id, include_bots },
} as const;

export const CLICK_COLUMNS = [
  'id',
  'created_at',
  'deeplink_id',
  'program_id',
  'campaign_id',
  'sub_id',
  'referrer',
  'user_agent',
  'is_bot',
  'bot_reason',
] as const;

const PAGE = 200;

type Click = Awaited<ReturnType<typeof listClicks>>['data'][number];

const record = (c: Click): Array<string | null> => [
  c.id,
  new Date(c.created_at).toISOString(),
  c.deeplink_id,
  c.program_id === null || c.program_id === undefined ? null : String(c.program_id),
  c.campaign_id === null || c.campaign_id === undefined ? null : String(c.campaign_id),
  c.sub_id,
  c.referrer,
  c.user_agent,
  c.is_bot ? 'true' : 'false',
  c.bot_reason,
];

/**
 * The CSV records of every click of `filters`, newest first. The first page is read before this
 * resolves, so a refused call (policy, input) is an error answer, not a broken download.
 */
export async function clickRecords(
  deps: PortalDeps,
  principal: Principal,
  filters: InputOf<typeof CLICKS_EXPORT_INPUT>,
): Promise<AsyncGenerator<Array<string | null>>> {
  const read = (cursor?: string) => listClicks(deps, principal, { ...filters, include_bots: filters.include_bots ?? false, page: 1, page_size: PAGE, cursor });
  const first = await read();
  async function* rows() {
    let page = first;
    for (;;) {
      for (const c of page.data) yield record(c);
      if (!page.next_cursor) return;
      page = await read(page.next_cursor);
    }
  }
  return rows();
}
