import { INQUIRY_SCHEMA, LIST_INQUIRIES_INPUT, listInquiries } from '@cw/inquiries';
import { pageEnvelopeSchema, type InputOf } from '@cw/usecase';
import { defineTool } from '../tool';
import { pageSummary } from './summaries';

export const listInquiriesTool = defineTool<InputOf<typeof LIST_INQUIRIES_INPUT>>({
  name: 'list_inquiries',
  title: 'List missing-sale inquiries',
  description:
    'Your missing-sale inquiries, newest first: status (open, accepted, rejected), the order, the click evidence, `reason` of a rejection (duplicate, no_order, returned, outside_window, other), `conversion_id` of an acceptance, `conflict` when the order was credited already. Filter by `status`. Paging: `page_size` (max 100); call again with `cursor` = `next_cursor` while it is not null.',
  input: LIST_INQUIRIES_INPUT,
  output: pageEnvelopeSchema(INQUIRY_SCHEMA, { cursor: true }),
  policy: listInquiries.policy,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (input, principal, call) => {
    const page = await listInquiries(call.deps, principal, input);
    return { data: page, summary: pageSummary('inquiries', page) };
  },
});
