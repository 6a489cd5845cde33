/** An account's settings, payment status and credentials, for its people (`/accounts/:account/...`). */
import { route, type RouteSpec } from '@cw/http';
import {
  ACCOUNT_PATCH_INPUT,
  accountSettings,
  issueKey,
  KEY_ISSUE_INPUT,
  listKeys,
  PAYMENT_STATUS,
  revokeKey,
  rotateKey,
  updateAccountSettings,
} from '@cw/account';
import { memberOf, principalIn, spendPortalBudget, type PortalDeps } from '../portal-context';
import { ACCOUNT_SETTINGS_SCHEMA, CREDENTIALS_SCHEMA, E, ISSUED_CREDENTIAL_SCHEMA } from './schemas';
import { memberRoutes } from '../surface';

const ACCOUNT = { account: { type: 'string', description: 'An account the person belongs to (pub_…).' } };
const ERRORS = {
  401: E('Not signed in'),
  403: E('role_not_allowed, reauthentication_required or csrf_failed'),
  404: E('Not a member of this account'),
  429: E('Rate limited'),
};

export function accountRoutes(deps: PortalDeps): RouteSpec[] {
  const member = [spendPortalBudget(deps), memberOf(deps)];
  return [
    route({
      method: 'GET',
      path: '/accounts/:account',
      operationId: 'getAccountSettings',
      summary: 'The account: name, website, channels, markets, time zone, payout method type, status, your role',
      tags: ['Account'],
      pathParams: ACCOUNT,
      before: member,
      responses: { 200: { description: 'The account', schema: ACCOUNT_SETTINGS_SCHEMA }, ...ERRORS },
      handler: async (ctx) => {
        ctx.body = await accountSettings(deps, principalIn(ctx));
      },
    }),
    route({
      method: 'PATCH',
      path: '/accounts/:account',
      operationId: 'updateAccountSettings',
      summary: 'Change the account’s settings (owners)',
      tags: ['Account'],
      pathParams: ACCOUNT,
      body: ACCOUNT_PATCH_INPUT,
      before: member,
      responses: { 200: { description: 'The account', schema: ACCOUNT_SETTINGS_SCHEMA }, 400: E('Invalid parameter'), ...ERRORS },
      handler: async (ctx, { body }) => {
        ctx.body = await updateAccountSettings(deps, principalIn(ctx), body);
      },
    }),
    ...memberRoutes(deps, [PAYMENT_STATUS]),
    route({
      method: 'GET',
      path: '/accounts/:account/keys',
      operationId: 'listKeys',
      summary: 'Every credential of the account with its prefix, who issued it and when it was last used (owners, developers)',
      tags: ['Keys'],
      pathParams: ACCOUNT,
      before: member,
      responses: { 200: { description: 'Credentials, active first', schema: CREDENTIALS_SCHEMA }, ...ERRORS },
      handler: async (ctx) => {
        ctx.body = await listKeys(deps, principalIn(ctx));
      },
    }),
    route({
      method: 'POST',
      path: '/accounts/:account/keys',
      operationId: 'issueKey',
      summary: 'Issue a credential: its secret is in this answer only',
      tags: ['Keys'],
      pathParams: ACCOUNT,
      body: KEY_ISSUE_INPUT,
      before: member,
      responses: { 201: { description: 'The credential and its secret', schema: ISSUED_CREDENTIAL_SCHEMA }, 400: E('Invalid parameter'), ...ERRORS },
      handler: async (ctx, { body }) => {
        ctx.status = 201;
        ctx.body = await issueKey(deps, principalIn(ctx), body);
      },
    }),
    route({
      method: 'POST',
      path: '/accounts/:account/keys/:id/rotate',
      operationId: 'rotateKey',
      summary: 'Rotate a credential: a new secret of the same kind; the old one stops at the next request',
      tags: ['Keys'],
      pathParams: { ...ACCOUNT, id: { type: 'string' } },
      before: member,
      responses: { 201: { description: 'The new credential and its secret', schema: ISSUED_CREDENTIAL_SCHEMA }, ...ERRORS },
      handler: async (ctx) => {
        ctx.status = 201;
        ctx.body = await rotateKey(deps, principalIn(ctx), String(ctx.params.id));
      },
    }),
    route({
      method: 'DELETE',
      path: '/accounts/:account/keys/:id',
      operationId: 'revokeKey',
      summary: 'Revoke a credential: it answers 401 from the next request on',
      tags: ['Keys'],
      pathParams: { ...ACCOUNT, id: { type: 'string' } },
      before: member,
      responses: { 204: E('Revoked'), ...ERRORS },
      handler: async (ctx) => {
        await revokeKey(deps, principalIn(ctx), String(ctx.params.id));
        ctx.status = 204;
      },
    }),
  ];
}
