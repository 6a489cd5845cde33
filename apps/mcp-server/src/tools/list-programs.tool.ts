import { LIST_PROGRAMS_INPUT, listPrograms, PROGRAM_SCHEMA } from '@cw/programs';
import { pageEnvelopeSchema, type InputOf } from '@cw/usecase';
import { defineTool } from '../tool';
import { pageSummary } from './summaries';

export const listProgramsTool = defineTool<InputOf<typeof LIST_PROGRAMS_INPUT>>({
  name: 'list_programs',
  title: 'List programs',
  description:
    "Your programs (merchants' affiliate programs) with your relationship to each: approved, pending or rejected; `include_available=true` adds the programs you could still apply to (relationship `available`, with `joinable` and `auto_approve`). `search` filters by name. Use it to find a `program_id` for apply_to_program or create_tracking_link. Paging: `page` (from 1) and `page_size` (max 1000); call again with `cursor` = `next_cursor` (same filters) while it is not null.",
  input: LIST_PROGRAMS_INPUT,
  output: pageEnvelopeSchema(PROGRAM_SCHEMA, { cursor: true }),
  policy: listPrograms.policy,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (input, principal, call) => {
    const page = await listPrograms(call.deps, principal, input);
    return { data: page, summary: pageSummary('programs', page) };
  },
});
