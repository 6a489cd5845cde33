/** Settings, Team and Security: members, invitations, the account's security log; and claims of instant-monetization accounts. */
import { route, type RouteSpec } from '@cw/http';
import { securityLog, SECURITY_LOG_INPUT } from '@cw/audit';
import { CLAIM_INPUT, claimApplication, claimPreview } from '@cw/monetize';
import {
  ACCEPT_INVITATION_INPUT,
  acceptInvitation,
  changeRole,
  invitationInfo,
  INVITE_INPUT,
  inviteMember,
  listMembers,
  removeMember,
  resolveSession,
  revokeInvitation,
  ROLE_INPUT,
  sessionView,
  TOKEN_INPUT,
  type SessionContext,
} from '@cw/people';
import { memberOf, perAddress, principalIn, requestOrigin, sessionOf, setSessionCookie, spendPortalBudget, type PortalDeps } from '../portal-context';
import { E, INVITATION_INFO_SCHEMA, INVITATION_SCHEMA, JOINED_SESSION_SCHEMA, MEMBER_ROLE_SCHEMA, MEMBERS_SCHEMA, SECURITY_LOG_SCHEMA } from './schemas';

const ACCOUNT = { account: { type: 'string' } };
const ERRORS = { 401: E('Not signed in'), 403: E('role_not_allowed, reauthentication_required or csrf_failed'), 404: E('Not found'), 429: E('Rate limited') };
const CLAIM_QUERY = {
  type: 'object',
  additionalProperties: false,
  required: ['application', 'access_secret'],
  properties: { application: { type: 'string', maxLength: 100 }, access_secret: { type: 'string', maxLength: 200 } },
} as const;

export function teamRoutes(deps: PortalDeps): RouteSpec[] {
  const member = [spendPortalBudget(deps), memberOf(deps)];
  const limited = perAddress(deps);
  return [
    route({
      method: 'GET',
      path: '/accounts/:account/members',
      operationId: 'listMembers',
      summary: 'Members with their roles, and pending invitations',
      tags: ['Team'],
      pathParams: ACCOUNT,
      before: member,
      responses: { 200: { description: 'Members and invitations', schema: MEMBERS_SCHEMA }, ...ERRORS },
      handler: async (ctx) => {
        ctx.body = await listMembers(deps, principalIn(ctx));
      },
    }),
    route({
      method: 'POST',
      path: '/accounts/:account/invitations',
      operationId: 'inviteMember',
      summary: 'Invite someone by e-mail with a role (owners)',
      tags: ['Team'],
      pathParams: ACCOUNT,
      body: INVITE_INPUT,
      before: member,
      responses: {
        201: { description: 'The invitation (mailed)', schema: INVITATION_SCHEMA },
        400: E('Invalid parameter'),
        409: E('Already a member'),
        ...ERRORS,
      },
      handler: async (ctx, { body }) => {
        ctx.status = 201;
        ctx.body = await inviteMember(deps, principalIn(ctx), body);
      },
    }),
    route({
      method: 'DELETE',
      path: '/accounts/:account/invitations/:id',
      operationId: 'revokeInvitation',
      summary: 'Withdraw an invitation (owners)',
      tags: ['Team'],
      pathParams: { ...ACCOUNT, id: { type: 'string' } },
      before: member,
      responses: { 204: E('Withdrawn'), ...ERRORS },
      handler: async (ctx) => {
        await revokeInvitation(deps, principalIn(ctx), String(ctx.params.id));
        ctx.status = 204;
      },
    }),
    route({
      method: 'PATCH',
      path: '/accounts/:account/members/:user',
      operationId: 'changeRole',
      summary: 'Change a member’s role (owners); the last owner stays owner',
      tags: ['Team'],
      pathParams: { ...ACCOUNT, user: { type: 'string' } },
      body: ROLE_INPUT,
      before: member,
      responses: { 200: { description: 'The member', schema: MEMBER_ROLE_SCHEMA }, 400: E('Invalid parameter'), 409: E('last_owner'), ...ERRORS },
      handler: async (ctx, { body }) => {
        ctx.body = await changeRole(deps, principalIn(ctx), body, String(ctx.params.user));
      },
    }),
    route({
      method: 'DELETE',
      path: '/accounts/:account/members/:user',
      operationId: 'removeMember',
      summary: 'Remove a member (owners); the last owner stays',
      tags: ['Team'],
      pathParams: { ...ACCOUNT, user: { type: 'string' } },
      before: member,
      responses: { 204: E('Removed'), 409: E('last_owner'), ...ERRORS },
      handler: async (ctx) => {
        await removeMember(deps, principalIn(ctx), String(ctx.params.user));
        ctx.status = 204;
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/security-log',
      operationId: 'securityLog',
      summary: 'The account’s security log, newest first',
      tags: ['Security'],
      pathParams: ACCOUNT,
      query: SECURITY_LOG_INPUT,
      before: member,
      responses: { 200: { description: 'Events', schema: SECURITY_LOG_SCHEMA }, 400: E('Invalid parameter'), ...ERRORS },
      handler: async (ctx, { query }) => {
        ctx.body = await securityLog(deps, principalIn(ctx), query);
      },
    }),
    route({
      method: 'GET',
      path: '/invitations/preview',
      operationId: 'invitationInfo',
      summary: 'What an invitation link is for (its token from the mail)',
      tags: ['Team'],
      query: TOKEN_INPUT,
      before: [limited],
      responses: { 200: { description: 'The invitation', schema: INVITATION_INFO_SCHEMA }, 404: E('Used, withdrawn or expired'), 429: E('Rate limited') },
      handler: async (ctx, { query }) => {
        ctx.body = await invitationInfo(deps, query.token);
      },
    }),
    route({
      method: 'POST',
      path: '/invitations/accept',
      operationId: 'acceptInvitation',
      summary: 'Accept an invitation: signed in with the invited address, or signing up with it',
      tags: ['Team'],
      body: ACCEPT_INVITATION_INPUT,
      before: [limited],
      responses: {
        200: { description: 'The session, with the account joined', schema: JOINED_SESSION_SCHEMA },
        400: E('Invalid parameter'),
        404: E('Used, withdrawn or expired'),
        409: E('Another address'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { body }) => {
        const current = ctx.state.session as SessionContext | null;
        const r = await acceptInvitation(deps, current, body, requestOrigin(ctx, deps));
        if (r.sessionToken) setSessionCookie(ctx, deps, r.sessionToken);
        const s = r.sessionToken ? await resolveSession(deps, r.sessionToken) : current;
        ctx.body = { ...(await sessionView(deps, s!)), joined: { account_id: r.account_id, role: r.role } };
      },
    }),
    route({
      method: 'GET',
      path: '/claim',
      operationId: 'claimPreview',
      summary: 'An instant-monetization application, shown before it is claimed (its id and access secret)',
      tags: ['Claim'],
      query: CLAIM_QUERY,
      before: [limited],
      responses: { 200: E('The application'), 400: E('Invalid parameter'), 404: E('No application with this id and secret'), 429: E('Rate limited') },
      handler: async (ctx, { query }) => {
        ctx.body = await claimPreview(deps, query.application, query.access_secret);
      },
    }),
    route({
      method: 'POST',
      path: '/claim',
      operationId: 'claimApplication',
      summary: 'Claim an instant-monetization application: you become the account’s owner; it goes to review',
      tags: ['Claim'],
      body: CLAIM_INPUT,
      before: [limited, spendPortalBudget(deps)],
      responses: {
        200: E('Claimed, under review'),
        400: E('Invalid parameter'),
        401: E('Not signed in'),
        404: E('No application with this id and secret'),
        409: E('Decided, or claimed by someone else'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { body }) => {
        const s = sessionOf(ctx);
        const origin = requestOrigin(ctx, deps);
        ctx.body = await claimApplication(
          deps,
          {
            userId: s.user._id,
            email: s.user.email,
            address: origin.address,
            addressHash: origin.addressHash,
            userAgent: origin.userAgent,
            requestId: origin.requestId,
          },
          body,
        );
      },
    }),
  ];
}
