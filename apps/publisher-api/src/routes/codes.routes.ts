import { principalOf, requirePolicy } from '@cw/auth';
import { CODE_PAGE_SCHEMA, CODE_SCHEMA, LIST_CODES_INPUT, listCodes, REQUEST_CODE_INPUT, requestCode } from '@cw/codes';
import { route, type RouteSpec } from '@cw/http';
import { idempotent } from '@cw/idempotency';
import { API_KEY_SECURITY } from '@cw/runtime';
import { ERRORS } from './links.routes';
import type { PublisherApiDeps } from '../deps';

/** Personal coupon codes: the caller's, and asking for one at an approved program. */
export function codeRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/codes',
      operationId: 'listCodes',
      summary: 'Your personal coupon codes, newest first',
      tags: ['Codes'],
      security: API_KEY_SECURITY,
      query: LIST_CODES_INPUT,
      before: [requirePolicy(deps, listCodes.policy)],
      responses: { 200: { description: 'Page envelope of codes', schema: CODE_PAGE_SCHEMA }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await listCodes(deps, principalOf(ctx), query);
      },
    }),
    route({
      method: 'POST',
      path: '/codes',
      operationId: 'requestCode',
      summary: 'Ask for a personal coupon code at a program: 201 active or pending_review, 200 when you hold that code there already',
      description:
        "Optional Idempotency-Key (max 255). Send the `code` you want (letters and digits, any case) or none to get one made under the program's rules (prefix, length). A code is unique at its merchant whatever its case: a taken code answers 409 `code_taken`, naming nobody. Some programs approve codes at once, others after the network's review.",
      tags: ['Codes'],
      security: API_KEY_SECURITY,
      body: REQUEST_CODE_INPUT,
      before: [
        requirePolicy(deps, requestCode.policy),
        idempotent({ data: deps.data.idempotency, account: (ctx) => principalOf(ctx).publisher._id, route: 'POST /codes' }),
      ],
      responses: {
        200: { description: 'The code you hold already', schema: CODE_SCHEMA },
        201: { description: 'The new code', schema: CODE_SCHEMA },
        ...ERRORS,
        404: { description: 'No such active program' },
        409: {
          description:
            'code_taken (someone holds that code at this merchant), conflict (you hold the most codes a program allows), or an Idempotency-Key reused',
        },
      },
      handler: async (ctx, { body }) => {
        const r = await requestCode(deps, principalOf(ctx), body);
        ctx.status = r.created ? 201 : 200;
        ctx.body = r.code;
      },
    }),
  ];
}
