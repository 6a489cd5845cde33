/**
 * Personal coupon codes for an account's people (the Programs page): the account's codes, a
 * program's code rules, and "Request a code", through the operations the codes lib declares once (the publisher
 * API's `/codes/`, the same policies: owners and developers request, every member reads, demo
 * accounts never request). The POST takes an optional Idempotency-Key under the API's own scope
 * (`POST /codes`), so a key replays across both surfaces; asking again for a code the account
 * holds answers that code.
 */
import { CODE_RULES_INPUT, CODE_RULES_SCHEMA, getCodeRules, LIST_CODES, REQUEST_CODE } from '@cw/codes';
import { route, type RouteSpec } from '@cw/http';
import { memberOf, principalIn, spendPortalBudget, type PortalDeps } from '../portal-context';
import { E } from './schemas';
import { memberRoutes } from '../surface';

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
  return [
    ...memberRoutes(deps, [LIST_CODES]),
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
    ...memberRoutes(deps, [REQUEST_CODE]),
  ];
}
