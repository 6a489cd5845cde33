/**
 * Personal coupon codes for an account's people (the Programs page): the account's codes, a
 * program's code rules, and "Request a code", through the codes lib's use cases (the publisher
 * API's `/codes/`, the same policies: owners and developers request, every member reads, demo
 * accounts never request). The POST takes an optional Idempotency-Key under the API's own scope
 * (`POST /codes`), so a key replays across both surfaces; asking again for a code the account
 * holds answers that code.
 */
import {
  CODE_PAGE_SCHEMA,
  CODE_RULES_INPUT,
  CODE_RULES_SCHEMA,
  CODE_SCHEMA,
  getCodeRules,
  LIST_CODES_INPUT,
  listCodes,
  REQUEST_CODE_INPUT,
  requestCode,
} from '@cw/codes';
import { route, type RouteSpec } from '@cw/http';
import { idempotentWrite, memberOf, principalIn, spendPortalBudget, type PortalDeps } from '../portal-context';
import { E } from './schemas';

const TAGS = ['Codes'];
const ACCOUNT = { account: { type: 'string', description: 'An account the person belongs to (pub_…).' } };
const ERRORS = {
  401: E('Not signed in'),
  403: E('role_not_allowed, credential_not_allowed (demo accounts) or csrf_failed'),
  404: E('Not a member of this account'),
  429: E('Rate limited'),
};

export function codesRoutes(deps: PortalDeps): RouteSpec[] {
  const member = [spendPortalBudget(deps), memberOf(deps)];
  const write = idempotentWrite(deps, requestCode.policy, 'POST /codes');
  return [
    route({
      method: 'GET',
      path: '/accounts/:account/codes',
      operationId: 'listAccountCodes',
      summary: "The account's personal coupon codes, newest first (filter program_id, status), as GET /api/v1/publisher/codes/",
      tags: TAGS,
      pathParams: ACCOUNT,
      query: LIST_CODES_INPUT,
      before: member,
      responses: { 200: { description: 'Page envelope of codes', schema: CODE_PAGE_SCHEMA }, 400: E('Invalid parameter'), ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await listCodes(deps, principalIn(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/code-rules',
      operationId: 'getAccountCodeRules',
      summary: "A program's coupon code rules: prefix, length, and whether a code is active at once or reviewed",
      tags: TAGS,
      pathParams: ACCOUNT,
      query: CODE_RULES_INPUT,
      before: member,
      responses: {
        200: { description: 'The rules', schema: CODE_RULES_SCHEMA },
        400: E('Invalid parameter'),
        ...ERRORS,
        404: E('No such active program, or not a member'),
      },
      handler: async (ctx, { query }) => {
        ctx.body = await getCodeRules(deps, principalIn(ctx), query);
      },
    }),
    route({
      method: 'POST',
      path: '/accounts/:account/codes',
      operationId: 'requestAccountCode',
      summary:
        'Ask for a personal coupon code at a program (owners, developers): 201 active or pending_review, 200 when the account holds that code there already',
      description:
        "As POST /api/v1/publisher/codes/: a program the account is approved for and the code wanted (letters and digits, under the program's prefix and length) or none to get one made. A taken code is 409 code_taken, naming nobody. Optional Idempotency-Key (max 255), the same scope as the API's.",
      tags: TAGS,
      pathParams: ACCOUNT,
      body: REQUEST_CODE_INPUT,
      before: write,
      responses: {
        200: { description: 'The code the account holds already', schema: CODE_SCHEMA },
        201: { description: 'The new code', schema: CODE_SCHEMA },
        400: E("invalid_parameter: errors[] names code (not letters and digits, another length, or without the program's prefix)"),
        ...ERRORS,
        403: E('program_not_approved, role_not_allowed, credential_not_allowed (demo accounts) or csrf_failed'),
        404: E('No such active program, or not a member'),
        409: E('code_taken (errors[] names code), conflict (the most codes a program allows), or the Idempotency-Key reused with another body'),
      },
      handler: async (ctx, { body }) => {
        const r = await requestCode(deps, principalIn(ctx), body);
        ctx.status = r.created ? 201 : 200;
        ctx.body = r.code;
      },
    }),
  ];
}
