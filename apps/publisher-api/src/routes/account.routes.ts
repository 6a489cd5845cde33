import type { RouteSpec } from '@cw/http';
import type { AppDeps } from '@cw/runtime';
import { API_KEY_SECURITY, guard, principalOf } from '../guard';
import { accountRecord, paymentStatus } from '../services/account.service';
import { ACCOUNT_SCHEMA, PAYMENT_STATUS_SCHEMA } from './account.schemas';

export function accountRoutes(deps: AppDeps): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/me',
      operationId: 'getAccount',
      summary: 'The account, its access and the limits the key is subject to',
      tags: ['Account'],
      security: API_KEY_SECURITY,
      before: guard(deps, { budget: 'account' }),
      responses: { 200: { description: 'Account record', schema: ACCOUNT_SCHEMA }, 401: { description: 'Not authenticated' }, 403: { description: 'Credential not allowed' }, 429: { description: 'Rate limited' } },
      handler: (ctx) => {
        ctx.body = accountRecord(principalOf(ctx.state), deps.config);
      },
    },
    {
      method: 'GET',
      path: '/payment-status',
      operationId: 'getPaymentStatus',
      summary: 'Approved unpaid and pending commission, next payment estimate, payment method type',
      description: 'Read-only. Test, sandbox and read-only keys get 403. OAuth scope affiliate:read.',
      tags: ['Account'],
      security: API_KEY_SECURITY,
      before: guard(deps, { budget: 'account', refuseKinds: ['test', 'sandbox', 'read_only'], refuseDetail: 'Test, sandbox and read-only keys cannot read payment status.' }),
      responses: { 200: { description: 'Payment status', schema: PAYMENT_STATUS_SCHEMA }, 401: { description: 'Not authenticated' }, 403: { description: 'Credential not allowed' }, 429: { description: 'Rate limited' } },
      handler: async (ctx) => {
        ctx.body = await paymentStatus(deps.models, principalOf(ctx.state));
      },
    },
  ];
}
