/**
 * Merchants and programs in the operator area: the programs lib's operator use cases (support
 * lists, admin creates; audited as merchant_created / program_created), as `merchant:*` and
 * `program:*` of the admin CLI. The portal never writes the programs collections itself.
 */
import { route, type RouteSpec } from '@cw/http';
import { displayText } from '@cw/validation';
import { operatorCreateMerchant, operatorCreateProgram, operatorListMerchants, operatorListPrograms, PROGRAM_STATUSES } from '@cw/programs';
import { spendPortalBudget, type PortalDeps } from '../portal-context';
import { operatorIn, operatorOf } from './operator.routes';
import { E, OPERATOR_CREATED_PROGRAM_SCHEMA, OPERATOR_MERCHANT_SCHEMA, OPERATOR_MERCHANTS_SCHEMA, OPERATOR_PROGRAMS_SCHEMA } from './schemas';

const TAGS = ['Operator area'];
const ERRORS = {
  401: E('Not signed in'),
  403: E('forbidden: not an operator; role_not_allowed: a support operator on an admin act; csrf_failed'),
  429: E('Rate limited'),
};
const LIMIT = { type: 'integer', minimum: 1, maximum: 500, default: 100 } as const;
const ID = { type: 'integer', minimum: 1, maximum: 2_147_483_647 } as const;
const DOMAIN = { type: 'string', minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.-]+$' } as const;

export function operatorProgramsRoutes(deps: PortalDeps): RouteSpec[] {
  const operator = [spendPortalBudget(deps), operatorOf(deps)];
  return [
    route({
      method: 'GET',
      path: '/operator/merchants',
      operationId: 'operatorListMerchants',
      summary: 'Merchants, by id (the API calls a merchant id campaign_id)',
      tags: TAGS,
      query: { type: 'object', additionalProperties: false, properties: { limit: LIMIT } } as const,
      before: operator,
      responses: { 200: { description: 'Merchants', schema: OPERATOR_MERCHANTS_SCHEMA }, 400: E('Invalid parameter'), ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = { data: await operatorListMerchants(deps, operatorIn(ctx), { limit: query.limit }) };
      },
    }),
    route({
      method: 'POST',
      path: '/operator/merchants',
      operationId: 'operatorCreateMerchant',
      summary: 'Create a merchant (admin)',
      tags: TAGS,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name'],
        properties: {
          id: ID,
          name: displayText({ maxLength: 200 }),
          domains: { type: 'array', maxItems: 50, items: DOMAIN },
        },
      } as const,
      before: operator,
      responses: {
        201: { description: 'The merchant', schema: OPERATOR_MERCHANT_SCHEMA },
        400: E('Invalid parameter'),
        ...ERRORS,
        409: E('conflict: the merchant id is taken'),
      },
      handler: async (ctx, { body }) => {
        ctx.status = 201;
        ctx.body = await operatorCreateMerchant(deps, operatorIn(ctx), { id: body.id, name: body.name.trim(), domains: body.domains });
      },
    }),
    route({
      method: 'GET',
      path: '/operator/programs',
      operationId: 'operatorListPrograms',
      summary: 'Programs with their merchant and terms, by id',
      tags: TAGS,
      query: {
        type: 'object',
        additionalProperties: false,
        properties: { merchant: ID, status: { type: 'string', enum: [...PROGRAM_STATUSES] }, limit: LIMIT },
      } as const,
      before: operator,
      responses: { 200: { description: 'Programs', schema: OPERATOR_PROGRAMS_SCHEMA }, 400: E('Invalid parameter'), ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = { data: await operatorListPrograms(deps, operatorIn(ctx), { merchant: query.merchant, status: query.status, limit: query.limit }) };
      },
    }),
    route({
      method: 'POST',
      path: '/operator/programs',
      operationId: 'operatorCreateProgram',
      summary: 'Create a program of a merchant (admin): one market, its landing page and the publisher-facing terms',
      tags: TAGS,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'merchant', 'name', 'country', 'landing_url'],
        properties: {
          id: ID,
          merchant: ID,
          name: displayText({ maxLength: 200 }),
          country: { type: 'string', pattern: '^[A-Z]{2}$' },
          currency: { type: 'string', pattern: '^[A-Za-z]{3}$' },
          landing_url: { type: 'string', minLength: 1, maxLength: 2000 },
          commission: { type: 'string', maxLength: 500, description: 'The terms as publishers read them' },
          auto_approve: { type: 'boolean' },
          joinable: { type: 'boolean' },
        },
      } as const,
      before: operator,
      responses: {
        201: { description: 'The program', schema: OPERATOR_CREATED_PROGRAM_SCHEMA },
        400: E('Invalid parameter'),
        ...ERRORS,
        404: E('No such merchant'),
        409: E('conflict: the program id is taken'),
      },
      handler: async (ctx, { body }) => {
        const p = await operatorCreateProgram(deps, operatorIn(ctx), {
          id: body.id,
          merchant: body.merchant,
          name: body.name.trim(),
          country: body.country,
          currency: body.currency,
          landingUrl: body.landing_url,
          commission: body.commission,
          autoApprove: body.auto_approve,
          joinable: body.joinable,
        });
        ctx.status = 201;
        ctx.body = { id: p._id, name: p.name, merchant_id: p.merchant_id, status: p.status, countries: p.countries, currency: p.currency };
      },
    }),
  ];
}
