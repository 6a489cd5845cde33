import { ACCOUNT_SCHEMA, accountRecord, PAYMENT_STATUS } from '@cw/account';
import { principalOf, requirePolicy } from '@cw/auth';
import { route, type RouteSpec } from '@cw/http';
import { API_KEY_SECURITY } from '@cw/runtime';
import type { PublisherApiDeps } from '../deps';
import { apiKeyRoutes } from '../surface';

export function accountRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/me',
      operationId: 'getAccount',
      summary: 'The account, its access and the limits the key is subject to',
      tags: ['Account'],
      security: API_KEY_SECURITY,
      before: [requirePolicy(deps, accountRecord.policy)],
      responses: {
        200: { description: 'Account record', schema: ACCOUNT_SCHEMA },
        401: { description: 'Not authenticated' },
        403: { description: 'Credential not allowed' },
        429: { description: 'Rate limited' },
      },
      handler: async (ctx) => {
        ctx.body = await accountRecord(deps, principalOf(ctx));
      },
    }),
    ...apiKeyRoutes(deps, [PAYMENT_STATUS]),
  ];
}
