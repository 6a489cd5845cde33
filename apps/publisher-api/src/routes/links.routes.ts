import { principalOf, requirePolicy, type Policy } from '@cw/auth';
import { pageEnvelopeSchema, route, type RouteSpec } from '@cw/http';
import { idempotent } from '@cw/idempotency';
import { createLink, createLinkBatch, LINK_SCHEMA, LINK_BATCH_INPUT, LINK_REQUEST_INPUT, LIST_LINKS_INPUT, listLinks } from '@cw/links';
import { API_KEY_SECURITY } from '@cw/runtime';
import type { PublisherApiDeps } from '../deps';

export const ERRORS = {
  400: { description: 'Invalid parameter' },
  401: { description: 'Not authenticated' },
  403: { description: 'Credential not allowed, or program not approved' },
  429: { description: 'Rate limited' },
  503: { description: 'Unavailable' },
};
const WRITE_ERRORS = { ...ERRORS, 409: { description: 'Idempotency-Key reused with another body, or in use' } };

export function linkRoutes(deps: PublisherApiDeps): RouteSpec[] {
  const write = (name: string, useCase: { policy: Policy }) => [
    requirePolicy(deps, useCase.policy),
    idempotent({ data: deps.data.idempotency, account: (ctx) => principalOf(ctx).publisher._id, route: name }),
  ];
  return [
    route({
      method: 'GET',
      path: '/links',
      operationId: 'listLinks',
      summary: 'Links created through the links API, newest first',
      tags: ['Links'],
      security: API_KEY_SECURITY,
      query: LIST_LINKS_INPUT,
      before: [requirePolicy(deps, listLinks.policy)],
      responses: { 200: { description: 'Page envelope of links', schema: pageEnvelopeSchema(LINK_SCHEMA, { cursor: true }) }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await listLinks(deps, principalOf(ctx), query);
      },
    }),
    route({
      method: 'POST',
      path: '/links',
      operationId: 'createLink',
      summary: 'Create a tracking link: 201 created, 200 when the same link existed',
      description: 'Optional Idempotency-Key (max 255).',
      tags: ['Links'],
      security: API_KEY_SECURITY,
      body: LINK_REQUEST_INPUT,
      before: write('POST /links', createLink),
      responses: {
        200: { description: 'Existing link', schema: LINK_SCHEMA },
        201: { description: 'Created link', schema: LINK_SCHEMA },
        ...WRITE_ERRORS,
        404: { description: 'Unknown program or campaign' },
      },
      handler: async (ctx, { body }) => {
        const r = await createLink(deps, principalOf(ctx), body);
        ctx.status = r.created ? 201 : 200;
        ctx.body = r.link;
      },
    }),
    route({
      method: 'POST',
      path: '/links/batch',
      operationId: 'createLinkBatch',
      summary: 'Create 1 to 50 links; each item reports created, existing or error',
      description: 'Optional Idempotency-Key (max 255). Counts once against the links budget.',
      tags: ['Links'],
      security: API_KEY_SECURITY,
      body: LINK_BATCH_INPUT,
      before: write('POST /links/batch', createLinkBatch),
      responses: {
        200: {
          description: 'LinkBatchResult',
          schema: {
            type: 'object',
            properties: {
              results: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    index: { type: 'integer' },
                    status: { type: 'string', enum: ['created', 'existing', 'error'] },
                    link: LINK_SCHEMA,
                    error: { type: 'object' },
                  },
                },
              },
              created: { type: 'integer' },
              existing: { type: 'integer' },
              errors: { type: 'integer' },
            },
          },
        },
        ...WRITE_ERRORS,
      },
      handler: async (ctx, { body }) => {
        ctx.body = await createLinkBatch(deps, principalOf(ctx), body);
      },
    }),
  ];
}
