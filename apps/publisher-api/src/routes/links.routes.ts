import type { RouteSpec } from '@cw/http';
import { idempotent } from '@cw/idempotency';
import type { AppDeps } from '@cw/runtime';
import { API_KEY_SECURITY, guard, principalOf } from '../guard';
import { listClicks } from '../services/clicks.service';
import { CAMPAIGN_ID_PATTERN, createLink, createLinkBatch, LINK_REQUEST_SCHEMA, listLinks, SUBID_PATTERN } from '../services/links.service';
import { PAGE_PARAM, PAGE_SCHEMA_PROPS, pageSizeParam } from '../services/paging';

const CAMPAIGN = { type: 'string', pattern: CAMPAIGN_ID_PATTERN, description: 'Campaign (merchant) id.' };

const LINK = {
  type: 'object',
  required: ['id', 'url', 'deeplink_id', 'program_id', 'campaign_id', 'subid', 'landing_url', 'created_at'],
  properties: {
    id: { type: 'string' },
    url: { type: 'string', description: '{tracking_url}/c/{code}' },
    deeplink_id: { type: 'string', description: 'Filter of GET /clicks/.' },
    program_id: { type: 'integer' },
    campaign_id: { type: 'integer' },
    subid: { type: ['string', 'null'] },
    landing_url: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
  },
};

const ERRORS = { 400: { description: 'Invalid parameter' }, 401: { description: 'Not authenticated' }, 403: { description: 'Credential not allowed, or program not approved' }, 429: { description: 'Rate limited' }, 503: { description: 'Unavailable' } };
const WRITE_ERRORS = { ...ERRORS, 409: { description: 'Idempotency-Key reused with another body, or in use' } };

export function linkRoutes(deps: AppDeps): RouteSpec[] {
  const write = (route: string) => [
    ...guard(deps, { budget: 'links', refuseKinds: ['read_only'], refuseDetail: 'Demo accounts and read-only keys cannot create links.', refuseDemoAccounts: true }),
    idempotent({ models: deps.models, account: (ctx) => principalOf(ctx.state).publisher._id, route }),
  ];
  return [
    {
      method: 'GET',
      path: '/links',
      operationId: 'listLinks',
      summary: 'Links created through the links API, newest first',
      tags: ['Links'],
      security: API_KEY_SECURITY,
      query: { properties: { subid: { type: 'string', pattern: SUBID_PATTERN }, campaign_id: CAMPAIGN, page: PAGE_PARAM, page_size: pageSizeParam(1000) } },
      before: guard(deps, { budget: 'links' }),
      responses: { 200: { description: 'Page envelope of links', schema: PAGE_SCHEMA_PROPS(LINK) }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await listLinks(deps.models, deps.config, principalOf(ctx.state), query as never);
      },
    },
    {
      method: 'POST',
      path: '/links',
      operationId: 'createLink',
      summary: 'Create a tracking link: 201 created, 200 when the same link existed',
      description: 'Optional Idempotency-Key (max 255).',
      tags: ['Links'],
      security: API_KEY_SECURITY,
      body: LINK_REQUEST_SCHEMA as unknown as Record<string, unknown>,
      before: write('POST /links'),
      responses: { 200: { description: 'Existing link', schema: LINK }, 201: { description: 'Created link', schema: LINK }, ...WRITE_ERRORS, 404: { description: 'Unknown program or campaign' } },
      handler: async (ctx, { body }) => {
        const r = await createLink(deps.models, deps.config, principalOf(ctx.state), body);
        ctx.status = r.status;
        ctx.body = r.body;
      },
    },
    {
      method: 'POST',
      path: '/links/batch',
      operationId: 'createLinkBatch',
      summary: 'Create 1 to 50 links; each item reports created, existing or error',
      description: 'Optional Idempotency-Key (max 255). Counts once against the links budget.',
      tags: ['Links'],
      security: API_KEY_SECURITY,
      body: { type: 'object', additionalProperties: false, required: ['links'], properties: { links: { type: 'array', minItems: 1, maxItems: 50, items: {} } } },
      before: write('POST /links/batch'),
      responses: {
        200: {
          description: 'LinkBatchResult',
          schema: {
            type: 'object',
            properties: {
              results: { type: 'array', items: { type: 'object', properties: { index: { type: 'integer' }, status: { type: 'string', enum: ['created', 'existing', 'error'] }, link: LINK, error: { type: 'object' } } } },
              created: { type: 'integer' },
              existing: { type: 'integer' },
              errors: { type: 'integer' },
            },
          },
        },
        ...WRITE_ERRORS,
      },
      handler: async (ctx, { body }) => {
        ctx.body = await createLinkBatch(deps.models, deps.config, principalOf(ctx.state), body.links as unknown[]);
      },
    },
    {
      method: 'GET',
      path: '/clicks',
      operationId: 'listClicks',
      summary: 'Recorded clicks on your links, newest first',
      tags: ['Clicks'],
      security: API_KEY_SECURITY,
      query: {
        properties: {
          sub_id: { type: 'string', pattern: SUBID_PATTERN },
          campaign_id: CAMPAIGN,
          deeplink_id: { type: 'string', pattern: '^[A-Za-z0-9]{1,64}$', description: 'A link id.' },
          include_bots: { type: 'boolean', default: false, description: 'Also list clicks flagged as bots.' },
          page: PAGE_PARAM,
          page_size: pageSizeParam(200),
        },
      },
      before: guard(deps, { budget: 'reporting' }),
      responses: { 200: { description: 'Page envelope of clicks' }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await listClicks(deps.models, principalOf(ctx.state), query as never);
      },
    },
  ];
}
