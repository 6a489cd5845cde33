/**
 * The operator area (`/portal/api/operator/...`): a signed-in person who carries an operator role
 * (`operator:grant`) acts as that operator through the same operator use cases the admin CLI calls
 * (support reads, admin acts; every act audited with the person's e-mail, the request id and the
 * hashed address). Anyone else: 403 `forbidden`; support on an admin act: 403 `role_not_allowed`.
 */
import type { Context, Middleware } from 'koa';
import { operatorListCredentials, operatorListPublishers, operatorReviewPublisher, operatorRevokeCredential } from '@cw/account';
import { auditLog } from '@cw/audit';
import type { OperatorPrincipal } from '@cw/auth';
import { route, type RouteSpec } from '@cw/http';
import { APPLICATION_STATUSES, operatorListApplications, operatorReviewApplication } from '@cw/monetize';
import { sessionOperator } from '@cw/people';
import { operatorListDeliveries, operatorRedeliver, POSTBACK_DELIVERY_SCHEMA } from '@cw/postbacks';
import { requestOrigin, sessionOf, spendPortalBudget, type PortalDeps } from '../portal-context';
import {
  AUDIT_LOG_SCHEMA,
  E,
  OPERATOR_CREDENTIALS_SCHEMA,
  OPERATOR_PUBLISHERS_SCHEMA,
  REDELIVERED_SCHEMA,
  REVIEWED_PUBLISHER_SCHEMA,
  REVOKED_CREDENTIAL_SCHEMA,
} from './schemas';

const OPERATOR_DELIVERIES_SCHEMA = { type: 'object', required: ['data'], properties: { data: { type: 'array', items: POSTBACK_DELIVERY_SCHEMA } } };

const TAGS = ['Operator area'];
const ERRORS = {
  401: E('Not signed in'),
  403: E('forbidden: not an operator; role_not_allowed: a support operator on an admin act; csrf_failed'),
  429: E('Rate limited'),
};
const NOT_FOUND = { 404: E('No such publisher, credential, application or delivery') };
const CONFLICT = { 409: E('invalid_transition: already decided (not pending review or under review)') };
const LIMIT = { type: 'integer', minimum: 1, maximum: 500, default: 100 } as const;
const ID = { type: 'string', minLength: 1, maxLength: 64 } as const;
const PUBLISHER = { publisher: ID };

/** The operator the session's person is (403 for anyone else), after the person's portal budget. */
export function operatorOf(deps: PortalDeps): Middleware {
  return async (ctx, next) => {
    ctx.state.operator = sessionOperator(sessionOf(ctx), requestOrigin(ctx, deps));
    await next();
  };
}
export const operatorIn = (ctx: Context): OperatorPrincipal => ctx.state.operator as OperatorPrincipal;
const param = (ctx: Context, name: string): string => String(ctx.params[name]);

export function operatorRoutes(deps: PortalDeps): RouteSpec[] {
  const operator = [spendPortalBudget(deps), operatorOf(deps)];
  return [
    route({
      method: 'GET',
      path: '/operator/publishers',
      operationId: 'operatorListPublishers',
      summary: 'Publisher accounts, newest first (default: those pending review)',
      tags: TAGS,
      query: {
        type: 'object',
        additionalProperties: false,
        properties: { status: { type: 'string', enum: ['pending', 'active', 'inactive', 'provisional'], default: 'pending' }, limit: LIMIT },
      } as const,
      before: operator,
      responses: { 200: { description: 'Publishers', schema: OPERATOR_PUBLISHERS_SCHEMA }, 400: E('Invalid parameter'), ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = { data: await operatorListPublishers(deps, operatorIn(ctx), { status: query.status, limit: query.limit }) };
      },
    }),
    ...(['approve', 'reject'] as const).map((decision) =>
      route({
        method: 'POST',
        path: `/operator/publishers/:publisher/${decision}`,
        operationId: decision === 'approve' ? 'operatorApprovePublisher' : 'operatorRejectPublisher',
        summary:
          decision === 'approve'
            ? 'Approve an account pending review (admin): it becomes active'
            : 'Reject an account pending review (admin): it becomes inactive',
        tags: TAGS,
        pathParams: PUBLISHER,
        before: operator,
        responses: { 200: { description: 'The account and its status', schema: REVIEWED_PUBLISHER_SCHEMA }, ...ERRORS, ...NOT_FOUND, ...CONFLICT },
        handler: async (ctx) => {
          ctx.body = await operatorReviewPublisher(deps, operatorIn(ctx), { publisher: param(ctx, 'publisher'), decision });
        },
      }),
    ),
    route({
      method: 'GET',
      path: '/operator/publishers/:publisher/keys',
      operationId: 'operatorListKeys',
      summary: "A publisher's credentials, newest first (prefixes only, never a secret)",
      tags: TAGS,
      pathParams: PUBLISHER,
      before: operator,
      responses: { 200: { description: 'The account’s credentials', schema: OPERATOR_CREDENTIALS_SCHEMA }, ...ERRORS, ...NOT_FOUND },
      handler: async (ctx) => {
        ctx.body = { data: await operatorListCredentials(deps, operatorIn(ctx), { publisher: param(ctx, 'publisher') }) };
      },
    }),
    route({
      method: 'POST',
      path: '/operator/keys/:id/revoke',
      operationId: 'operatorRevokeKey',
      summary: 'Revoke a credential (admin): it answers 401 at its next request',
      tags: TAGS,
      pathParams: { id: ID },
      before: operator,
      responses: { 200: { description: 'Revoked', schema: REVOKED_CREDENTIAL_SCHEMA }, 400: E('Not a credential id'), ...ERRORS, ...NOT_FOUND },
      handler: async (ctx) => {
        ctx.body = await operatorRevokeCredential(deps, operatorIn(ctx), { id: param(ctx, 'id') });
      },
    }),
    route({
      method: 'GET',
      path: '/operator/claims',
      operationId: 'operatorListClaims',
      summary: 'Instant-monetization applications, newest first (default: claims under review)',
      tags: TAGS,
      query: {
        type: 'object',
        additionalProperties: false,
        properties: { status: { type: 'string', enum: [...APPLICATION_STATUSES], default: 'under_review' }, limit: LIMIT },
      } as const,
      before: operator,
      responses: { 200: E('{data: [application]}'), 400: E('Invalid parameter'), ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = { data: await operatorListApplications(deps, operatorIn(ctx), { status: query.status, limit: query.limit }) };
      },
    }),
    route({
      method: 'POST',
      path: '/operator/claims/:id/approve',
      operationId: 'operatorApproveClaim',
      summary: 'Approve a claimed application (admin): it becomes a publisher account keeping its links, clicks and conversions',
      description: 'An application claimed without a person (API only) gets a live API key, in this answer only (never again).',
      tags: TAGS,
      pathParams: { id: ID },
      before: operator,
      responses: { 200: E('{application_id, status, account_id, api_key?}'), ...ERRORS, ...NOT_FOUND, ...CONFLICT },
      handler: async (ctx) => {
        ctx.body = await operatorReviewApplication(deps, operatorIn(ctx), { id: param(ctx, 'id'), decision: 'approve' });
      },
    }),
    route({
      method: 'POST',
      path: '/operator/claims/:id/reject',
      operationId: 'operatorRejectClaim',
      summary: 'Reject an application (admin): its provisional publisher is deactivated',
      tags: TAGS,
      pathParams: { id: ID },
      body: { type: 'object', additionalProperties: false, properties: { note: { type: 'string', maxLength: 500 } } } as const,
      before: operator,
      responses: { 200: E('{application_id, status, account_id}'), 400: E('Invalid parameter'), ...ERRORS, ...NOT_FOUND, ...CONFLICT },
      handler: async (ctx, { body }) => {
        ctx.body = await operatorReviewApplication(deps, operatorIn(ctx), { id: param(ctx, 'id'), decision: 'reject', note: body.note || undefined });
      },
    }),
    route({
      method: 'GET',
      path: '/operator/publishers/:publisher/deliveries',
      operationId: 'operatorListDeliveries',
      summary: "A publisher's postback deliveries, newest first (default: the dead letters)",
      tags: TAGS,
      pathParams: PUBLISHER,
      query: {
        type: 'object',
        additionalProperties: false,
        properties: { status: { type: 'string', enum: ['pending', 'succeeded', 'failed', 'dead'], default: 'dead' }, limit: LIMIT },
      } as const,
      before: operator,
      responses: { 200: { description: 'Deliveries', schema: OPERATOR_DELIVERIES_SCHEMA }, 400: E('Invalid parameter'), ...ERRORS, ...NOT_FOUND },
      handler: async (ctx, { query }) => {
        const publisher = param(ctx, 'publisher');
        // The publisher named must exist (a mistyped id is a 404, not an empty list).
        await operatorListCredentials(deps, operatorIn(ctx), { publisher });
        ctx.body = { data: await operatorListDeliveries(deps, operatorIn(ctx), { publisher, status: query.status, limit: query.limit }) };
      },
    }),
    route({
      method: 'POST',
      path: '/operator/publishers/:publisher/deliveries/:id/redeliver',
      operationId: 'operatorRedeliver',
      summary: 'Send a dead or failed delivery again under its delivery id (admin)',
      tags: TAGS,
      pathParams: { ...PUBLISHER, id: ID },
      before: operator,
      responses: { 200: { description: 'Deliveries queued again', schema: REDELIVERED_SCHEMA }, ...ERRORS, ...NOT_FOUND, ...CONFLICT },
      handler: async (ctx) => {
        ctx.body = await operatorRedeliver(deps, operatorIn(ctx), { publisher: param(ctx, 'publisher'), id: param(ctx, 'id') });
      },
    }),
    route({
      method: 'GET',
      path: '/operator/audit',
      operationId: 'operatorAuditLog',
      summary: "The audit log, newest first: every operator act and the accounts' security events (append-only)",
      description: 'Filters combine with and; follow `next_cursor` with the same filters for the next page.',
      tags: TAGS,
      query: {
        type: 'object',
        additionalProperties: false,
        properties: {
          account: { type: 'string', maxLength: 64, description: 'only this account id' },
          actor: { type: 'string', maxLength: 254, description: "an e-mail (a person or an operator) or a credential's display prefix" },
          action: { type: 'string', maxLength: 64, description: 'an audited act, e.g. credential_revoked' },
          since: { type: 'string', format: 'date-time', description: 'only from this time on' },
          cursor: { type: 'string', maxLength: 64, description: 'next_cursor of the previous page' },
          limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
        },
      } as const,
      before: operator,
      responses: { 200: { description: 'Audit entries, newest first', schema: AUDIT_LOG_SCHEMA }, 400: E('Invalid parameter'), ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await auditLog(deps, operatorIn(ctx), {
          account: query.account || undefined,
          actor: query.actor || undefined,
          action: query.action || undefined,
          since: query.since ? new Date(query.since) : undefined,
          cursor: query.cursor || undefined,
          limit: query.limit,
        });
      },
    }),
  ];
}
