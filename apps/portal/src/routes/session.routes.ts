/** Signing up, in and out, confirming the address, passwords, and a person's own sessions. */
import { route, type RouteSpec } from '@cw/http';
import {
  CHANGE_PASSWORD_INPUT,
  changePassword,
  endAllSessions,
  endSession,
  FORGOT_PASSWORD_INPUT,
  forgotPassword,
  listSessions,
  REAUTH_INPUT,
  reauthenticate,
  RESET_PASSWORD_INPUT,
  resetPassword,
  resolveSession,
  sessionView,
  SIGNIN_INPUT,
  signIn,
  signOut,
  SIGNUP_INPUT,
  signUp,
  TOKEN_INPUT,
  unlockSignin,
  verifyEmail,
} from '@cw/people';
import { perAddress, requestOrigin, sessionOf, setSessionCookie, spendPortalBudget, type PortalDeps } from '../portal-context';
import { setDeviceCookie, signinOrigin } from '../signin-device';
import {
  E,
  PASSWORD_CHANGED_SCHEMA,
  REAUTH_SCHEMA,
  RESET_SCHEMA,
  RESET_SENT_SCHEMA,
  SESSION_SCHEMA,
  SESSIONS_SCHEMA,
  SIGNUP_SCHEMA,
  UNLOCKED_SCHEMA,
  VERIFIED_SCHEMA,
} from './schemas';

const TAGS = ['Session'];

export function sessionRoutes(deps: PortalDeps): RouteSpec[] {
  const limited = perAddress(deps);
  const signedIn = spendPortalBudget(deps);
  /** A fresh session's view, read back as the next request will read it. */
  const opened = async (token: string) => sessionView(deps, (await resolveSession(deps, token))!);
  return [
    route({
      method: 'POST',
      path: '/signup',
      operationId: 'signUp',
      summary: 'Sign up: a person and a publisher account pending review; the verification mail goes out',
      tags: TAGS,
      body: SIGNUP_INPUT,
      before: [limited],
      responses: {
        202: { description: 'Verification sent (the same answer whether or not the address is taken)', schema: SIGNUP_SCHEMA },
        400: E('Invalid parameter'),
        403: E('csrf_failed'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { body }) => {
        ctx.status = 202;
        ctx.body = await signUp(deps, body);
      },
    }),
    route({
      method: 'POST',
      path: '/verify-email',
      operationId: 'verifyEmail',
      summary: 'Confirm the address with the mailed link',
      tags: TAGS,
      body: TOKEN_INPUT,
      before: [limited],
      responses: {
        200: { description: 'Confirmed', schema: VERIFIED_SCHEMA },
        400: E('Invalid parameter'),
        404: E('The link was used or expired'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { body }) => {
        ctx.body = await verifyEmail(deps, body.token);
      },
    }),
    route({
      method: 'POST',
      path: '/signin',
      operationId: 'signIn',
      summary: 'Sign in: sets the session cookie, and the device cookie that lets this device past the sign-in limits next time',
      tags: TAGS,
      body: SIGNIN_INPUT,
      before: [limited],
      responses: {
        200: { description: 'The session', schema: SESSION_SCHEMA },
        400: E('Invalid parameter'),
        401: E('invalid_credentials (one answer for any mistake)'),
        403: E('email_not_verified, or csrf_failed'),
        429: E('Rate limited: per address, per e-mail per minute, failures per e-mail and per address (not from a trusted device); Retry-After'),
      },
      handler: async (ctx, { body }) => {
        const { session, device } = await signIn(deps, body, signinOrigin(ctx, deps), deps.clock?.());
        setSessionCookie(ctx, deps, session);
        setDeviceCookie(ctx, deps, device);
        ctx.body = await opened(session);
      },
    }),
    route({
      method: 'POST',
      path: '/signin/unlock',
      operationId: 'unlockSignIn',
      summary: "Use a mailed unlock link: this device may sign in to that address while the address's sign-in is paused",
      tags: TAGS,
      body: TOKEN_INPUT,
      before: [limited],
      responses: {
        200: { description: 'Unlocked: the device cookie is set', schema: UNLOCKED_SCHEMA },
        400: E('Invalid parameter'),
        404: E('The link was used or expired'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { body }) => {
        const { email, device } = await unlockSignin(deps, body.token, deps.clock?.());
        setDeviceCookie(ctx, deps, device);
        ctx.body = { unlocked: true, email };
      },
    }),
    route({
      method: 'POST',
      path: '/signout',
      operationId: 'signOut',
      summary: 'Sign out: ends this session',
      tags: TAGS,
      responses: { 204: E('Signed out'), 403: E('csrf_failed') },
      handler: async (ctx) => {
        const s = ctx.state.session as Parameters<typeof signOut>[1] | null;
        if (s) await signOut(deps, s, requestOrigin(ctx, deps));
        setSessionCookie(ctx, deps, null);
        ctx.status = 204;
      },
    }),
    route({
      method: 'GET',
      path: '/session',
      operationId: 'getSession',
      summary: 'Who is signed in, their accounts and roles, and the CSRF token',
      tags: TAGS,
      before: [signedIn],
      responses: { 200: { description: 'The session', schema: SESSION_SCHEMA }, 401: E('Not signed in'), 429: E('Rate limited') },
      handler: async (ctx) => {
        ctx.body = await sessionView(deps, sessionOf(ctx));
      },
    }),
    route({
      method: 'POST',
      path: '/reauth',
      operationId: 'reauthenticate',
      summary: 'Give the password again: sensitive changes are allowed for 10 minutes',
      tags: TAGS,
      body: REAUTH_INPUT,
      before: [limited, signedIn],
      responses: {
        200: { description: 'Re-authenticated', schema: REAUTH_SCHEMA },
        401: E('invalid_credentials'),
        403: E('csrf_failed'),
        429: E("Rate limited (the sign-in limits: the e-mail's budget is shared)"),
      },
      handler: async (ctx, { body }) => {
        ctx.body = { reauthenticated_until: await reauthenticate(deps, sessionOf(ctx), body.password, signinOrigin(ctx, deps), deps.clock?.()) };
      },
    }),
    route({
      method: 'POST',
      path: '/password/forgot',
      operationId: 'forgotPassword',
      summary: 'Mail a password reset link (the same answer for any address)',
      tags: TAGS,
      body: FORGOT_PASSWORD_INPUT,
      before: [limited],
      responses: { 202: { description: 'Sent if the address has an account', schema: RESET_SENT_SCHEMA }, 400: E('Invalid parameter'), 429: E('Rate limited') },
      handler: async (ctx, { body }) => {
        ctx.status = 202;
        ctx.body = await forgotPassword(deps, body.email);
      },
    }),
    route({
      method: 'POST',
      path: '/password/reset',
      operationId: 'resetPassword',
      summary: 'A new password from the mailed link; every session ends',
      tags: TAGS,
      body: RESET_PASSWORD_INPUT,
      before: [limited],
      responses: {
        200: { description: 'Reset', schema: RESET_SCHEMA },
        400: E('Invalid parameter'),
        404: E('The link was used or expired'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { body }) => {
        ctx.body = await resetPassword(deps, body, requestOrigin(ctx, deps));
        setSessionCookie(ctx, deps, null);
      },
    }),
    route({
      method: 'POST',
      path: '/password/change',
      operationId: 'changePassword',
      summary: 'Change the password (the current one given); every other session ends',
      tags: TAGS,
      body: CHANGE_PASSWORD_INPUT,
      before: [limited, signedIn],
      responses: {
        200: { description: 'Changed', schema: PASSWORD_CHANGED_SCHEMA },
        400: E('Invalid parameter'),
        401: E('invalid_credentials'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { body }) => {
        ctx.body = await changePassword(deps, sessionOf(ctx), body, signinOrigin(ctx, deps), deps.clock?.());
      },
    }),
    route({
      method: 'GET',
      path: '/sessions',
      operationId: 'listSessions',
      summary: "The person's own sessions (devices), newest first",
      tags: TAGS,
      before: [signedIn],
      responses: { 200: { description: 'Sessions', schema: SESSIONS_SCHEMA }, 401: E('Not signed in') },
      handler: async (ctx) => {
        ctx.body = await listSessions(deps, sessionOf(ctx));
      },
    }),
    route({
      method: 'DELETE',
      path: '/sessions/:id',
      operationId: 'endSession',
      summary: 'End one of the person’s sessions',
      tags: TAGS,
      pathParams: { id: { type: 'string' } },
      before: [signedIn],
      responses: { 204: E('Ended'), 401: E('Not signed in'), 404: E('No such session') },
      handler: async (ctx) => {
        await endSession(deps, sessionOf(ctx), String(ctx.params.id));
        ctx.status = 204;
      },
    }),
    route({
      method: 'DELETE',
      path: '/sessions',
      operationId: 'endAllSessions',
      summary: 'Sign out everywhere (this session too)',
      tags: TAGS,
      before: [signedIn],
      responses: { 204: E('Every session ended'), 401: E('Not signed in') },
      handler: async (ctx) => {
        await endAllSessions(deps, sessionOf(ctx), requestOrigin(ctx, deps));
        setSessionCookie(ctx, deps, null);
        ctx.status = 204;
      },
    }),
  ];
}
