/**
 * Missing sales (`/inquiries`) for an account's people: its missing-sale inquiries (list, one) and
 * "File an inquiry", through the inquiries lib's use cases (the publisher API's `/inquiries/`, the
 * same policies: owners and developers file, every member reads, demo accounts never file). The
 * POST takes an optional Idempotency-Key under the API's own scope (`POST /inquiries`), so a key
 * replays across both surfaces; filing the same order again answers the first inquiry anyway.
 */
import { pageEnvelopeSchema, route, type RouteSpec } from '@cw/http';
import { FILE_INQUIRY_INPUT, fileInquiry, getInquiry, INQUIRY_SCHEMA, LIST_INQUIRIES_INPUT, listInquiries } from '@cw/inquiries';
import { idempotentWrite, memberOf, principalIn, spendPortalBudget, type PortalDeps } from '../portal-context';
import { E } from './schemas';

const TAGS = ['Inquiries'];
const ACCOUNT = { account: { type: 'string', description: 'An account the person belongs to (pub_…).' } };
const ERRORS = {
  401: E('Not signed in'),
  403: E('role_not_allowed, credential_not_allowed (demo accounts) or csrf_failed'),
  404: E('Not a member of this account'),
  429: E('Rate limited'),
};

export function inquiriesRoutes(deps: PortalDeps): RouteSpec[] {
  const member = [spendPortalBudget(deps), memberOf(deps)];
  const write = idempotentWrite(deps, fileInquiry.policy, 'POST /inquiries');
  return [
    route({
      method: 'GET',
      path: '/accounts/:account/inquiries',
      operationId: 'listAccountInquiries',
      summary: "The account's missing-sale inquiries, newest first (filter status), as GET /api/v1/publisher/inquiries/",
      tags: TAGS,
      pathParams: ACCOUNT,
      query: LIST_INQUIRIES_INPUT,
      before: member,
      responses: {
        200: { description: 'Page envelope of inquiries', schema: pageEnvelopeSchema(INQUIRY_SCHEMA, { cursor: true }) },
        400: E('Invalid parameter'),
        ...ERRORS,
      },
      handler: async (ctx, { query }) => {
        ctx.body = await listInquiries(deps, principalIn(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/inquiries/:id',
      operationId: 'getAccountInquiry',
      summary: "One missing-sale inquiry of the account (another account's, or an unknown one: 404)",
      tags: TAGS,
      pathParams: { ...ACCOUNT, id: { type: 'string', description: '`inq_…`' } },
      before: member,
      responses: { 200: { description: 'The inquiry', schema: INQUIRY_SCHEMA }, ...ERRORS, 404: E('No such inquiry of this account, or not a member') },
      handler: async (ctx) => {
        ctx.body = await getInquiry(deps, principalIn(ctx), { id: String(ctx.params.id) });
      },
    }),
    route({
      method: 'POST',
      path: '/accounts/:account/inquiries',
      operationId: 'fileAccountInquiry',
      summary: 'File a missing-sale inquiry (owners, developers): 201 filed with the platform’s click evidence, 200 when the order was filed before',
      description:
        'As POST /api/v1/publisher/inquiries/: a program the account is approved for, the order id, when it was placed (the last 90 days), its amount and currency, optionally the click id and a note for the merchant. Optional Idempotency-Key (max 255), the same scope as the API’s.',
      tags: TAGS,
      pathParams: ACCOUNT,
      body: FILE_INQUIRY_INPUT,
      before: write,
      responses: {
        200: { description: 'This order was filed before: its inquiry', schema: INQUIRY_SCHEMA },
        201: { description: 'Filed, open', schema: INQUIRY_SCHEMA },
        400: E('invalid_parameter: a field named in errors[] (occurred_at in the future or older than 90 days, amount not positive or too many decimals)'),
        ...ERRORS,
        403: E('program_not_approved (errors[] names program_id), role_not_allowed, credential_not_allowed (demo accounts) or csrf_failed'),
        404: E('No such program (errors[] names program_id), or not a member'),
        409: E('order_already_credited (to this account; errors[] names order_id), or the Idempotency-Key reused with another body'),
      },
      handler: async (ctx, { body }) => {
        const r = await fileInquiry(deps, principalIn(ctx), body);
        ctx.status = r.created ? 201 : 200;
        ctx.body = r.inquiry;
      },
    }),
  ];
}
