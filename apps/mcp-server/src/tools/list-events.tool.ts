import { EVENTS_INPUT, EVENTS_PAGE_SCHEMA, EVENTS_POLICY, hiddenEventTypes, listEvents } from '@cw/events-feed';
import type { InputOf } from '@cw/usecase';
import { defineTool } from '../tool';

export const listEventsTool = defineTool<InputOf<typeof EVENTS_INPUT>>({
  name: 'list_events',
  title: 'List account events',
  description:
    'Every change to your conversions (sale.created, sale.approved, sale.declined, sale.reversed) and every payout paid or failed (payout.paid, payout.failed), oldest first, in one ordered log: the way to notice amendments (a sale approved or reversed weeks later) and payments without re-reading date windows. A sale event shows the conversion as of that event (`conversion`); a payout event the payout as list_payouts shows it (`payout`; only for keys that may read payouts). Without `cursor` it starts at the first event; keep `next_cursor` and call again with it to get only what happened since (also when `data` is empty). `limit` 1-500 (default 100); `has_more` true means more events follow already.',
  input: EVENTS_INPUT,
  output: EVENTS_PAGE_SCHEMA,
  policy: EVENTS_POLICY,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (input, principal, call) => {
    const page = await listEvents(call.deps, principal.publisher._id, input, { hidden: hiddenEventTypes(principal) });
    const counts = page.data.reduce<Record<string, number>>((m, e) => ((m[e.type] = (m[e.type] ?? 0) + 1), m), {});
    const summary = page.data.length
      ? `${page.data.length} events (${Object.entries(counts)
          .map(([t, n]) => `${n} ${t}`)
          .join(', ')}); ${page.has_more ? 'more follow: call again with next_cursor' : 'that is all for now: call again later with next_cursor'}.`
      : 'No new events since this cursor: call again later with next_cursor.';
    return { data: page, summary };
  },
});
