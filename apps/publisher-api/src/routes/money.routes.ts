/** Money out (DESIGN.md "Money out"): the ledger's entries of the account. */
import { principalOf, requirePolicy } from '@cw/auth';
import { pageEnvelopeSchema, route, type RouteSpec } from '@cw/http';
import { BALANCE_ENTRY_SCHEMA, BALANCE_TRANSACTIONS_INPUT, listBalanceTransactions } from '@cw/ledger';
import { API_KEY_SECURITY, type AppDeps } from '@cw/runtime';

export function moneyRoutes(deps: AppDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/balance/transactions',
      operationId: 'listBalanceTransactions',
      summary: 'Ledger entries of the account, newest first: commission, reversals, corrections, payouts and returned payouts',
      description:
        'Every movement of the balance as a signed decimal amount per currency; the balance is their sum. Live keys; test, sandbox, read-only and demo keys get 403. OAuth scope affiliate:read.',
      tags: ['Payouts'],
      security: API_KEY_SECURITY,
      query: BALANCE_TRANSACTIONS_INPUT,
      before: [requirePolicy(deps, listBalanceTransactions.policy)],
      responses: {
        200: { description: 'Page envelope of ledger entries', schema: pageEnvelopeSchema(BALANCE_ENTRY_SCHEMA, { cursor: true }) },
        400: { description: 'Invalid parameter' },
        401: { description: 'Not authenticated' },
        403: { description: 'Credential not allowed' },
        429: { description: 'Rate limited' },
      },
      handler: async (ctx, { query }) => {
        ctx.body = await listBalanceTransactions(deps, principalOf(ctx), query);
      },
    }),
  ];
}
