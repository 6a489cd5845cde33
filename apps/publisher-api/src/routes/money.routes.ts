/** Money out (DESIGN.md "Money out"): the ledger's entries of the account, its payouts, and the owner's request for one. */
import { principalOf, requirePolicy } from '@cw/auth';
import { pageEnvelopeSchema, route, type RouteSpec } from '@cw/http';
import { idempotent } from '@cw/idempotency';
import { BALANCE_ENTRY_SCHEMA, BALANCE_TRANSACTIONS_INPUT, listBalanceTransactions } from '@cw/ledger';
import { getPayout, getPayoutStatement, LIST_PAYOUTS_INPUT, listPayouts, PAYOUT_SCHEMA, requestPayout, STATEMENT_SCHEMA } from '@cw/payouts';
import { API_KEY_SECURITY } from '@cw/runtime';
import type { PublisherApiDeps } from '../deps';

const READ_ERRORS = {
  400: { description: 'Invalid parameter' },
  401: { description: 'Not authenticated' },
  403: { description: 'Credential not allowed (test, sandbox, read-only and demo keys)' },
  429: { description: 'Rate limited' },
};
const KEY_RULES = 'Live keys; test, sandbox, read-only and demo keys get 403.';

export function moneyRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/balance/transactions',
      operationId: 'listBalanceTransactions',
      summary: 'Ledger entries of the account, newest first: commission, reversals, corrections, payouts and returned payouts',
      description: `Every movement of the balance as a signed decimal amount per currency; the balance is their sum. ${KEY_RULES} OAuth scope affiliate:read.`,
      tags: ['Payouts'],
      security: API_KEY_SECURITY,
      query: BALANCE_TRANSACTIONS_INPUT,
      before: [requirePolicy(deps, listBalanceTransactions.policy)],
      responses: {
        200: { description: 'Page envelope of ledger entries', schema: pageEnvelopeSchema(BALANCE_ENTRY_SCHEMA, { cursor: true }) },
        ...READ_ERRORS,
      },
      handler: async (ctx, { query }) => {
        ctx.body = await listBalanceTransactions(deps, principalOf(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/payouts',
      operationId: 'listPayouts',
      summary: 'Payouts of the account, newest first',
      description: `Each payout with its status, amount, method (type and last 4 only), the exchange rates it used, why it waits (hold) or failed. ${KEY_RULES} OAuth scope affiliate:read.`,
      tags: ['Payouts'],
      security: API_KEY_SECURITY,
      query: LIST_PAYOUTS_INPUT,
      before: [requirePolicy(deps, listPayouts.policy)],
      responses: { 200: { description: 'Page envelope of payouts', schema: pageEnvelopeSchema(PAYOUT_SCHEMA, { cursor: true }) }, ...READ_ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await listPayouts(deps, principalOf(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/payouts/:id',
      operationId: 'getPayout',
      summary: 'One payout of the account',
      description: `${KEY_RULES} OAuth scope affiliate:read. Another account's payout is 404.`,
      tags: ['Payouts'],
      security: API_KEY_SECURITY,
      pathParams: { id: { type: 'string', description: '`po_…`' } },
      before: [requirePolicy(deps, getPayout.policy)],
      responses: { 200: { description: 'The payout', schema: PAYOUT_SCHEMA }, ...READ_ERRORS, 404: { description: 'No such payout' } },
      handler: async (ctx) => {
        ctx.body = await getPayout(deps, principalOf(ctx), { id: String(ctx.params.id) });
      },
    }),
    route({
      method: 'GET',
      path: '/payouts/:id/statement',
      operationId: 'getPayoutStatement',
      summary: "A paid payout's self-billing statement: PDF, or its content as JSON",
      description: `The statement issued when the payout was paid (its newest, when corrected): \`application/pdf\` by default, with a Content-Disposition filename; the same statement as JSON with \`Accept: application/json\`. Numbered without gaps per account and calendar year; never changed once issued (a correction is a new statement naming the one it supersedes). ${KEY_RULES} OAuth scope affiliate:read. Another account's payout is 404 not_found; a payout not paid yet, 404 statement_not_issued.`,
      tags: ['Payouts'],
      security: API_KEY_SECURITY,
      pathParams: { id: { type: 'string', description: '`po_…`' } },
      before: [requirePolicy(deps, getPayoutStatement.policy)],
      responses: {
        200: {
          description: 'The statement: a PDF (text selectable), or with Accept: application/json its content',
          contentType: 'application/pdf',
          schema: { type: 'string', format: 'binary' },
          alternatives: { 'application/json': STATEMENT_SCHEMA },
        },
        ...READ_ERRORS,
        404: { description: 'No such payout (not_found), or no statement yet: it is issued when the payout is paid (statement_not_issued)' },
      },
      handler: async (ctx) => {
        const statement = await getPayoutStatement(deps, principalOf(ctx), { id: String(ctx.params.id) });
        ctx.vary('Accept');
        if (ctx.accepts('application/pdf', 'application/json') === 'application/json') {
          ctx.type = 'application/json';
          ctx.body = statement.snapshot;
          return;
        }
        ctx.type = 'application/pdf';
        ctx.attachment(statement.filename, { type: 'attachment' });
        ctx.body = statement.pdf;
      },
    }),
    route({
      method: 'POST',
      path: '/payouts',
      operationId: 'requestPayout',
      summary: 'Request a payout of the whole available balance in the payout currency',
      description: `Optional Idempotency-Key (max 255). The payout waits for the network's approval (status pending). ${KEY_RULES} OAuth scope payouts:write; in the portal, owners only. 409: below_threshold, payout_hold, no_payout_method, tax_profile_incomplete, payout_in_progress.`,
      tags: ['Payouts'],
      security: API_KEY_SECURITY,
      body: { type: 'object', additionalProperties: false, properties: {} },
      before: [
        requirePolicy(deps, requestPayout.policy),
        idempotent({ data: deps.data.idempotency, account: (ctx) => principalOf(ctx).publisher._id, route: 'POST /payouts' }),
      ],
      responses: {
        201: { description: 'The payout requested', schema: PAYOUT_SCHEMA },
        ...READ_ERRORS,
        409: { description: 'below_threshold, payout_hold, no_payout_method, tax_profile_incomplete or payout_in_progress; or the Idempotency-Key reused' },
      },
      handler: async (ctx) => {
        ctx.status = 201;
        ctx.body = await requestPayout(deps, principalOf(ctx));
      },
    }),
  ];
}
