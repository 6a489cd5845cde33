import { LINK_SCHEMA, LIST_LINKS_INPUT, listLinks } from '@cw/links';
import { pageEnvelopeSchema, type InputOf } from '@cw/usecase';
import { defineTool } from '../tool';
import { pageSummary } from './summaries';

export const listLinksTool = defineTool<InputOf<typeof LIST_LINKS_INPUT>>({
  name: 'list_links',
  title: 'List tracking links',
  description:
    'The tracking links you created (with create_tracking_link or POST /links/), newest first, optionally by `subid` or `campaign_id`. Paging: `page` (from 1) and `page_size` (max 1000); call again with `cursor` = `next_cursor` (same filters) while it is not null.',
  input: LIST_LINKS_INPUT,
  output: pageEnvelopeSchema(LINK_SCHEMA, { cursor: true }),
  policy: listLinks.policy,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (input, principal, call) => {
    const page = await listLinks(call.deps, principal, input);
    return { data: page, summary: pageSummary('links', page) };
  },
});
