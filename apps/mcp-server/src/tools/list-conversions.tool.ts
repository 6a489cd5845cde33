import { LIST_CONVERSIONS_INPUT } from '@cw/conversions';
import { CONVERSION_PAGE_SCHEMA, listConversions } from '@cw/reports';
import type { InputOf } from '@cw/usecase';
import { defineTool } from '../tool';
import { pageSummary } from './summaries';

export const listConversionsTool = defineTool<InputOf<typeof LIST_CONVERSIONS_INPUT>>({
  name: 'list_conversions',
  title: 'List conversions',
  description:
    'Your conversions (sales and leads attributed to your links), newest first, with status pending, approved or declined, amounts as decimal strings, and a per-subid rollup of the whole filtered set. Filter by `date_from`/`date_to` (UTC days), `subid`, `status`; `updated_since` for incremental sync. For totals per day, week, month, subid or campaign use get_report instead. Paging: `page` and `page_size` (max 500); call again with `cursor` = `next_cursor` (same filters) while it is not null.',
  input: LIST_CONVERSIONS_INPUT,
  output: CONVERSION_PAGE_SCHEMA,
  policy: listConversions.policy,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (input, principal, call) => {
    const page = await listConversions(call.deps, principal, input);
    return { data: page, summary: pageSummary('conversions', page) };
  },
});
