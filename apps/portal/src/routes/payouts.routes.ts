/**
 * Money out for an account's people (`/accounts/:account/...`): payout settings (`/settings/payouts`),
 * the ledger's balance and entries, and payouts with "Request payment" (`/payments`). Each calls the
 * payouts and ledger libs' use cases, whose policies decide roles (an owner changes settings and
 * requests payment, with the password given in the last 10 minutes for settings).
 */
import type { Principal } from '@cw/auth';
import { paymentStatus } from '@cw/account';
import { ApiError } from '@cw/errors';
import { pageEnvelopeSchema, route, type RouteSpec } from '@cw/http';
import { accountBalances, BALANCE_ENTRY_SCHEMA, BALANCE_TRANSACTIONS_INPUT, listBalanceTransactions } from '@cw/ledger';
import {
  dueNow,
  getPayout,
  getPayoutSettings,
  getPayoutStatement,
  latestRates,
  LIST_PAYOUTS_INPUT,
  listPayouts,
  PAYOUT_SCHEMA,
  PAYOUT_SETTINGS_INPUT,
  profileOf,
  requestPayout,
  updatePayoutSettings,
} from '@cw/payouts';
import { compareDecimals } from '@cw/money';
import { memberOf, principalIn, spendPortalBudget, type PortalDeps } from '../portal-context';
import { E } from './schemas';

const TAGS = ['Payouts'];
const ACCOUNT = { account: { type: 'string', description: 'An account the person belongs to (pub_…).' } };
const ERRORS = {
  401: E('Not signed in'),
  403: E('role_not_allowed, reauthentication_required or csrf_failed'),
  404: E('Not a member of this account'),
  429: E('Rate limited'),
};

/** Why "Request payment" would be refused now (the checks `requestPayout` makes, in its order), or null. */
async function requestRefusal(deps: PortalDeps, principal: Principal, hasMethod: boolean, due: { amount: string; holds: string[] }, threshold: string) {
  if (!hasMethod) return { code: 'no_payout_method', detail: 'Set a payout method first (Settings, Payouts).' };
  const open = await listPayouts(deps, principal, { status: 'pending', page: 1, page_size: 1 });
  if (open.data.length)
    return { code: 'payout_in_progress', detail: 'A payout of this account is already waiting for the network; it is paid with the next run.' };
  if (due.holds.includes('tax_profile_incomplete'))
    return { code: 'tax_profile_incomplete', detail: 'Payouts to this payee need a tax profile first (Settings, Tax: the W-9 or W-8 details).' };
  if (due.holds.length) return { code: 'payout_hold', detail: `Payouts of this account are on hold (${due.holds.join(', ')}); the network reviews it.` };
  if (compareDecimals(due.amount, threshold) < 0) return { code: 'below_threshold', detail: 'The available balance is below your payout threshold.' };
  return null;
}

export function payoutsRoutes(deps: PortalDeps): RouteSpec[] {
  const member = [spendPortalBudget(deps), memberOf(deps)];
  return [
    route({
      method: 'GET',
      path: '/accounts/:account/payout-settings',
      operationId: 'getPayoutSettings',
      summary: 'Payout settings: the method (type and last 4 only), currency, threshold and its minimum, schedule, the hold after a change',
      tags: TAGS,
      pathParams: ACCOUNT,
      before: member,
      responses: {
        200: E(
          '{method: {type, last4, failed} | null, currency, threshold, minimum_threshold, minimum_thresholds: {currency: decimal}, schedule, method_hold_until}',
        ),
        ...ERRORS,
      },
      handler: async (ctx) => {
        ctx.body = await getPayoutSettings(deps, principalIn(ctx));
      },
    }),
    route({
      method: 'PUT',
      path: '/accounts/:account/payout-settings',
      operationId: 'updatePayoutSettings',
      summary: 'Change the payout settings (owners, password in the last 10 minutes); a new method holds the next payout',
      description:
        'The method is sealed as it arrives and never shown again (only its type and last 4). A change is in the security log, the owner is told by mail, and a new method holds the next payout for PAYOUT_METHOD_HOLD_HOURS (72 by default).',
      tags: TAGS,
      pathParams: ACCOUNT,
      body: PAYOUT_SETTINGS_INPUT,
      before: member,
      responses: { 200: E('The settings, as GET answers them'), 400: E('invalid_parameter: a field named in errors[]'), ...ERRORS },
      handler: async (ctx, { body }) => {
        ctx.body = await updatePayoutSettings(deps, principalIn(ctx), body);
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/balance',
      operationId: 'getAccountBalance',
      summary: "The ledger's balance per currency, the payment status, and what a payout now would be",
      tags: TAGS,
      pathParams: ACCOUNT,
      before: member,
      responses: {
        200: E(
          '{balances: [{currency, amount}], payment_status (as GET /payment-status), next_payout: {amount, currency, threshold, minimum_threshold, schedule, method, holds, method_hold_until, request_refused: {code, detail} | null}}',
        ),
        ...ERRORS,
      },
      handler: async (ctx) => {
        const principal = principalIn(ctx);
        // Both use cases authorize the principal first (the same rules as the API's payment status).
        const status = await paymentStatus(deps, principal);
        const settings = await getPayoutSettings(deps, principal);
        const profile = await profileOf(deps, principal.publisher._id);
        const due = await dueNow(deps, principal.publisher._id, profile, await latestRates(deps));
        ctx.body = {
          balances: await accountBalances(deps, principal.publisher._id),
          payment_status: status,
          next_payout: {
            amount: due.amount,
            currency: due.currency,
            threshold: settings.threshold,
            minimum_threshold: settings.minimum_threshold,
            schedule: settings.schedule,
            method: settings.method,
            holds: due.holds,
            method_hold_until: settings.method_hold_until,
            request_refused: await requestRefusal(deps, principal, !!settings.method, due, settings.threshold),
          },
        };
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/balance/transactions',
      operationId: 'listAccountBalanceTransactions',
      summary: 'Ledger entries of the account, newest first (as GET /api/v1/publisher/balance/transactions/)',
      tags: TAGS,
      pathParams: ACCOUNT,
      query: BALANCE_TRANSACTIONS_INPUT,
      before: member,
      responses: {
        200: { description: 'Page envelope of ledger entries', schema: pageEnvelopeSchema(BALANCE_ENTRY_SCHEMA, { cursor: true }) },
        400: E('Invalid parameter'),
        ...ERRORS,
      },
      handler: async (ctx, { query }) => {
        ctx.body = await listBalanceTransactions(deps, principalIn(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/payouts',
      operationId: 'listAccountPayouts',
      summary: 'Payouts of the account, newest first (filter status)',
      tags: TAGS,
      pathParams: ACCOUNT,
      query: LIST_PAYOUTS_INPUT,
      before: member,
      responses: {
        200: { description: 'Page envelope of payouts', schema: pageEnvelopeSchema(PAYOUT_SCHEMA, { cursor: true }) },
        400: E('Invalid parameter'),
        ...ERRORS,
      },
      handler: async (ctx, { query }) => {
        ctx.body = await listPayouts(deps, principalIn(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/payouts/:id',
      operationId: 'getAccountPayout',
      summary: "A payout of the account (another account's, or an unknown one: 404)",
      tags: TAGS,
      pathParams: { ...ACCOUNT, id: { type: 'string', description: '`po_…`' } },
      before: member,
      responses: { 200: { description: 'The payout', schema: PAYOUT_SCHEMA }, ...ERRORS, 404: E('No such payout of this account, or not a member') },
      handler: async (ctx) => {
        const id = String(ctx.params.id);
        // Any id that is not one of this account's payouts is the same 404 (a malformed one too).
        if (!/^po_[a-f0-9]{24}$/.test(id)) throw new ApiError({ code: 'not_found', detail: `No payout ${id}.` });
        ctx.body = await getPayout(deps, principalIn(ctx), { id });
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/payouts/:id/statement',
      operationId: 'getAccountPayoutStatement',
      summary: "A paid payout's self-billing statement (PDF, a download); another account's payout or one not paid yet: 404",
      tags: TAGS,
      pathParams: { ...ACCOUNT, id: { type: 'string', description: '`po_…`' } },
      before: member,
      responses: {
        200: {
          description: 'The statement PDF (Content-Disposition: attachment)',
          contentType: 'application/pdf',
          schema: { type: 'string', format: 'binary' },
        },
        ...ERRORS,
        404: E('No such payout of this account (not_found), no statement yet (statement_not_issued), or not a member'),
      },
      handler: async (ctx) => {
        const id = String(ctx.params.id);
        if (!/^po_[a-f0-9]{24}$/.test(id)) throw new ApiError({ code: 'not_found', detail: `No payout ${id}.` });
        const statement = await getPayoutStatement(deps, principalIn(ctx), { id });
        ctx.type = 'application/pdf';
        ctx.attachment(statement.filename, { type: 'attachment' });
        ctx.set('Cache-Control', 'private, no-store');
        ctx.body = statement.pdf;
      },
    }),
    route({
      method: 'POST',
      path: '/accounts/:account/payouts',
      operationId: 'requestPayout',
      summary: 'Request payment (owners): the whole available balance in the payout currency, paid with a run an admin approves',
      tags: TAGS,
      pathParams: ACCOUNT,
      before: member,
      responses: {
        201: { description: 'The payout (pending)', schema: PAYOUT_SCHEMA },
        ...ERRORS,
        409: E('below_threshold, payout_hold, no_payout_method, tax_profile_incomplete or payout_in_progress'),
      },
      handler: async (ctx) => {
        ctx.status = 201;
        ctx.body = await requestPayout(deps, principalIn(ctx));
      },
    }),
  ];
}
