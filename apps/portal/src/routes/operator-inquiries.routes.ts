/**
 * Missing-sale inquiries in the operator area (`/operations/inquiries`): the inquiries lib's
 * `operatorListInquiries` (support: open ones by deadline, the overdue ones, or decided ones) and
 * `operatorDecideInquiry` (admin: accept, crediting the order, or reject with a reason), as
 * `inquiry:list` / `inquiry:decide` of the admin CLI. Each decision is an operator act in the audit
 * log of the publisher's account (`inquiry_decided`); its owners are mailed (the composition root).
 */
import type { Context } from 'koa';
import { route, type RouteSpec } from '@cw/http';
import { INQUIRY_SCHEMA, INQUIRY_STATUSES, operatorDecideInquiry, operatorListInquiries, REJECT_INQUIRY_INPUT } from '@cw/inquiries';
import { spendPortalBudget, type PortalDeps } from '../portal-context';
import { operatorIn, operatorOf } from './operator.routes';
import { E } from './schemas';

const TAGS = ['Operator area'];
const ERRORS = {
  401: E('Not signed in'),
  403: E('forbidden: not an operator; role_not_allowed: a support operator on a decision; csrf_failed'),
  429: E('Rate limited'),
};
const ID = { id: { type: 'string', minLength: 1, maxLength: 64, description: '`inq_…`' } } as const;
/** The inquiry as the operator sees it: the publisher's view, whose it is, which merchant decides it, and whether it is overdue. */
const OPERATOR_INQUIRY_SCHEMA = {
  ...INQUIRY_SCHEMA,
  required: [...INQUIRY_SCHEMA.required, 'publisher_id', 'merchant_id', 'overdue'],
  properties: {
    ...INQUIRY_SCHEMA.properties,
    publisher_id: { type: 'string' },
    merchant_id: { type: 'integer' },
    overdue: { type: 'boolean', description: 'Open past its respond_by.' },
  },
};
const OPERATOR_INQUIRIES_SCHEMA = { type: 'object', required: ['data'], properties: { data: { type: 'array', items: OPERATOR_INQUIRY_SCHEMA } } };
const DECIDED = {
  200: {
    description: "The inquiry as the operator sees it (the publisher's view with publisher_id, merchant_id and overdue)",
    schema: OPERATOR_INQUIRY_SCHEMA,
  },
  ...ERRORS,
  404: E('No such inquiry'),
  409: E('invalid_transition: decided already (a decision stands) or being decided; order_already_credited: reject it as duplicate'),
};
const idOf = (ctx: Context) => String(ctx.params.id);

export function operatorInquiriesRoutes(deps: PortalDeps): RouteSpec[] {
  const operator = [spendPortalBudget(deps), operatorOf(deps)];
  return [
    route({
      method: 'GET',
      path: '/operator/inquiries',
      operationId: 'operatorListInquiries',
      summary: 'Missing-sale inquiries of every publisher: open ones by deadline (default), only the overdue ones, or decided ones, newest first',
      tags: TAGS,
      query: {
        type: 'object',
        additionalProperties: false,
        properties: {
          status: { type: 'string', enum: [...INQUIRY_STATUSES], default: 'open' },
          overdue: { type: 'boolean', description: 'Only open inquiries past their respond_by (status is then ignored).' },
          limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
        },
      } as const,
      before: operator,
      responses: {
        200: { description: 'Inquiries with publisher_id, merchant_id and overdue', schema: OPERATOR_INQUIRIES_SCHEMA },
        400: E('Invalid parameter'),
        ...ERRORS,
      },
      handler: async (ctx, { query }) => {
        ctx.body = { data: await operatorListInquiries(deps, operatorIn(ctx), { status: query.status, overdue: query.overdue === true, limit: query.limit }) };
      },
    }),
    route({
      method: 'POST',
      path: '/operator/inquiries/:id/accept',
      operationId: 'operatorAcceptInquiry',
      summary: 'Accept an open inquiry (admin): the order is credited to the publisher (a pending conversion, channel inquiry); audited',
      tags: TAGS,
      pathParams: ID,
      before: operator,
      responses: DECIDED,
      handler: async (ctx) => {
        ctx.body = await operatorDecideInquiry(deps, operatorIn(ctx), { id: idOf(ctx), decision: 'accept' });
      },
    }),
    route({
      method: 'POST',
      path: '/operator/inquiries/:id/reject',
      operationId: 'operatorRejectInquiry',
      summary: 'Reject an open inquiry with a reason (admin): duplicate, no_order, returned, outside_window or other; audited',
      tags: TAGS,
      pathParams: ID,
      body: REJECT_INQUIRY_INPUT,
      before: operator,
      responses: { ...DECIDED, 400: E("invalid_parameter: 'reason'") },
      handler: async (ctx, { body }) => {
        ctx.body = await operatorDecideInquiry(deps, operatorIn(ctx), { id: idOf(ctx), decision: 'reject', reason: body.reason });
      },
    }),
  ];
}
