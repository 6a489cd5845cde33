import { principalOf, requirePolicy } from '@cw/auth';
import { route, type RouteSpec } from '@cw/http';
import { getPostbackConfig, POSTBACK_INPUT, putPostbackConfig, READ_POSTBACK_POLICY, rotatePostbackSecret, WRITE_POSTBACK_POLICY } from '@cw/postbacks';
import { API_KEY_SECURITY, type AppDeps } from '@cw/runtime';

const CONFIG = {
  type: 'object',
  properties: {
    configured: { type: 'boolean' },
    url: { type: ['string', 'null'] },
    http_method: { type: ['string', 'null'], enum: ['GET', 'POST', null] },
    event_types: { type: 'array', items: { type: 'string' } },
    active: { type: 'boolean' },
    has_secret: { type: 'boolean' },
    secret_prefix: { type: ['string', 'null'], description: 'The first characters of the signing secret, never the secret.' },
    previous_secret_valid_until: { type: ['string', 'null'], format: 'date-time', description: 'During a rotation: until when the previous secret also signs deliveries.' },
    created_at: { type: ['string', 'null'], format: 'date-time' },
    updated_at: { type: ['string', 'null'], format: 'date-time' },
    secret: { type: 'string', description: 'Only in the answer that created it (PUT 201, secret rotation).' },
  },
};

const ERRORS = { 400: { description: 'Invalid parameter' }, 401: { description: 'Not authenticated' }, 429: { description: 'Rate limited' }, 503: { description: 'Unavailable' } };
const WRITE_403 = { 403: { description: 'postback_write_requires_portal: publisher API keys cannot change the postback; use the portal or a portal API token' } };

export function postbackRoutes(deps: AppDeps): RouteSpec[] {
  const write = [requirePolicy(deps, WRITE_POSTBACK_POLICY)];
  return [
    route({
      method: 'GET',
      path: '/postback',
      operationId: 'getPostback',
      summary: 'The conversion postback configuration (never the secret)',
      tags: ['Postbacks'],
      security: API_KEY_SECURITY,
      before: [requirePolicy(deps, READ_POSTBACK_POLICY)],
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
      before: write,
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
      before: write,
      responses: { 201: { description: 'The new secret', schema: CONFIG }, ...ERRORS, ...WRITE_403, 404: { description: 'No postback is configured' } },
      handler: async (ctx) => {
        ctx.status = 201;
        ctx.body = await rotatePostbackSecret(deps, principalOf(ctx));
      },
    }),
  ];
}
