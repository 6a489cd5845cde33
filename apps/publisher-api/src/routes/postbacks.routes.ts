import { principalOf, requirePolicy } from '@cw/auth';
import { route, type RouteSpec } from '@cw/http';
import {
  createDeliveryAgent,
  DELIVERIES_INPUT,
  getPostbackConfig,
  listDeliveries,
  POSTBACK_CONFIG_SCHEMA as CONFIG,
  POSTBACK_DELIVERY_SCHEMA as DELIVERY,
  POSTBACK_TEST_DELIVERY_SCHEMA,
  POSTBACK_INPUT,
  putPostbackConfig,
  redeliver,
  rotatePostbackSecret,
  sendTestEvent,
} from '@cw/postbacks';
import { pageEnvelopeSchema } from '@cw/http';
import { API_KEY_SECURITY } from '@cw/runtime';
import type { PublisherApiDeps } from '../deps';

const ERRORS = {
  400: { description: 'Invalid parameter' },
  401: { description: 'Not authenticated' },
  429: { description: 'Rate limited' },
  503: { description: 'Unavailable' },
};
const WRITE_403 = {
  403: { description: 'postback_write_requires_portal: publisher API keys cannot change the postback; use the portal or a portal API token' },
};

export function postbackRoutes(deps: PublisherApiDeps): RouteSpec[] {
  const agent = createDeliveryAgent({ allowInsecure: deps.config.postbackAllowInsecure });
  return [
    route({
      method: 'GET',
      path: '/postback',
      operationId: 'getPostback',
      summary: 'The conversion postback configuration (never the secret)',
      tags: ['Postbacks'],
      security: API_KEY_SECURITY,
      before: [requirePolicy(deps, getPostbackConfig.policy)],
      responses: { 200: { description: 'PostbackConfig', schema: CONFIG }, ...ERRORS, 403: { description: 'Credential not allowed' } },
      handler: async (ctx) => {
        ctx.body = await getPostbackConfig(deps, principalOf(ctx));
      },
    }),
    route({
      method: 'PUT',
      path: '/postback',
      operationId: 'putPostback',
      summary: 'Create (201, with the signing secret, once) or update (200) the postback: portal token only',
      tags: ['Postbacks'],
      security: ['BearerAuth'],
      body: POSTBACK_INPUT,
      before: [requirePolicy(deps, putPostbackConfig.policy)],
      responses: { 200: { description: 'Updated', schema: CONFIG }, 201: { description: 'Created, with the secret', schema: CONFIG }, ...ERRORS, ...WRITE_403 },
      handler: async (ctx, { body }) => {
        const r = await putPostbackConfig(deps, principalOf(ctx), body);
        ctx.status = r.created ? 201 : 200;
        ctx.body = r.view;
      },
    }),
    route({
      method: 'POST',
      path: '/postback/secret',
      operationId: 'rotatePostbackSecret',
      summary: 'A new signing secret (shown once); the previous one keeps signing for 24 hours: portal token only',
      tags: ['Postbacks'],
      security: ['BearerAuth'],
      before: [requirePolicy(deps, rotatePostbackSecret.policy)],
      responses: { 201: { description: 'The new secret', schema: CONFIG }, ...ERRORS, ...WRITE_403, 404: { description: 'No postback is configured' } },
      handler: async (ctx) => {
        ctx.status = 201;
        ctx.body = await rotatePostbackSecret(deps, principalOf(ctx));
      },
    }),
    route({
      method: 'POST',
      path: '/postback/test',
      operationId: 'testPostback',
      summary: 'Send a signed test event (sale.created-shaped, marked test) now; answers its delivery and outcome',
      tags: ['Postbacks'],
      security: API_KEY_SECURITY,
      before: [requirePolicy(deps, sendTestEvent.policy)],
      responses: {
        200: { description: 'The test delivery', schema: POSTBACK_TEST_DELIVERY_SCHEMA },
        ...ERRORS,
        403: { description: 'Credential not allowed' },
        404: { description: 'No postback is configured' },
      },
      handler: async (ctx) => {
        ctx.body = await sendTestEvent(deps, principalOf(ctx), agent);
      },
    }),
    route({
      method: 'GET',
      path: '/postback/deliveries',
      operationId: 'listPostbackDeliveries',
      summary: 'Delivery attempts, newest first (kept 30 days)',
      tags: ['Postbacks'],
      security: API_KEY_SECURITY,
      query: DELIVERIES_INPUT,
      before: [requirePolicy(deps, listDeliveries.policy)],
      responses: {
        200: { description: 'Page envelope of deliveries', schema: pageEnvelopeSchema(DELIVERY, { cursor: true }) },
        ...ERRORS,
        403: { description: 'Credential not allowed' },
      },
      handler: async (ctx, { query }) => {
        ctx.body = await listDeliveries(deps, principalOf(ctx), query);
      },
    }),
    route({
      method: 'POST',
      path: '/postback/deliveries/:id/redeliver',
      operationId: 'redeliverPostback',
      summary: 'Send a failed or dead delivery again under the same delivery id (live keys)',
      tags: ['Postbacks'],
      security: API_KEY_SECURITY,
      pathParams: { id: { type: 'string' } },
      before: [requirePolicy(deps, redeliver.policy)],
      responses: {
        200: { description: 'The delivery, pending again', schema: DELIVERY },
        ...ERRORS,
        403: { description: 'Credential not allowed' },
        404: { description: 'No such delivery' },
        409: { description: 'The delivery is not failed or dead' },
      },
      handler: async (ctx) => {
        ctx.body = await redeliver(deps, principalOf(ctx), String(ctx.params.id));
      },
    }),
  ];
}
