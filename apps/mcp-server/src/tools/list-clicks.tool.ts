import { CLICK_SCHEMA, CLICKS_INPUT, listClicks } from '@cw/links';
import { pageEnvelopeSchema, type InputOf } from '@cw/usecase';
import { defineTool } from '../tool';
import { pageSummary } from './summaries';

export const listClicksTool = defineTool<InputOf<typeof CLICKS_INPUT>>({
  name: 'list_clicks',
  title: 'List clicks',
  description:
    'Clicks recorded on your tracking links, newest first, by `sub_id`, `campaign_id` or `deeplink_id` (a link id); clicks flagged as bots only with `include_bots=true`. Paging: `page` and `page_size` (max 200); call again with `cursor` = `next_cursor` (same filters) while it is not null.',
  input: CLICKS_INPUT,
  output: pageEnvelopeSchema(CLICK_SCHEMA, { cursor: true }),
  policy: listClicks.policy,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (input, principal, call) => {
    const page = await listClicks(call.deps, principal, input);
    return { data: page, summary: pageSummary('clicks', page) };
  },
});
