/**
 * Products, Programs and Links for the account's people: the operations the publisher API serves
 * at `/products/`, `/programs/` and `/links/`, declared once in their libs (memberRoutes: roles are
 * the use cases' policies; writes take an optional Idempotency-Key under the API's own scope, so a
 * key replays across both surfaces), and each link's clicks and sales from the stats read model
 * (`linkTotals`, the portal's own).
 */
import { LOOKUP_PRODUCTS, SEARCH_PRODUCTS } from '@cw/catalog';
import { route, type RouteSpec } from '@cw/http';
import { LINK_TOTALS_INPUT, linkTotals } from '@cw/reports';
import { CREATE_LINK, CREATE_LINK_BATCH, LIST_LINKS } from '@cw/links';
import { APPLY_TO_PROGRAM, JOINABLE_PROGRAMS, LIST_PROGRAMS } from '@cw/programs';
import { memberOf, principalIn, spendPortalBudget, type PortalDeps } from '../portal-context';
import { E } from './schemas';
import { memberRoutes } from '../surface';

const ACCOUNT = { account: { type: 'string', description: 'An account the person belongs to (pub_…).' } };
const ERRORS = {
  401: E('Not signed in'),
  403: E('role_not_allowed, feed_access_inactive, credential_not_allowed (demo accounts) or csrf_failed'),
  404: E('Not a member of this account'),
  429: E('Rate limited'),
  503: E('Unavailable (catalog, or tracked links being refreshed)'),
};

export function catalogRoutes(deps: PortalDeps): RouteSpec[] {
  const member = [spendPortalBudget(deps), memberOf(deps)];
  return [
    ...memberRoutes(deps, [SEARCH_PRODUCTS, LOOKUP_PRODUCTS, LIST_PROGRAMS, JOINABLE_PROGRAMS, APPLY_TO_PROGRAM, LIST_LINKS]),
    route({
      method: 'GET',
      path: '/accounts/:account/links/totals',
      operationId: 'accountLinkTotals',
      summary: 'Clicks, conversions and commission (pending and approved, per currency) of up to 100 links, from the stats read model',
      description: "Without dates: every day the account has. Days are the time zone's (default: the account's).",
      tags: ['Links'],
      pathParams: ACCOUNT,
      query: LINK_TOTALS_INPUT,
      before: member,
      responses: {
        200: E('Per link: link_id, clicks, conversions (pending, approved, declined), commission by currency'),
        400: E('Invalid parameter'),
        ...ERRORS,
      },
      handler: async (ctx, { query }) => {
        ctx.body = await linkTotals(deps, principalIn(ctx), query);
      },
    }),
    ...memberRoutes(deps, [CREATE_LINK, CREATE_LINK_BATCH]),
  ];
}
