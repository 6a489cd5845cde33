import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Koa from 'koa';
import type { RouteSpec } from '@cw/http';
import { createMailer, type Mailer } from '@cw/mail';
import { notifier } from '@cw/notifications';
import { oauthKeys } from '@cw/oauth';
import { apiDocument, createPlatformApp, gettingStarted } from '@cw/runtime';
import { portalOAuth } from './oauth';
import { portalSession, type PortalDeps } from './portal-context';
import { accountRoutes } from './routes/account.routes';
import { appsRoutes } from './routes/apps.routes';
import { interactionRouter } from './routes/oauth-interaction.routes';
import { postbackRoutes } from './routes/postback.routes';
import { sessionRoutes } from './routes/session.routes';
import { teamRoutes } from './routes/team.routes';
import { activityRoutes } from './routes/activity.routes';
import { catalogRoutes } from './routes/catalog.routes';
import { dashboardRoutes } from './routes/dashboard.routes';
import { operatorRoutes } from './routes/operator.routes';
import { operatorProgramsRoutes } from './routes/operator-programs.routes';
import { operatorPayoutsRoutes } from './routes/operator-payouts.routes';
import { payoutsRoutes } from './routes/payouts.routes';
import { notificationsRoutes, oneClickUnsubscribe } from './routes/notifications.routes';
import { taxRoutes } from './routes/tax.routes';
import { operatorTaxRoutes } from './routes/operator-tax.routes';
import { inquiriesRoutes } from './routes/inquiries.routes';
import { operatorInquiriesRoutes } from './routes/operator-inquiries.routes';
import { codesRoutes } from './routes/codes.routes';
import { linkHealthRoutes } from './routes/link-health.routes';
import { webPages } from './web';
import { resourceMetadata } from './routes/resource-metadata.routes';
import type { PortalAppDeps } from './deps';

export const PREFIX = '/portal/api';

/** Where the built front end is by default: beside the bundled main.js, or the repository's dist when run from source. */
export function defaultWebDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return here.endsWith(`${join('apps', 'portal', 'src')}`) ? resolve(here, '../../../dist/apps/portal/web') : join(here, 'web');
}

export interface PortalOptions {
  /** The built front end (default: defaultWebDir()). */
  webDir?: string;
  /** Default: SMTP_URL, else files in MAIL_DIR (config). */
  mailer?: Mailer;
  /** Told of each mail written to the local folder. */
  onMail?: (path: string) => void;
  /** OAuth access token lifetime in seconds (default 600; tests shorten it). */
  oauthAccessTokenTtlSeconds?: number;
  /** The clock of the sign-in limits (default: the system's; tests move it across windows). */
  clock?: () => Date;
}

export function portalDeps(deps: PortalAppDeps, opts: PortalOptions = {}): PortalDeps {
  if (!opts.mailer && !deps.config.smtpUrl && !deps.config.mailDir && deps.config.nodeEnv === 'production')
    deps.logger.warn('neither SMTP_URL nor MAIL_DIR is set: the portal sends no mail (confirmations, invitations, password resets)');
  const mailer =
    opts.mailer ??
    createMailer({
      from: deps.config.mailFrom,
      smtpUrl: deps.config.smtpUrl,
      dir: deps.config.mailDir,
      onWritten: (path, m) => {
        deps.logger.info({ mail: path, subject: m.subject }, 'mail written');
        opts.onMail?.(path);
      },
      // A mail handed to the background that could not go out yet (never its text: it holds a one-time link).
      onFailed: (err, a) =>
        a.final
          ? deps.logger.error({ err, subject: a.subject, attempt: a.attempt }, 'mail given up: its person asks again for a new link')
          : deps.logger.warn({ err, subject: a.subject, attempt: a.attempt }, 'mail not sent yet: trying again'),
    });
  // Notices (payouts, method and tax changes) become mail jobs the worker sends, to whoever has them on (@cw/notifications).
  const notify = notifier({ data: deps.data });
  return { ...deps, mailer, clock: opts.clock, notify };
}

/** Operations anyone may call (before a session exists); every other needs the session cookie. */
const PUBLIC_OPERATIONS = new Set([
  'signUp',
  'verifyEmail',
  'signIn',
  'unlockSignIn',
  'signOut',
  'forgotPassword',
  'resetPassword',
  'invitationInfo',
  'acceptInvitation',
  'claimPreview',
  'previewUnsubscribe',
  'unsubscribe',
]);

export const PORTAL_SECURITY_SCHEMES = {
  PortalSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'cw_session',
    description:
      "The session cookie set by POST /portal/api/signin (`__Host-cw_session` on https). Every POST, PUT, PATCH and DELETE also sends `X-CSRF-Token` (GET /portal/api/session) and the portal's `Origin`.",
  },
};

/** Every route: the session read and the request's checks first (only once a route matched, so a wrong method is 405). */
export function routes(deps: PortalDeps): RouteSpec[] {
  const guard = portalSession(deps);
  return [
    ...sessionRoutes(deps),
    ...accountRoutes(deps),
    ...postbackRoutes(deps),
    ...teamRoutes(deps),
    ...appsRoutes(deps),
    ...dashboardRoutes(deps),
    ...activityRoutes(deps),
    ...catalogRoutes(deps),
    ...operatorRoutes(deps),
    ...operatorProgramsRoutes(deps),
    ...payoutsRoutes(deps),
    ...taxRoutes(deps),
    ...operatorTaxRoutes(deps),
    ...operatorPayoutsRoutes(deps),
    ...inquiriesRoutes(deps),
    ...operatorInquiriesRoutes(deps),
    ...codesRoutes(deps),
    ...notificationsRoutes(deps),
    ...linkHealthRoutes(deps),
  ].map((r) => ({
    ...r,
    before: [guard, ...(r.before ?? [])],
    // What the guard and the budgets can answer on any route (a route's own descriptions win).
    responses: <RouteSpec['responses']>{
      ...(r.body || r.query ? { 400: { description: 'Invalid parameter' } } : {}),
      401: { description: 'not_authenticated: no session (or an API credential, which the portal does not take)' },
      ...(r.method === 'GET' ? {} : { 403: { description: 'csrf_failed: no X-CSRF-Token or another Origin' } }),
      429: { description: 'Rate limited' },
      ...r.responses,
    },
    ...(PUBLIC_OPERATIONS.has(r.operationId) ? {} : { security: ['PortalSession'] }),
  }));
}

export function api(deps: PortalDeps) {
  return {
    title: 'Publisher portal API',
    description: gettingStarted({
      intro:
        "The portal's own endpoints, called by its pages: sign-up, sign-in, sessions, an account's settings, keys, postback, team and security log. They call the same use cases as the publisher API, MCP and /Apiv3/json.",
      authentication:
        "The session cookie only (`cw_session`, `__Host-cw_session` on https), set by POST /portal/api/signin; an API key or token here is 401. Every POST, PUT, PATCH and DELETE carries `X-CSRF-Token` (from GET /portal/api/session) and the portal's Origin. Sensitive changes need the password given in the last 10 minutes (POST /portal/api/reauth).",
      firstRequest: 'Open http://127.0.0.1:8080/signin in a browser (publishers[0].portal_login in .local/credentials.json).',
    }),
    prefix: PREFIX,
    routes: routes(deps),
    securitySchemes: PORTAL_SECURITY_SCHEMES,
  };
}

const mailers = new WeakMap<Koa, Mailer>();

/** Resolves once every mail the portal handed to the background went out (or was given up): a stopping service waits for it, tests before they read mail. */
export function mailSettled(app: Koa): Promise<void> {
  return mailers.get(app)?.idle() ?? Promise.resolve();
}

/** The publisher portal: its front end's pages and assets, and its session-authenticated API under /portal/api/. */
export function createApp(appDeps: PortalAppDeps, opts: PortalOptions = {}): Koa {
  const deps = portalDeps(appDeps, opts);
  const webDir = opts.webDir ?? defaultWebDir();
  // OAuth: the provider (built on first use) at the root, before any body is read; its sign-in and consent calls.
  const oauth = portalOAuth(deps, { webDir, accessTokenTtlSeconds: opts.oauthAccessTokenTtlSeconds });
  const app = createPlatformApp(deps, {
    name: 'portal',
    api: api(deps),
    use: [resourceMetadata(deps.config), oauth.middleware, oneClickUnsubscribe(deps), webPages(deps, webDir), noStore, ...interactionRouter(deps, oauth)],
  });
  // The provider's cookies are set through this app's context: signed with the provider's keys.
  app.keys = oauthKeys(deps.config.keys).cookieKeys;
  mailers.set(app, deps.mailer);
  return app;
}

/** Nothing the portal's API answers is cached (sessions, secrets shown once). */
const noStore: Koa.Middleware = async (ctx, next) => {
  if (ctx.path.startsWith(`${PREFIX}/`)) ctx.set('Cache-Control', 'no-store');
  await next();
};

/** The portal API's OpenAPI document (served at /portal/api/openapi.json). */
export function openApiDocument(deps: PortalAppDeps): Record<string, unknown> {
  return apiDocument(deps, api(portalDeps(deps)));
}
