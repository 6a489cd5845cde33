/**
 * The personal coupon code operations, declared once for every surface (the API key's `/codes`,
 * the portal's `/accounts/:account/codes`): docs/decisions/0071-one-declaration-per-operation.md.
 */
import { operation } from '@cw/http';
import { CODE_PAGE_SCHEMA, CODE_SCHEMA, listCodes, requestCode } from './codes.service';

export const LIST_CODES = operation({
  method: 'GET',
  path: '/codes',
  operationId: 'listCodes',
  summary: 'Your personal coupon codes, newest first',
  tags: ['Codes'],
  useCase: listCodes,
  input: 'query',
  responses: { 200: { description: 'Page envelope of codes', schema: CODE_PAGE_SCHEMA } },
  wording: { portal: { summary: "The account's personal coupon codes, newest first (filter program_id, status), as GET /api/v1/publisher/codes/" } },
});

export const REQUEST_CODE = operation({
  method: 'POST',
  path: '/codes',
  operationId: 'requestCode',
  summary: 'Ask for a personal coupon code at a program: 201 active or pending_review, 200 when you hold that code there already',
  description:
    "Optional Idempotency-Key (max 255). Send the `code` you want (letters and digits, any case) or none to get one made under the program's rules (prefix, length). A code is unique at its merchant whatever its case: a taken code answers 409 `code_taken`, naming nobody. Some programs approve codes at once, others after the network's review.",
  tags: ['Codes'],
  useCase: requestCode,
  input: 'body',
  responses: {
    200: { description: 'The code you hold already', schema: CODE_SCHEMA },
    201: { description: 'The new code', schema: CODE_SCHEMA },
    400: { description: "errors[] names code (not letters and digits, another length, or without the program's prefix)" },
    403: { description: 'program_not_approved' },
    404: { description: 'No such active program' },
    409: { description: 'code_taken (someone holds that code at this merchant; errors[] names code), conflict (you hold the most codes a program allows)' },
  },
  result: (r) => ({ status: r.created ? 201 : 200, body: r.code }),
  wording: {
    portal: {
      summary:
        'Ask for a personal coupon code at a program (owners, developers): 201 active or pending_review, 200 when the account holds that code there already',
      description:
        "As POST /api/v1/publisher/codes/: a program the account is approved for and the code wanted (letters and digits, under the program's prefix and length) or none to get one made. A taken code is 409 code_taken, naming nobody. Optional Idempotency-Key (max 255), the same scope as the API's.",
    },
  },
});
