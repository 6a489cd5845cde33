import { CODE_PAGE_SCHEMA, LIST_CODES_INPUT, listCodes } from '@cw/codes';
import type { InputOf } from '@cw/usecase';
import { defineTool } from '../tool';

export const listCodesTool = defineTool<InputOf<typeof LIST_CODES_INPUT>>({
  name: 'list_codes',
  title: 'List coupon codes',
  description:
    'Your personal coupon codes (asked for with request_code or POST /codes/), newest first, optionally by `program_id` or `status` (active, pending_review, rejected). A sale a shopper makes with an active code is credited to you (channel `code` in list_conversions). Paging: `page` (from 1) and `page_size` (max 100).',
  input: LIST_CODES_INPUT,
  output: CODE_PAGE_SCHEMA,
  policy: listCodes.policy,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (input, principal, call) => {
    const page = await listCodes(call.deps, principal, input);
    return {
      data: page,
      summary: `${page.data.length} codes on page ${page.page}. ${page.next_page === null ? 'This is the last page.' : `More: call again with page=${page.next_page}.`}`,
    };
  },
});
