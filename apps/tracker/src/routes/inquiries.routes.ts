/** Missing-sale inquiries on the merchant's programs: list them, accept one (the sale is credited, channel inquiry) or reject it with a reason. */
import { merchantOf, requireMerchant } from '@cw/auth';
import { pageEnvelopeSchema, route, type RouteSpec } from '@cw/http';
import {
  INQUIRY_SCHEMA,
  LIST_INQUIRIES_INPUT,
  merchantAcceptInquiry,
  merchantGetInquiry,
  merchantListInquiries,
  merchantRejectInquiry,
  REJECT_INQUIRY_INPUT,
} from '@cw/inquiries';
import type { TrackerDeps } from '../deps';

const ERRORS = {
  400: { description: 'Invalid parameter' },
  401: { description: 'Not a merchant token' },
  429: { description: 'Rate limited (per merchant)' },
  503: { description: 'Unavailable' },
};
const ID = { id: { type: 'string', description: '`inq_…`' } };

export function inquiryRoutes(deps: TrackerDeps): RouteSpec[] {
  const auth = [requireMerchant(deps)];
  return [
    route({
      method: 'GET',
      path: '/inquiries',
      operationId: 'listMerchantInquiries',
      summary: "Publishers' missing-sale inquiries on your programs, newest first",
      description:
        'Merchant token (Bearer) only. Each names the order, its time and amount, the publisher’s note and the platform’s click evidence (`verified`: the click id’s signature holds and the click was in the cookie window before the order). Filter `status=open` for those waiting for you: unanswered by `respond_by`, an inquiry is accepted when its evidence holds a verified click.',
      tags: ['Inquiries'],
      security: ['MerchantToken'],
      query: LIST_INQUIRIES_INPUT,
      before: auth,
      responses: { 200: { description: 'Page envelope of inquiries', schema: pageEnvelopeSchema(INQUIRY_SCHEMA, { cursor: true }) }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await merchantListInquiries(deps, merchantOf(ctx).merchantId, query);
      },
    }),
    route({
      method: 'GET',
      path: '/inquiries/:id',
      operationId: 'getMerchantInquiry',
      summary: 'One inquiry on your programs',
      tags: ['Inquiries'],
      security: ['MerchantToken'],
      pathParams: ID,
      before: auth,
      responses: { 200: { description: 'The inquiry', schema: INQUIRY_SCHEMA }, ...ERRORS, 404: { description: 'No such inquiry on your programs' } },
      handler: async (ctx) => {
        ctx.body = await merchantGetInquiry(deps, merchantOf(ctx).merchantId, String(ctx.params.id));
      },
    }),
    route({
      method: 'POST',
      path: '/inquiries/:id/accept',
      operationId: 'acceptInquiry',
      summary: 'Accept an inquiry: the order is credited to the publisher (a pending conversion, channel inquiry)',
      description:
        'The conversion is created as your intake creates one (the same order id is one conversion; commission from the program’s terms) and is approved or declined like any other. An order already credited is 409 `order_already_credited`; the inquiry then shows the conflict (reject it as `duplicate`).',
      tags: ['Inquiries'],
      security: ['MerchantToken'],
      pathParams: ID,
      body: { type: 'object', additionalProperties: false, properties: {} },
      before: auth,
      responses: {
        200: { description: 'The accepted inquiry, with `conversion_id`', schema: INQUIRY_SCHEMA },
        ...ERRORS,
        404: { description: 'No such inquiry on your programs' },
        409: { description: 'order_already_credited, or invalid_transition (decided already)' },
      },
      handler: async (ctx) => {
        ctx.body = await merchantAcceptInquiry(deps, merchantOf(ctx).merchantId, String(ctx.params.id));
      },
    }),
    route({
      method: 'POST',
      path: '/inquiries/:id/reject',
      operationId: 'rejectInquiry',
      summary: 'Reject an inquiry with a reason',
      tags: ['Inquiries'],
      security: ['MerchantToken'],
      pathParams: ID,
      body: REJECT_INQUIRY_INPUT,
      before: auth,
      responses: {
        200: { description: 'The rejected inquiry', schema: INQUIRY_SCHEMA },
        ...ERRORS,
        404: { description: 'No such inquiry on your programs' },
        409: { description: 'invalid_transition (decided already)' },
      },
      handler: async (ctx, { body }) => {
        ctx.body = await merchantRejectInquiry(deps, merchantOf(ctx).merchantId, String(ctx.params.id), body.reason);
      },
    }),
  ];
}
