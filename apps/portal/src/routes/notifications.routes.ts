/**
 * Notification mail (docs/decisions/0056-notification-mail.md): a person's own settings
 * (`/settings/notifications`, any role: the choices are the person's, whatever account), and the
 * unsubscribe link of every notification mail, which works without signing in: the page's preview
 * only reads the link (mail scanners open links), its button turns the kind off. The one-click POST
 * of RFC 8058 (`/unsubscribe/one-click`, outside this API: mail providers post without cookies,
 * Origin or CSRF token) is `oneClickUnsubscribe` below.
 */
import type { Middleware } from 'koa';
import { ApiError } from '@cw/errors';
import { route, type RouteSpec } from '@cw/http';
import {
  NOTIFICATION_CHOICES_INPUT,
  NOTIFICATION_SETTINGS_SCHEMA,
  notificationSettings,
  UNSUBSCRIBE_INPUT,
  unsubscribe,
  unsubscribeInfo,
  updateNotificationSettings,
} from '@cw/notifications';
import { enforceRateLimit } from '@cw/ratelimit';
import { perAddress, sessionOf, spendPortalBudget, type PortalDeps } from '../portal-context';
import { E } from './schemas';

const TAGS = ['Notifications'];

const UNSUBSCRIBE_SCHEMA = {
  type: 'object',
  properties: {
    kind: { type: 'string' },
    label: { type: 'string' },
    description: { type: 'string' },
    enabled: { type: 'boolean', description: 'Present after the change: false.' },
  },
};

export function notificationsRoutes(deps: PortalDeps): RouteSpec[] {
  const signedIn = spendPortalBudget(deps);
  const limited = perAddress(deps);
  return [
    route({
      method: 'GET',
      path: '/me/notifications',
      operationId: 'getNotificationSettings',
      summary: 'The signed-in person’s notification mail: each kind, on or off, whether they receive it in any account, and their own time zone',
      tags: TAGS,
      before: [signedIn],
      responses: { 200: { description: 'The settings', schema: NOTIFICATION_SETTINGS_SCHEMA }, 401: E('Not signed in'), 429: E('Rate limited') },
      handler: async (ctx) => {
        ctx.body = await notificationSettings(deps, sessionOf(ctx).user._id);
      },
    }),
    route({
      method: 'PUT',
      path: '/me/notifications',
      operationId: 'updateNotificationSettings',
      summary:
        'Turn kinds of notification mail on or off for the signed-in person (kinds left out keep their setting), or set their own time zone (the weekly summary’s)',
      tags: TAGS,
      body: NOTIFICATION_CHOICES_INPUT,
      before: [signedIn],
      responses: {
        200: { description: 'The settings after the change', schema: NOTIFICATION_SETTINGS_SCHEMA },
        400: E(
          'invalid_parameter or unknown_parameter: a kind that does not exist, a value that is not true or false, or a timezone that is not an IANA time zone nor null',
        ),
        401: E('Not signed in'),
        403: E('csrf_failed'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { body }) => {
        ctx.body = await updateNotificationSettings(deps, sessionOf(ctx).user._id, body);
      },
    }),
    route({
      method: 'POST',
      path: '/unsubscribe/preview',
      operationId: 'previewUnsubscribe',
      summary: 'What a mail’s unsubscribe link turns off (changes nothing; no sign-in)',
      tags: TAGS,
      body: UNSUBSCRIBE_INPUT,
      before: [limited],
      responses: {
        200: { description: 'The kind the link names', schema: UNSUBSCRIBE_SCHEMA },
        400: E('invalid_unsubscribe_link: the link was changed or cut short (the same answer whoever it names)'),
        403: E('csrf_failed: not from the portal'),
        429: E('Rate limited'),
      },
      handler: (ctx, { body }) => {
        ctx.body = unsubscribeInfo(deps, body.token);
      },
    }),
    route({
      method: 'POST',
      path: '/unsubscribe',
      operationId: 'unsubscribe',
      summary: 'Turn off the kind of mail a mail’s unsubscribe link names (no sign-in)',
      tags: TAGS,
      body: UNSUBSCRIBE_INPUT,
      before: [limited],
      responses: {
        200: { description: 'Turned off', schema: UNSUBSCRIBE_SCHEMA },
        400: E('invalid_unsubscribe_link: the link was changed or cut short (the same answer whoever it names)'),
        403: E('csrf_failed: not from the portal'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { body }) => {
        ctx.body = await unsubscribe(deps, body.token);
      },
    }),
  ];
}

export const ONE_CLICK_PATH = '/unsubscribe/one-click';
const MAX_BODY = 2048;

/**
 * RFC 8058 one-click unsubscribe: `POST /unsubscribe/one-click?t=…` with the form body
 * `List-Unsubscribe=One-Click`, sent by a mail provider: no cookie, Origin or CSRF token is asked
 * for (the signed link is the authority, and it only ever turns one kind off). 200 when done; 400
 * for a link that is not genuine or another body. A GET of this address is the page with its button.
 */
export function oneClickUnsubscribe(deps: PortalDeps): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== ONE_CLICK_PATH && ctx.path !== `${ONE_CLICK_PATH}/`) return next();
    if (ctx.method !== 'POST') return next();
    await enforceRateLimit(ctx, deps.limiter, 'signinAddress', ctx.ip || 'unknown', deps.config.rateLimits.signinAddress);
    const body = await readSmallBody(ctx.req);
    const form = new URLSearchParams(body ?? '');
    if (body === null || form.get('List-Unsubscribe') !== 'One-Click')
      throw new ApiError({
        code: 'invalid_parameter',
        detail: "Invalid parameter 'List-Unsubscribe': the body must be List-Unsubscribe=One-Click (RFC 8058).",
        errors: [{ param: 'List-Unsubscribe', detail: 'must be One-Click' }],
      });
    const view = await unsubscribe(deps, ctx.query.t);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = view;
  };
}

/** The request body as text, or null when it is longer than a one-click body can be. */
async function readSmallBody(req: NodeJS.ReadableStream): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > MAX_BODY) return null;
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}
