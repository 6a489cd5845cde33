import { principalOf, requirePolicy } from '@cw/auth';
import { pageEnvelopeSchema, route, type RouteSpec } from '@cw/http';
import { idempotent } from '@cw/idempotency';
import {
  APPLICATION_SCHEMA,
  APPLY_INPUT,
  PROGRAM_SCHEMA,
  applyToProgram,
  JOINABLE_PROGRAMS_INPUT,
  joinablePrograms,
  LIST_PROGRAMS_INPUT,
  listPrograms,
} from '@cw/programs';
import { API_KEY_SECURITY } from '@cw/runtime';
import type { PublisherApiDeps } from '../deps';

const ERRORS = {
  400: { description: 'Invalid parameter' },
  401: { description: 'Not authenticated' },
  403: { description: 'Credential not allowed' },
  429: { description: 'Rate limited' },
  503: { description: 'Unavailable' },
};

export function programRoutes(deps: PublisherApiDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/programs',
      operationId: 'listPrograms',
      summary: "The caller's programs; with include_available=true also those open for application",
      tags: ['Programs'],
      security: API_KEY_SECURITY,
      query: LIST_PROGRAMS_INPUT,
      before: [requirePolicy(deps, listPrograms.policy)],
      responses: { 200: { description: 'Page envelope of programs', schema: pageEnvelopeSchema(PROGRAM_SCHEMA, { cursor: true }) }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await listPrograms(deps, principalOf(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/programs/joinable',
      operationId: 'listJoinablePrograms',
      summary: 'Active programs open for application that the caller is not assigned to',
      tags: ['Programs'],
      security: API_KEY_SECURITY,
      query: JOINABLE_PROGRAMS_INPUT,
      before: [requirePolicy(deps, joinablePrograms.policy)],
      responses: { 200: { description: 'Page envelope of programs', schema: pageEnvelopeSchema(PROGRAM_SCHEMA, { cursor: true }) }, ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await joinablePrograms(deps, principalOf(ctx), query);
      },
    }),
    route({
      method: 'POST',
      path: '/programs/apply',
      operationId: 'applyToProgram',
      summary: 'Apply to a program: 201 when approved at once, 200 when pending review or already decided',
      description: 'Optional Idempotency-Key (max 255). Demo accounts and read-only keys never apply.',
      tags: ['Programs'],
      security: API_KEY_SECURITY,
      body: APPLY_INPUT,
      before: [
        requirePolicy(deps, applyToProgram.policy),
        idempotent({ data: deps.data.idempotency, account: (ctx) => principalOf(ctx).publisher._id, route: 'POST /programs/apply' }),
      ],
      responses: {
        200: { description: 'Pending review, or the existing assignment', schema: APPLICATION_SCHEMA },
        201: { description: 'Approved', schema: APPLICATION_SCHEMA },
        ...ERRORS,
        404: { description: 'Unknown or inactive program' },
        409: { description: 'Idempotency-Key reused with another body, or in use' },
      },
      handler: async (ctx, { body }) => {
        const outcome = await applyToProgram(deps, principalOf(ctx), body);
        ctx.status = outcome.approvedNow ? 201 : 200;
        ctx.body = outcome.view;
      },
    }),
  ];
}
