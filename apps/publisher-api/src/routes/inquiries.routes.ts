/** Missing-sale inquiries (DESIGN.md "Attribution beyond the click"): file one with the platform's click evidence, list and read them. */
import { principalOf, requirePolicy } from '@cw/auth';
import { pageEnvelopeSchema, route, type RouteSpec } from '@cw/http';
import { idempotent } from '@cw/idempotency';
import { FILE_INQUIRY_INPUT, fileInquiry, getInquiry, INQUIRY_SCHEMA, LIST_INQUIRIES_INPUT, listInquiries } from '@cw/inquiries';
import { API_KEY_SECURITY } from '@cw/runtime';
import type { PublisherApiDeps } from '../deps';

const ERRORS = {
  400: { description: 'Invalid parameter' },
  401: { description: 'Not authenticated' },
  403: { description: 'Credential not allowed (test, sandbox, read-only and demo keys)' },
  429: { description: 'Rate limited' },
};
const KEY_RULES = 'Live keys; test, sandbox, read-only and demo keys get 403. OAuth scope links:write.';

export function inquiryRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return [
    route({
      method: 'POST',
      path: '/inquiries',
      operationId: 'fileInquiry',
      summary: 'File a missing-sale inquiry: an order you earned that was not credited, with the platform’s click evidence',
      description: `Optional Idempotency-Key (max 255). The merchant sees it on the tracking API and accepts (a conversion with channel \`inquiry\` is credited) or rejects it with a reason; unanswered by \`respond_by\`, it is accepted when \`evidence.clicks\` holds a verified click, else rejected (\`outside_window\`). \`occurred_at\` within the last 90 days. The same order filed again answers the first inquiry (200). ${KEY_RULES} In the portal, owners and developers.`,
      tags: ['Inquiries'],
      security: API_KEY_SECURITY,
      body: FILE_INQUIRY_INPUT,
      before: [
        requirePolicy(deps, fileInquiry.policy),
        idempotent({ data: deps.data.idempotency, account: (ctx) => principalOf(ctx).publisher._id, route: 'POST /inquiries' }),
      ],
      responses: {
        200: { description: 'This order was filed before: its inquiry', schema: INQUIRY_SCHEMA },
        201: { description: 'Filed, open', schema: INQUIRY_SCHEMA },
        ...ERRORS,
        403: { description: 'program_not_approved, or the credential not allowed' },
        404: { description: 'No such program' },
        409: { description: 'order_already_credited (to you), or the Idempotency-Key reused' },
      },
      handler: async (ctx, { body }) => {
        const r = await fileInquiry(deps, principalOf(ctx), body);
        ctx.status = r.created ? 201 : 200;
        ctx.body = r.inquiry;
      },
    }),
    route({
      method: 'GET',
      path: '/inquiries',
      operationId: 'listInquiries',
      summary: 'Your missing-sale inquiries, newest first',
      description: `Filter by \`status\` (open, accepted, rejected). ${KEY_RULES}`,
      tags: ['Inquiries'],
      security: API_KEY_SECURITY,
      query: LIST_INQUIRIES_INPUT,
      before: [requirePolicy(deps, listInquiries.policy)],
      responses: { 200: { description: 'Page envelope of inquiries', schema: pageEnvelopeSchema(INQUIRY_SCHEMA, { cursor: true }) }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await listInquiries(deps, principalOf(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/inquiries/:id',
      operationId: 'getInquiry',
      summary: 'One of your missing-sale inquiries',
      description: `Its status, the reason of a rejection, the conversion an acceptance created, a conflict (the order credited already). ${KEY_RULES} Another account's inquiry is 404.`,
      tags: ['Inquiries'],
      security: API_KEY_SECURITY,
      pathParams: { id: { type: 'string', description: '`inq_…`' } },
      before: [requirePolicy(deps, getInquiry.policy)],
      responses: { 200: { description: 'The inquiry', schema: INQUIRY_SCHEMA }, ...ERRORS, 404: { description: 'No such inquiry' } },
      handler: async (ctx) => {
        ctx.body = await getInquiry(deps, principalOf(ctx), { id: String(ctx.params.id) });
      },
    }),
  ];
}
