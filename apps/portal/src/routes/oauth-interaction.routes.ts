/**
 * Sign-in and consent of an app's authorization: the JSON calls of the page at
 * `/oauth/interaction/<uid>`, under that path because the provider scopes its interaction cookie
 * to it. Answered by the portal (its error shape, its Origin and CSRF checks, its sign-in rules),
 * never by the provider; each ends with the URL the page navigates to (`redirect_to`), where the
 * provider resumes the authorization.
 */
import type { Context, Middleware } from 'koa';
import { buildRouter, route, type RouteSpec } from '@cw/http';
import { ApiError } from '@cw/errors';
import { authorize, notAuthenticated, type MemberRole } from '@cw/auth';
import { actorOf } from '@cw/audit';
import { enforceRateLimit } from '@cw/ratelimit';
import {
  OFFLINE_ACCESS_DESCRIPTION,
  RESOURCE_SCOPES,
  clientNameForDisplay,
  grantConsent,
  requestedAccess,
  type Provider,
  type RequestedAccess,
} from '@cw/oauth';
import { accountsOf, portalPrincipal, resolveSession, signIn, type SessionContext } from '@cw/people';
import { grantableScopes, grantDetail, resourceLabel, roleMayGrant } from '../oauth-apps';
import { INTERACTION_PREFIX, type PortalOAuth } from '../oauth';
import { portalSession, requestOrigin, setSessionCookie, spendPortalBudget, type PortalDeps } from '../portal-context';
import { setDeviceCookie, signinOrigin } from '../signin-device';
import { E } from './schemas';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

const TAGS = ['Apps (OAuth)'];
const UID = { uid: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } };

export const INTERACTION_LOGIN_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    email: { type: 'string', minLength: 3, maxLength: 254 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
} as const;

export const INTERACTION_CONSENT_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['account_id'],
  properties: {
    account_id: { type: 'string', minLength: 1, maxLength: 64 },
    scopes: {
      type: 'array',
      maxItems: 20,
      uniqueItems: true,
      items: { type: 'string', enum: [...Object.keys(RESOURCE_SCOPES), 'offline_access'] },
      description: 'What the person allows (default: everything asked that their role may grant).',
    },
  },
} as const;

const expired = () =>
  new ApiError({ code: 'not_found', detail: 'This sign-in for an app has ended or is unknown (it lasts an hour). Start again from the app.' });

/** The interaction the cookie names, if it is the one in the path. */
async function interactionOf(provider: Provider, ctx: Context): Promise<Details> {
  let details: Details;
  try {
    details = await provider.interactionDetails(ctx.req, ctx.res);
  } catch {
    throw expired();
  }
  if (details.uid !== ctx.params.uid) throw expired();
  return details;
}

/** The result handed back to the provider; the page navigates to the URL it answers. */
async function finish(provider: Provider, ctx: Context, result: Record<string, unknown>, merge: boolean): Promise<void> {
  const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: merge });
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { redirect_to: to };
}

/** The portal session of the page, if any. */
const sessionIn = (ctx: Context) => (ctx.state.session as SessionContext | null | undefined) ?? null;

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** What the consent page shows of a request: each resource with its scopes in words. */
function accessView(deps: PortalDeps, asked: RequestedAccess) {
  return {
    resources: Object.entries(asked.resources).map(([resource, scopes]) => ({
      resource,
      label: resourceLabel(deps.config.portalUrl, resource),
      scopes: scopes.map((scope) => ({ scope, description: RESOURCE_SCOPES[scope] })),
    })),
    offline_access: asked.offlineAccess ? { scope: 'offline_access', description: OFFLINE_ACCESS_DESCRIPTION } : null,
  };
}

/** The resource scopes asked for, in one list. */
const askedScopes = (asked: RequestedAccess): string[] => [...new Set(Object.values(asked.resources).flat())];

/**
 * Marks what was asked for and not approved as rejected on the grant: the provider then takes the
 * consent as given (it asks again for scopes neither granted nor rejected).
 */
async function rejectUnapproved(provider: Provider, grantId: string, asked: RequestedAccess, approved: readonly string[]): Promise<void> {
  const declined = Object.entries(asked.resources)
    .map(([indicator, scopes]) => [indicator, scopes.filter((x) => !approved.includes(x))] as const)
    .filter(([, scopes]) => scopes.length);
  const offline = asked.offlineAccess && !approved.includes('offline_access');
  if (!declined.length && !offline) return;
  const grant = await provider.Grant.find(grantId);
  if (!grant) return;
  for (const [indicator, scopes] of declined) grant.rejectResourceScope(indicator, scopes.join(' '));
  if (offline) grant.rejectOIDCScope('offline_access');
  await grant.save();
}

export function oauthInteractionRoutes(deps: PortalDeps, oauth: PortalOAuth): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/:uid/details',
      operationId: 'oauthInteraction',
      summary: 'What an app asks for: the app, its redirect host, the scopes in words, and who is signed in',
      tags: TAGS,
      pathParams: UID,
      responses: { 200: E('The interaction'), 404: E('Ended or unknown') },
      handler: async (ctx) => {
        const provider = await oauth.provider();
        const details = await interactionOf(provider, ctx);
        const clientId = String(details.params.client_id);
        const client = (await deps.data.oauth.clientsByIds([clientId])).get(clientId);
        const redirectUri = String(details.params.redirect_uri ?? '');
        const s = sessionIn(ctx);
        const personId = typeof details.session?.accountId === 'string' ? details.session.accountId : null;
        const base = {
          uid: details.uid,
          prompt: details.prompt.name,
          // The name is the app's claim: one line of at most 100 characters, whatever was stored.
          client: {
            client_id: clientId,
            name: clientNameForDisplay(client?.clientName),
            redirect_uri: redirectUri,
            redirect_host: URL.parse(redirectUri)?.host ?? null,
          },
          signed_in: s ? { user_id: s.user._id, email: s.user.email } : null,
          csrf_token: s?.session.csrf_token ?? null,
        };
        ctx.set('Cache-Control', 'no-store');
        if (details.prompt.name !== 'consent') {
          ctx.body = base;
          return;
        }
        const asked = requestedAccess(provider.issuer, details);
        const samePerson = !!s && s.user._id === personId;
        const wanted = askedScopes(asked);
        const accounts = samePerson ? await accountsOf(deps, s.user._id) : [];
        const until = s?.session.reauthenticated_until ?? null;
        ctx.body = {
          ...base,
          // The portal session belongs to the person the app's sign-in is for (else: sign in again).
          person_matches: samePerson,
          access: accessView(deps, asked),
          accounts: accounts.map((a) => {
            const grantable = grantableScopes(a.role);
            return { ...a, grantable_scopes: wanted.filter((x) => grantable.includes(x as never)) };
          }),
          reauthenticated_until: until,
          reauthentication_required: !until || until.getTime() <= Date.now(),
        };
      },
    }),
    route({
      method: 'POST',
      path: '/:uid/login',
      operationId: 'oauthInteractionLogin',
      summary: "Sign in for an app: with the portal's session, or e-mail and password (the portal's sign-in; sets its session cookie)",
      tags: TAGS,
      pathParams: UID,
      body: INTERACTION_LOGIN_INPUT,
      responses: {
        200: E('{redirect_to}: where the page goes next'),
        401: E('invalid_credentials (one answer for any mistake), or not_authenticated (no session and no password)'),
        403: E('email_not_verified, or csrf_failed'),
        404: E('Ended or unknown'),
        409: E('Signed in as another person than the one this app is being granted by'),
        429: E('Rate limited (per address and per e-mail)'),
      },
      handler: async (ctx, { body }) => {
        const provider = await oauth.provider();
        const details = await interactionOf(provider, ctx);
        let s = sessionIn(ctx);
        if ((body.email === undefined) !== (body.password === undefined))
          throw new ApiError({ code: 'invalid_parameter', detail: 'Give both the e-mail address and the password, or neither (signed in).' });
        if (body.email !== undefined && body.password !== undefined) {
          await enforceRateLimit(ctx, deps.limiter, 'signinAddress', ctx.ip || 'unknown', deps.config.rateLimits.signinAddress);
          // The portal's sign-in, its guard included (the e-mail's budgets, trusted devices).
          const signedIn = await signIn(deps, { email: body.email, password: body.password }, signinOrigin(ctx, deps), deps.clock?.());
          setSessionCookie(ctx, deps, signedIn.session);
          setDeviceCookie(ctx, deps, signedIn.device);
          s = await resolveSession(deps, signedIn.session);
        }
        if (!s) throw notAuthenticated();
        const personId = typeof details.session?.accountId === 'string' ? details.session.accountId : null;
        if (details.prompt.name === 'login') return finish(provider, ctx, { login: { accountId: s.user._id } }, false);
        // At consent the app's sign-in names its person already: the portal session must be theirs.
        if (personId !== s.user._id)
          throw new ApiError({
            code: 'conflict',
            detail: 'You are signed in to the portal as someone else than the person this app was connecting for. Start again from the app.',
          });
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { redirect_to: null, csrf_token: s.session.csrf_token };
      },
    }),
    route({
      method: 'POST',
      path: '/:uid/consent',
      operationId: 'oauthInteractionConsent',
      summary: 'Allow the app to act for one of your accounts, with the scopes your role may grant',
      tags: TAGS,
      pathParams: UID,
      body: INTERACTION_CONSENT_INPUT,
      before: [spendPortalBudget(deps)],
      responses: {
        200: E('{redirect_to}: back to the app, with the code'),
        400: E('Invalid parameter (a scope the app did not ask for)'),
        401: E('Not signed in'),
        403: E('role_not_allowed (a scope your role cannot grant), reauthentication_required or csrf_failed'),
        404: E('Ended or unknown, or not an account of yours'),
        409: E('Signed in as someone else'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { body }) => {
        const provider = await oauth.provider();
        const details = await interactionOf(provider, ctx);
        if (details.prompt.name !== 'consent') throw new ApiError({ code: 'conflict', detail: 'Sign in first.' });
        const s = sessionIn(ctx)!;
        if (details.session?.accountId !== s.user._id)
          throw new ApiError({
            code: 'conflict',
            detail: 'You are signed in to the portal as someone else than the person this app was connecting for. Start again from the app.',
          });
        const principal = await portalPrincipal(deps, s, body.account_id, requestOrigin(ctx, deps));
        // Granting an app is a sensitive change: the password given in the last 10 minutes.
        authorize(principal, { budget: 'portal', reauthenticate: true });
        const role = principal.person!.role as MemberRole;
        const asked = requestedAccess(provider.issuer, details);
        const wanted = askedScopes(asked);
        const askable = [...wanted, ...(asked.offlineAccess ? ['offline_access'] : [])];
        let approved: string[];
        if (body.scopes) {
          const unasked = body.scopes.filter((x) => !askable.includes(x));
          if (unasked.length)
            throw new ApiError({
              code: 'invalid_parameter',
              detail: `The app did not ask for ${unasked.join(', ')}.`,
              errors: [{ param: 'scopes', detail: `not asked for: ${unasked.join(' ')}` }],
            });
          const refused = body.scopes.filter((x) => !roleMayGrant(role, x));
          if (refused.length)
            throw new ApiError({
              code: 'role_not_allowed',
              detail: `Your role in this account (${role}) cannot grant ${refused.join(', ')}: it lets an app change things you cannot. Ask an owner or a developer of the account.`,
            });
          approved = [...body.scopes];
        } else {
          approved = askable.filter((x) => roleMayGrant(role, x));
        }
        const given = wanted.filter((x) => approved.includes(x));
        if (!given.length)
          throw new ApiError({
            code: wanted.some((x) => !roleMayGrant(role, x)) && !body.scopes ? 'role_not_allowed' : 'invalid_parameter',
            detail: wanted.length
              ? 'Allow at least one of the scopes the app asks for (your role may grant them), or deny.'
              : 'The app asks for no scope of this platform.',
          });
        const grantId = await grantConsent(provider, deps.data.oauth, details, { personId: s.user._id, accountId: principal.publisher._id, approved });
        await rejectUnapproved(provider, grantId, asked, approved);
        const grant = await deps.data.oauth.grantById(grantId);
        const clientId = String(details.params.client_id);
        const client = (await deps.data.oauth.clientsByIds([clientId])).get(clientId);
        await deps.data.audit.record({
          account_id: principal.publisher._id,
          type: 'app_granted',
          ...actorOf(principal),
          detail: {
            ...grantDetail(grant ?? { grantId, clientId, resources: asked.resources }, client?.clientName),
            redirect_host: URL.parse(String(details.params.redirect_uri ?? ''))?.host ?? null,
            offline_access: approved.includes('offline_access'),
            ...(sameSet(given, wanted) ? {} : { not_granted: wanted.filter((x) => !given.includes(x)) }),
          },
        });
        return finish(provider, ctx, { consent: { grantId } }, true);
      },
    }),
    route({
      method: 'POST',
      path: '/:uid/abort',
      operationId: 'oauthInteractionAbort',
      summary: 'Deny: the app is told access_denied',
      tags: TAGS,
      pathParams: UID,
      responses: { 200: E('{redirect_to}: back to the app, with the error'), 403: E('csrf_failed'), 404: E('Ended or unknown') },
      handler: async (ctx) => {
        const provider = await oauth.provider();
        await interactionOf(provider, ctx);
        return finish(provider, ctx, { error: 'access_denied', error_description: 'The person did not allow the app.' }, false);
      },
    }),
  ];
}

/** The interaction calls as middleware under `/oauth/interaction` (the portal's session read and request checks first). */
export function interactionRouter(deps: PortalDeps, oauth: PortalOAuth): Middleware[] {
  const guard = portalSession(deps);
  const router = buildRouter(
    INTERACTION_PREFIX,
    oauthInteractionRoutes(deps, oauth).map((r) => ({ ...r, before: [guard, ...(r.before ?? [])] })),
  );
  return [router.routes() as unknown as Middleware, router.allowedMethods() as unknown as Middleware];
}
