/**
 * The dashboard's links needing attention (docs/decisions/0064-link-health.md): the account's links
 * whose target cannot earn (out of stock, program paused or ended, not approved, unreachable) that
 * lost clicks, most first, as of the last health pass.
 */
import { route, type RouteSpec } from '@cw/http';
import { ATTENTION_INPUT, ATTENTION_SCHEMA, linksNeedingAttention } from '@cw/links';
import { memberOf, principalIn, spendPortalBudget, type PortalDeps } from '../portal-context';
import { E } from './schemas';

export function linkHealthRoutes(deps: PortalDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/accounts/:account/links/attention',
      operationId: 'getLinksNeedingAttention',
      summary: 'Links that lost clicks while their target could not earn (health not ok), most clicks lost first',
      description: 'Each with its health state, since when, and the human clicks counted since then (as of the last health pass, every 15 minutes).',
      tags: ['Links'],
      pathParams: { account: { type: 'string', description: 'An account the person belongs to (pub_…).' } },
      query: ATTENTION_INPUT,
      before: [spendPortalBudget(deps), memberOf(deps)],
      responses: {
        200: { description: 'The links and how many are not ok', schema: ATTENTION_SCHEMA },
        400: E('Invalid parameter'),
        401: E('Not signed in'),
        404: E('Not a member of this account'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { query }) => {
        ctx.body = await linksNeedingAttention(deps, principalIn(ctx), query);
      },
    }),
  ];
}
