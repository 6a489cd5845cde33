/**
 * The missing-sale inquiry operations, declared once for every surface (the API key's
 * `/inquiries`, the portal's `/accounts/:account/inquiries`): docs/decisions/0071-one-declaration-per-operation.md.
 */
import { operation, pageEnvelopeSchema } from '@cw/http';
import { fileInquiry, getInquiry, listInquiries } from './inquiries.service';
import { INQUIRY_SCHEMA } from './inquiry.schemas';

const KEY_RULES = 'Live keys; test, sandbox, read-only and demo keys get 403. OAuth scope links:write.';
const ID = { id: { type: 'string', description: '`inq_…`' } };

export const FILE_INQUIRY = operation({
  method: 'POST',
  path: '/inquiries',
  operationId: 'fileInquiry',
  summary: 'File a missing-sale inquiry: an order you earned that was not credited, with the platform’s click evidence',
  description: `Optional Idempotency-Key (max 255). The merchant sees it on the tracking API and accepts (a conversion with channel \`inquiry\` is credited) or rejects it with a reason; unanswered by \`respond_by\`, it is accepted when \`evidence.clicks\` holds a verified click, else rejected (\`outside_window\`). \`occurred_at\` within the last 90 days. The same order filed again answers the first inquiry (200). ${KEY_RULES} In the portal, owners and developers.`,
  tags: ['Inquiries'],
  useCase: fileInquiry,
  input: 'body',
  responses: {
    200: { description: 'This order was filed before: its inquiry', schema: INQUIRY_SCHEMA },
    201: { description: 'Filed, open', schema: INQUIRY_SCHEMA },
    400: { description: 'A field named in errors[] (occurred_at in the future or older than 90 days, amount not positive or too many decimals)' },
    403: { description: 'program_not_approved: errors[] names program_id' },
    404: { description: 'No such program (errors[] names program_id)' },
    409: { description: 'order_already_credited (to this account; errors[] names order_id)' },
  },
  result: (r) => ({ status: r.created ? 201 : 200, body: r.inquiry }),
  wording: {
    portal: {
      summary: 'File a missing-sale inquiry (owners, developers): 201 filed with the platform’s click evidence, 200 when the order was filed before',
      description:
        'As POST /api/v1/publisher/inquiries/: a program the account is approved for, the order id, when it was placed (the last 90 days), its amount and currency, optionally the click id and a note for the merchant. Optional Idempotency-Key (max 255), the same scope as the API’s.',
    },
  },
});

export const LIST_INQUIRIES = operation({
  method: 'GET',
  path: '/inquiries',
  operationId: 'listInquiries',
  summary: 'Your missing-sale inquiries, newest first',
  description: `Filter by \`status\` (open, accepted, rejected). ${KEY_RULES}`,
  tags: ['Inquiries'],
  useCase: listInquiries,
  input: 'query',
  responses: { 200: { description: 'Page envelope of inquiries', schema: pageEnvelopeSchema(INQUIRY_SCHEMA, { cursor: true }) } },
  wording: { portal: { summary: "The account's missing-sale inquiries, newest first (filter status), as GET /api/v1/publisher/inquiries/", description: '' } },
});

export const GET_INQUIRY = operation({
  method: 'GET',
  path: '/inquiries/:id',
  operationId: 'getInquiry',
  summary: 'One of your missing-sale inquiries',
  description: `Its status, the reason of a rejection, the conversion an acceptance created, a conflict (the order credited already). ${KEY_RULES} Another account's inquiry is 404.`,
  tags: ['Inquiries'],
  useCase: getInquiry,
  pathParams: ID,
  args: (r): [{ id: string }] => [{ id: String(r.params.id) }],
  responses: { 200: { description: 'The inquiry', schema: INQUIRY_SCHEMA }, 404: { description: 'No such inquiry' } },
  wording: { portal: { summary: "One missing-sale inquiry of the account (another account's, or an unknown one: 404)", description: '' } },
});
