/** Settings, Apps: the apps acting for the account through OAuth, and revoking one. */
import { route, type RouteSpec } from '@cw/http';
import { listApps, revokeApp } from '../oauth-apps';
import { memberOf, principalIn, spendPortalBudget, type PortalDeps } from '../portal-context';
import { APP_GRANTS_SCHEMA, E } from './schemas';

const ACCOUNT = { account: { type: 'string' } };
const ERRORS = { 401: E('Not signed in'), 403: E('role_not_allowed or csrf_failed'), 404: E('Not found'), 429: E('Rate limited') };

export function appsRoutes(deps: PortalDeps): RouteSpec[] {
  const member = [spendPortalBudget(deps), memberOf(deps)];
  return [
    route({
      method: 'GET',
      path: '/accounts/:account/apps',
      operationId: 'listApps',
      summary: 'Apps granted access to the account (OAuth): who granted them, scopes, resource, created, last used',
      tags: ['Apps'],
      pathParams: ACCOUNT,
      before: member,
      responses: { 200: { description: 'Grants, newest first', schema: APP_GRANTS_SCHEMA }, ...ERRORS },
      handler: async (ctx) => {
        ctx.body = await listApps(deps, principalIn(ctx));
      },
    }),
    route({
      method: 'DELETE',
      path: '/accounts/:account/apps/:grant',
      operationId: 'revokeApp',
      summary: 'Revoke an app’s access (owners, developers): its refresh tokens end now, its access tokens at their next request',
      tags: ['Apps'],
      pathParams: { ...ACCOUNT, grant: { type: 'string' } },
      before: member,
      responses: { 204: E('Revoked'), ...ERRORS },
      handler: async (ctx) => {
        await revokeApp(deps, principalIn(ctx), String(ctx.params.grant));
        ctx.status = 204;
      },
    }),
  ];
}
