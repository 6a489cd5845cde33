/** Settings, Postback: the same use cases as the API's `/postback/...`, for the account's people. */
import { route, type RouteSpec } from '@cw/http';
import {
  createDeliveryAgent,
  DELIVERIES_INPUT,
  getPostbackConfig,
  listDeliveries,
  POSTBACK_CONFIG_SCHEMA,
  POSTBACK_DELIVERY_SCHEMA,
  POSTBACK_TEST_DELIVERY_SCHEMA,
  POSTBACK_INPUT,
  putPostbackConfig,
  redeliver,
  rotatePostbackSecret,
  sendTestEvent,
} from '@cw/postbacks';
import { pageEnvelopeSchema } from '@cw/http';
import { memberOf, principalIn, spendPortalBudget, type PortalDeps } from '../portal-context';
import { E } from './schemas';

const ACCOUNT = { account: { type: 'string' } };
const ERRORS = { 401: E('Not signed in'), 403: E('role_not_allowed, reauthentication_required or csrf_failed'), 404: E('Not found'), 429: E('Rate limited') };

export function postbackRoutes(deps: PortalDeps): RouteSpec[] {
  const member = [spendPortalBudget(deps), memberOf(deps)];
  const agent = createDeliveryAgent({ allowInsecure: deps.config.postbackAllowInsecure });
  return [
    route({
      method: 'GET',
      path: '/accounts/:account/postback',
      operationId: 'getPostback',
      summary: 'The postback configuration (never the secret)',
      tags: ['Postback'],
      pathParams: ACCOUNT,
      before: member,
      responses: { 200: { description: 'The configuration', schema: POSTBACK_CONFIG_SCHEMA }, ...ERRORS },
      handler: async (ctx) => {
        ctx.body = await getPostbackConfig(deps, principalIn(ctx));
      },
    }),
    route({
      method: 'PUT',
      path: '/accounts/:account/postback',
      operationId: 'putPostback',
      summary: 'Create (201, with the signing secret, once) or update the postback (owners, developers)',
      tags: ['Postback'],
      pathParams: ACCOUNT,
      body: POSTBACK_INPUT,
      before: member,
      responses: {
        200: { description: 'Updated', schema: POSTBACK_CONFIG_SCHEMA },
        201: { description: 'Created', schema: POSTBACK_CONFIG_SCHEMA },
        400: E('Invalid parameter'),
        ...ERRORS,
      },
      handler: async (ctx, { body }) => {
        const r = await putPostbackConfig(deps, principalIn(ctx), body);
        ctx.status = r.created ? 201 : 200;
        ctx.body = r.view;
      },
    }),
    route({
      method: 'POST',
      path: '/accounts/:account/postback/secret',
      operationId: 'rotatePostbackSecret',
      summary: 'A new signing secret, shown once; the previous one keeps signing for 24 hours',
      tags: ['Postback'],
      pathParams: ACCOUNT,
      before: member,
      responses: { 201: { description: 'The new secret', schema: POSTBACK_CONFIG_SCHEMA }, ...ERRORS },
      handler: async (ctx) => {
        ctx.status = 201;
        ctx.body = await rotatePostbackSecret(deps, principalIn(ctx));
      },
    }),
    route({
      method: 'POST',
      path: '/accounts/:account/postback/test',
      operationId: 'testPostback',
      summary: 'Send a signed test event now; answers its delivery',
      tags: ['Postback'],
      pathParams: ACCOUNT,
      before: member,
      responses: { 200: { description: 'The test delivery', schema: POSTBACK_TEST_DELIVERY_SCHEMA }, ...ERRORS },
      handler: async (ctx) => {
        ctx.body = await sendTestEvent(deps, principalIn(ctx), agent);
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/postback/deliveries',
      operationId: 'listPostbackDeliveries',
      summary: 'Deliveries, newest first',
      tags: ['Postback'],
      pathParams: ACCOUNT,
      query: DELIVERIES_INPUT,
      before: member,
      responses: {
        200: { description: 'Page of deliveries', schema: pageEnvelopeSchema(POSTBACK_DELIVERY_SCHEMA, { cursor: true }) },
        400: E('Invalid parameter'),
        ...ERRORS,
      },
      handler: async (ctx, { query }) => {
        ctx.body = await listDeliveries(deps, principalIn(ctx), query);
      },
    }),
    route({
      method: 'POST',
      path: '/accounts/:account/postback/deliveries/:id/redeliver',
      operationId: 'redeliverPostback',
      summary: 'Send a failed or dead delivery again under the same delivery id',
      tags: ['Postback'],
      pathParams: { ...ACCOUNT, id: { type: 'string' } },
      before: member,
      responses: { 200: { description: 'The delivery, pending again', schema: POSTBACK_DELIVERY_SCHEMA }, 409: E('Not failed or dead'), ...ERRORS },
      handler: async (ctx) => {
        ctx.body = await redeliver(deps, principalIn(ctx), String(ctx.params.id));
      },
    }),
  ];
}
