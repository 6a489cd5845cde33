/**
 * Products, Programs, Links (and their clicks and sales) for the account's people: the same use
 * cases, with the same input schemas, as the publisher API's `/products/`, `/programs/` and
 * `/links/`, and each link's clicks and sales from the stats read model (`linkTotals`) (roles are the use cases' policies: applying and creating links need an owner or a
 * developer). Writes take an optional Idempotency-Key under the API's own scope, so a key replays
 * across both surfaces.
 */
import type { Middleware } from 'koa';
import type { Policy } from '@cw/auth';
import { LOOKUP_INPUT, lookupProductsPage, PRODUCT_PAGE_SCHEMA, SEARCH_INPUT, searchProductsPage } from '@cw/catalog';
import { pageEnvelopeSchema, route, type RouteSpec } from '@cw/http';
import { LINK_TOTALS_INPUT, linkTotals } from '@cw/reports';
import { CREATE_LINK, CREATE_LINK_BATCH, LIST_LINKS } from '@cw/links';
import {
  APPLICATION_SCHEMA,
  APPLY_INPUT,
  applyToProgram,
  JOINABLE_PROGRAMS_INPUT,
  joinablePrograms,
  LIST_PROGRAMS_INPUT,
  listPrograms,
  PROGRAM_SCHEMA,
} from '@cw/programs';
import { idempotentWrite, memberOf, principalIn, spendPortalBudget, type PortalDeps } from '../portal-context';
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
const WRITE_ERRORS = { ...ERRORS, 400: E('Invalid parameter'), 409: E('Idempotency-Key reused with another body, or in use') };

export function catalogRoutes(deps: PortalDeps): RouteSpec[] {
  const member = [spendPortalBudget(deps), memberOf(deps)];
  /**
   * A write: the person's role checked before the Idempotency-Key is claimed (a refusal is not
   * stored under the key), then the key (the API's route name: one scope for both surfaces).
   */
  const write = (name: string, policy: Policy): Middleware[] => idempotentWrite(deps, policy, name);
  return [
    route({
      method: 'GET',
      path: '/accounts/:account/products',
      operationId: 'searchAccountProducts',
      summary: 'Product search with the API’s filters, each product with the account’s tracked link (as GET /api/v1/publisher/products/)',
      tags: ['Products'],
      pathParams: ACCOUNT,
      query: SEARCH_INPUT,
      before: member,
      responses: { 200: { description: 'A page of products', schema: PRODUCT_PAGE_SCHEMA }, 400: E('Invalid parameter, or country required'), ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.type = 'application/json';
        ctx.body = await searchProductsPage(deps, principalIn(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/products/lookup',
      operationId: 'lookupAccountProducts',
      summary: 'Products by id or GTIN (as GET /api/v1/publisher/products/lookup/)',
      tags: ['Products'],
      pathParams: ACCOUNT,
      query: LOOKUP_INPUT,
      before: member,
      responses: { 200: { description: 'A page of products', schema: PRODUCT_PAGE_SCHEMA }, 400: E('Invalid parameter or invalid GTIN'), ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.type = 'application/json';
        ctx.body = await lookupProductsPage(deps, principalIn(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/programs',
      operationId: 'listAccountPrograms',
      summary: 'The account’s programs; with include_available=true also those open for application (as GET /api/v1/publisher/programs/)',
      tags: ['Programs'],
      pathParams: ACCOUNT,
      query: LIST_PROGRAMS_INPUT,
      before: member,
      responses: {
        200: { description: 'Page envelope of programs', schema: pageEnvelopeSchema(PROGRAM_SCHEMA, { cursor: true }) },
        400: E('Invalid parameter'),
        ...ERRORS,
      },
      handler: async (ctx, { query }) => {
        ctx.body = await listPrograms(deps, principalIn(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/programs/joinable',
      operationId: 'listAccountJoinablePrograms',
      summary: 'Active programs open for application that the account is not assigned to (as GET /api/v1/publisher/programs/joinable/)',
      tags: ['Programs'],
      pathParams: ACCOUNT,
      query: JOINABLE_PROGRAMS_INPUT,
      before: member,
      responses: {
        200: { description: 'Page envelope of programs', schema: pageEnvelopeSchema(PROGRAM_SCHEMA, { cursor: true }) },
        400: E('Invalid parameter'),
        ...ERRORS,
      },
      handler: async (ctx, { query }) => {
        ctx.body = await joinablePrograms(deps, principalIn(ctx), query);
      },
    }),
    route({
      method: 'POST',
      path: '/accounts/:account/programs/apply',
      operationId: 'applyAccountToProgram',
      summary: 'Apply to a program (owners, developers): 201 when approved at once, 200 when pending review or already decided',
      description: 'Optional Idempotency-Key (max 255), the same scope as the API’s POST /programs/apply/. Demo accounts never apply.',
      tags: ['Programs'],
      pathParams: ACCOUNT,
      body: APPLY_INPUT,
      before: write('POST /programs/apply', applyToProgram.policy),
      responses: {
        200: { description: 'Pending review, or the existing assignment', schema: APPLICATION_SCHEMA },
        201: { description: 'Approved', schema: APPLICATION_SCHEMA },
        ...WRITE_ERRORS,
        404: E('Not a member of this account, or an unknown or inactive program'),
      },
      handler: async (ctx, { body }) => {
        const outcome = await applyToProgram(deps, principalIn(ctx), body);
        ctx.status = outcome.approvedNow ? 201 : 200;
        ctx.body = outcome.view;
      },
    }),
    ...memberRoutes(deps, [LIST_LINKS]),
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
