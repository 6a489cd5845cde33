import { route, type RouteSpec } from '@cw/http';
import {
  ACCESS_INPUT,
  applicationStatus,
  INSTANT_LINKS_INPUT,
  INSTANT_PROGRAMS_INPUT,
  listInstantPrograms,
  PROFILE_PATCH_INPUT,
  readProfile,
  requestInstantLinks,
  rewriteSocialPost,
  SOCIAL_POST_INPUT,
  updateProfile,
} from '@cw/monetize';
import { rateLimit } from '@cw/ratelimit';
import type { MonetizeApiDeps } from '../deps';

const LINK = {
  type: 'object',
  properties: {
    program_id: { type: 'integer' },
    url: { type: 'string', description: 'The provisional tracked link.' },
    landing_url: { type: 'string' },
    provisional: { type: 'boolean' },
  },
};
const STATUS = { type: 'string', enum: ['provisional', 'claimed', 'under_review', 'approved', 'rejected'] };
const CLAIM = { type: 'object', properties: { how: { type: 'string' }, deadline: { type: 'string', format: 'date-time' } } };
const APPLICATION = {
  type: 'object',
  properties: {
    application_id: { type: 'string' },
    access_secret: { type: 'string', description: 'Shown once: keep it; it reads and edits this application.' },
    status: STATUS,
    email_required: { type: 'boolean', enum: [false] },
    payout_claim_required: { type: 'boolean', enum: [true] },
    links: { type: 'array', items: LINK },
    claim: CLAIM,
  },
};
const PROFILE = {
  type: 'object',
  properties: {
    application_id: { type: 'string' },
    status: STATUS,
    display_name: { type: ['string', 'null'] },
    website: { type: ['string', 'null'] },
    channels: { type: 'array', items: { type: 'string' } },
    country: { type: ['string', 'null'] },
    claim_email: { type: ['string', 'null'] },
  },
};
const ID_PARAM = { id: { type: 'string', description: 'The application id (app_…).' } };
const E = (description: string) => ({ description });

export function monetizeRoutes(deps: MonetizeApiDeps): RouteSpec[] {
  // No account: every call spends the client address's budget (the daily cap of applications is on top).
  const perAddress = rateLimit({ limiter: deps.limiter, budget: 'monetize', limit: deps.config.rateLimits.monetize, key: (ctx) => ctx.ip || 'unknown' });
  const caller = (ip: string) => ({ address: ip || 'unknown' });
  return [
    route({
      method: 'GET',
      path: '/programs',
      operationId: 'listInstantPrograms',
      summary: 'Programs open to instant links, with their terms',
      tags: ['Instant monetization'],
      query: INSTANT_PROGRAMS_INPUT,
      before: [perAddress],
      responses: { 200: { description: 'A page of programs' }, 400: E('Invalid parameter'), 429: E('Rate limited'), 503: E('Unavailable') },
      handler: async (ctx, { query }) => {
        ctx.body = await listInstantPrograms(deps, query);
      },
    }),
    route({
      method: 'POST',
      path: '/links',
      operationId: 'requestInstantLinks',
      summary: 'Provisional tracked links at once, no account or e-mail needed',
      description: 'Opens an application: the access_secret in the answer is shown once and stored hashed.',
      tags: ['Instant monetization'],
      body: INSTANT_LINKS_INPUT,
      before: [perAddress],
      responses: {
        201: { description: 'Application opened', schema: APPLICATION },
        400: E('Invalid body'),
        429: E('Rate limited or daily cap of applications reached'),
        503: E('Unavailable'),
      },
      handler: async (ctx, { body }) => {
        ctx.status = 201;
        ctx.body = await requestInstantLinks(deps, caller(ctx.ip), body);
      },
    }),
    route({
      method: 'POST',
      path: '/social-post',
      operationId: 'rewriteSocialPost',
      summary: 'A social post with its merchant URLs replaced by provisional tracked links',
      description:
        'URLs on the allowed domains of programs open to instant links for the channel are replaced; other text, in any script and with emoji, is kept as sent.',
      tags: ['Instant monetization'],
      body: SOCIAL_POST_INPUT,
      before: [perAddress],
      responses: {
        201: {
          description: 'Application opened, with post_text rewritten',
          schema: {
            ...APPLICATION,
            properties: {
              ...APPLICATION.properties,
              links: {
                type: 'array',
                items: {
                  ...LINK,
                  properties: { ...LINK.properties, original_url: { type: 'string', description: 'The URL of the post this link replaced.' } },
                },
              },
              post_text: { type: 'string' },
            },
          },
        },
        400: E('Invalid body (post_text over 10,000 characters included)'),
        422: E('No merchant URL in the text'),
        429: E('Rate limited or daily cap of applications reached'),
        503: E('Unavailable'),
      },
      handler: async (ctx, { body }) => {
        ctx.status = 201;
        ctx.body = await rewriteSocialPost(deps, caller(ctx.ip), body);
      },
    }),
    route({
      method: 'GET',
      path: '/requests/:id',
      operationId: 'getInstantApplication',
      summary: 'Status, links, clicks and pending earnings of an application',
      description: 'A wrong or missing access_secret answers 404, like an unknown id.',
      tags: ['Instant monetization'],
      query: ACCESS_INPUT,
      pathParams: ID_PARAM,
      before: [perAddress],
      responses: {
        200: { description: 'The application' },
        400: E('Invalid parameter'),
        404: E('No such application, or wrong secret'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { query }) => {
        ctx.body = await applicationStatus(deps, String(ctx.params.id), query);
      },
    }),
    route({
      method: 'GET',
      path: '/profile/:id',
      operationId: 'getInstantProfile',
      summary: 'The profile of an application',
      tags: ['Instant monetization'],
      query: ACCESS_INPUT,
      pathParams: ID_PARAM,
      before: [perAddress],
      responses: {
        200: { description: 'The profile', schema: PROFILE },
        400: E('Invalid parameter'),
        404: E('No such application, or wrong secret'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { query }) => {
        ctx.body = await readProfile(deps, String(ctx.params.id), query);
      },
    }),
    route({
      method: 'PATCH',
      path: '/profile/:id',
      operationId: 'updateInstantProfile',
      summary: 'Change display_name, website, channels, country or claim_email',
      description: 'A claim_email makes the application claimed; with display_name and country it goes under review.',
      tags: ['Instant monetization'],
      query: ACCESS_INPUT,
      body: PROFILE_PATCH_INPUT,
      pathParams: ID_PARAM,
      before: [perAddress],
      responses: {
        200: { description: 'The profile after the change', schema: PROFILE },
        400: E('Invalid body'),
        404: E('No such application, or wrong secret'),
        409: E('Already decided'),
        429: E('Rate limited'),
      },
      handler: async (ctx, { query, body }) => {
        ctx.body = await updateProfile(deps, String(ctx.params.id), query, body);
      },
    }),
  ];
}
