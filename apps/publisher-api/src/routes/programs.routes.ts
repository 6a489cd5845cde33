import type { RouteSpec } from '@cw/http';
import { idempotent } from '@cw/idempotency';
import type { AppDeps } from '@cw/runtime';
import { API_KEY_SECURITY, guard, principalOf } from '../guard';
import { CAMPAIGN_ID_PATTERN } from '../services/links.service';
import { PAGE_PARAM, PAGE_SCHEMA_PROPS, pageSizeParam } from '../services/paging';
import { applyToProgram, joinablePrograms, listPrograms } from '../services/programs.service';

const SEARCH = { type: 'string', minLength: 1, maxLength: 200, description: 'Case-insensitive text in the program name.' };

const PROGRAM = {
  type: 'object',
  required: ['id', 'name', 'merchant', 'campaign_id', 'relationship', 'status'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    merchant: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
    campaign_id: { type: 'integer', description: 'The campaign (merchant) id links and clicks are filtered by.' },
    relationship: { type: 'string', enum: ['approved', 'pending', 'rejected', 'available'], description: "The caller's assignment." },
    status: { type: 'string', enum: ['active', 'paused', 'closed'] },
    description: { type: 'string' },
    category: { type: 'string' },
    countries: { type: 'array', items: { type: 'string' } },
    currency: { type: 'string' },
    commission: { type: 'string' },
    cookie_days: { type: 'integer' },
    joinable: { type: 'boolean' },
    auto_approve: { type: 'boolean', description: 'Applications are approved at once.' },
    default_landing_url: { type: 'string' },
    allowed_domains: { type: 'array', items: { type: 'string' } },
  },
};

const ERRORS = { 400: { description: 'Invalid parameter' }, 401: { description: 'Not authenticated' }, 403: { description: 'Credential not allowed' }, 429: { description: 'Rate limited' }, 503: { description: 'Unavailable' } };

export function programRoutes(deps: AppDeps): RouteSpec[] {
  const read = guard(deps, { budget: 'programs' });
  return [
    {
      method: 'GET',
      path: '/programs',
      operationId: 'listPrograms',
      summary: "The caller's programs; with include_available=true also those open for application",
      tags: ['Programs'],
      security: API_KEY_SECURITY,
      query: { properties: { search: SEARCH, include_available: { type: 'boolean', default: false }, page: PAGE_PARAM, page_size: pageSizeParam(1000) } },
      before: read,
      responses: { 200: { description: 'Page envelope of programs', schema: PAGE_SCHEMA_PROPS(PROGRAM) }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await listPrograms(deps.models, principalOf(ctx.state), query as never);
      },
    },
    {
      method: 'GET',
      path: '/programs/joinable',
      operationId: 'listJoinablePrograms',
      summary: 'Active programs open for application that the caller is not assigned to',
      tags: ['Programs'],
      security: API_KEY_SECURITY,
      query: { properties: { search: SEARCH, page: PAGE_PARAM, page_size: pageSizeParam(1000) } },
      before: read,
      responses: { 200: { description: 'Page envelope of programs', schema: PAGE_SCHEMA_PROPS(PROGRAM) }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await joinablePrograms(deps.models, principalOf(ctx.state), query as never);
      },
    },
    {
      method: 'POST',
      path: '/programs/apply',
      operationId: 'applyToProgram',
      summary: 'Apply to a program: 201 when approved at once, 200 when pending review or already decided',
      description: 'Optional Idempotency-Key (max 255). Demo accounts and read-only keys never apply.',
      tags: ['Programs'],
      security: API_KEY_SECURITY,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['program_id'],
        properties: {
          program_id: { type: 'integer', minimum: 1, maximum: 2147483647 },
          campaign_id: { oneOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: CAMPAIGN_ID_PATTERN }], description: "Optional; must be the program's campaign." },
        },
      },
      before: [
        ...guard(deps, { budget: 'programs', refuseKinds: ['read_only'], refuseDetail: 'Demo accounts and read-only keys cannot apply to programs.', refuseDemoAccounts: true }),
        idempotent({ models: deps.models, account: (ctx) => principalOf(ctx.state).publisher._id, route: 'POST /programs/apply' }),
      ],
      responses: {
        200: { description: 'Pending review, or the existing assignment' },
        201: { description: 'Approved' },
        ...ERRORS,
        404: { description: 'Unknown or inactive program' },
        409: { description: 'Idempotency-Key reused with another body, or in use' },
      },
      handler: async (ctx, { body }) => {
        const r = await applyToProgram(deps.models, principalOf(ctx.state), body as never);
        ctx.status = r.status;
        ctx.body = r.body;
      },
    },
  ];
}
