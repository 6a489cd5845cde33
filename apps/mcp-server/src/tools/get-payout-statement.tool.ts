import { getPayoutStatement, PAYOUT_ID_INPUT, STATEMENT_SCHEMA } from '@cw/payouts';
import type { InputOf } from '@cw/usecase';
import { defineTool } from '../tool';

export const getPayoutStatementTool = defineTool<InputOf<typeof PAYOUT_ID_INPUT>>({
  name: 'get_payout_statement',
  title: 'Get a payout statement',
  description:
    'The self-billing statement of one of your paid payouts (`id`: `po_…` from list_payouts), as data: its number (gapless per account and year), both parties, one line per program and month with commission, reversals and corrections, per-currency totals with the ECB rate used, the total paid and the VAT treatment. The PDF is at GET /payouts/{id}/statement. A payout not paid yet has none (statement_not_issued). Test, sandbox, read-only and demo keys cannot read it.',
  input: PAYOUT_ID_INPUT,
  output: STATEMENT_SCHEMA,
  policy: getPayoutStatement.policy,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (input, principal, call) => {
    const s = await getPayoutStatement(call.deps, principal, input);
    return {
      data: s.snapshot,
      summary: `Statement ${s.number}: ${s.snapshot.total.amount} ${s.snapshot.total.currency} paid, ${s.snapshot.lines.length} lines.`,
    };
  },
});
