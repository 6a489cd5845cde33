import { LIST_PAYOUTS_INPUT, listPayouts, PAYOUT_SCHEMA } from '@cw/payouts';
import { pageEnvelopeSchema, type InputOf } from '@cw/usecase';
import { defineTool } from '../tool';
import { pageSummary } from './summaries';

export const listPayoutsTool = defineTool<InputOf<typeof LIST_PAYOUTS_INPUT>>({
  name: 'list_payouts',
  title: 'List payouts',
  description:
    'Your payouts, newest first: status (pending, in_transit, paid, failed, canceled), amount and currency, the method (type and last 4 only), the exchange rates used, why one waits (`hold`) or failed. Filter by `status`. Paging: `page_size` (max 100); call again with `cursor` = `next_cursor` while it is not null. Test, sandbox, read-only and demo keys cannot read it.',
  input: LIST_PAYOUTS_INPUT,
  output: pageEnvelopeSchema(PAYOUT_SCHEMA, { cursor: true }),
  policy: listPayouts.policy,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (input, principal, call) => {
    const page = await listPayouts(call.deps, principal, input);
    return { data: page, summary: pageSummary('payouts', page) };
  },
});
