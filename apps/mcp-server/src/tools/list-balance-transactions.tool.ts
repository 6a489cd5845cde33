import { BALANCE_ENTRY_SCHEMA, BALANCE_TRANSACTIONS_INPUT, listBalanceTransactions } from '@cw/ledger';
import { pageEnvelopeSchema, type InputOf } from '@cw/usecase';
import { defineTool } from '../tool';
import { pageSummary } from './summaries';

export const listBalanceTransactionsTool = defineTool<InputOf<typeof BALANCE_TRANSACTIONS_INPUT>>({
  name: 'list_balance_transactions',
  title: 'Balance transactions',
  description:
    'Every movement of your balance, newest first: commission approved, reversals, corrections by the network, payouts and returned payouts, each a signed decimal amount with its currency (the balance is their sum). Filter by `type` or `currency`. Paging: `page_size` (max 500); call again with `cursor` = `next_cursor` while it is not null. Test, sandbox, read-only and demo keys cannot read it.',
  input: BALANCE_TRANSACTIONS_INPUT,
  output: pageEnvelopeSchema(BALANCE_ENTRY_SCHEMA, { cursor: true }),
  policy: listBalanceTransactions.policy,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (input, principal, call) => {
    const page = await listBalanceTransactions(call.deps, principal, input);
    return { data: page, summary: pageSummary('balance transactions', page) };
  },
});
