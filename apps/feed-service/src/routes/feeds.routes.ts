import { createGzip } from 'node:zlib';
import type { Context, Middleware } from 'koa';
import { principalOf, requirePolicy } from '@cw/auth';
import { FEED_FIELDS, FEED_PRODUCTS_INPUT, FEED_URL_INPUT, FEEDS_POLICY, issueFeedUrl, prepareFeed, signedFeedAccount } from '@cw/feeds';
import { route, type RouteSpec } from '@cw/http';
import { enforceRateLimit } from '@cw/ratelimit';
import { API_KEY_SECURITY } from '@cw/runtime';
import type { FeedServiceDeps } from '../deps';

const SIGNED = ['account', 'expires', 'kid', 'sig'];
const isSigned = (q: Record<string, unknown>) => SIGNED.some((k) => q[k] !== undefined);

const ERRORS = {
  400: { description: 'Invalid, unknown or repeated parameter' },
  401: { description: 'Not authenticated (API key mode)' },
  403: {
    description:
      'Feed access inactive, demo key, country outside the markets, merchant_filter without comparison-site access, or a changed, expired or revoked signed URL',
  },
  429: { description: 'Rate limited' },
  503: { description: 'Unavailable' },
};

export function feedUrlRoutes(deps: FeedServiceDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/feed',
      operationId: 'getFeedUrl',
      summary: 'The signed URL of your product feed for a country and format',
      description:
        'The URL serves the feed without a key for 90 days; request a new one after renew_after. Any change to it is refused (403); revoking the key that asked for it, or deactivating the account, stops it.',
      tags: ['Feeds'],
      security: API_KEY_SECURITY,
      query: FEED_URL_INPUT,
      before: [requirePolicy(deps, FEEDS_POLICY)],
      responses: {
        200: {
          description: 'The signed URL',
          schema: {
            type: 'object',
            properties: {
              url: { type: 'string' },
              format: { type: 'string' },
              country: { type: 'string' },
              merchant_filter: { type: 'string', description: 'As asked (comparison sites).' },
              sample: { type: 'integer', enum: [1], description: 'As asked: a sample feed.' },
              expires_at: { type: 'string', format: 'date-time' },
              renew_after: { type: 'string', format: 'date-time' },
            },
          },
        },
        ...ERRORS,
      },
      handler: (ctx, { query }) => {
        ctx.body = issueFeedUrl(deps, principalOf(ctx), query);
      },
    }),
  ];
}

export function feedRoutes(deps: FeedServiceDeps): RouteSpec[] {
  const keyAuth = requirePolicy(deps, FEEDS_POLICY);
  const auth: Middleware = (ctx, next) => (isSigned(ctx.query) ? next() : keyAuth(ctx, next));
  return [
    route({
      method: 'GET',
      path: '/products',
      operationId: 'getProductFeed',
      summary: 'Your product feed: Google Shopping XML, CSV, TSV or JSON, streamed',
      description: `With the parameters of a signed URL (no key) or an API key. Fields, in order: ${FEED_FIELDS.join(', ')}. At most 500 products per program and 5,000 per country (the first by product id). gzip when accepted; ETag and Last-Modified when served from prepared files (304 on revalidation).`,
      tags: ['Feeds'],
      security: API_KEY_SECURITY,
      query: FEED_PRODUCTS_INPUT,
      before: [auth],
      responses: {
        200: {
          description: 'The feed in the format asked for: RSS 2.0 with the g: namespace (xml), CSV, TSV (header line first) or JSON',
          contentType: 'application/rss+xml',
          schema: { type: 'string' },
          alternatives: {
            'text/csv': { type: 'string' },
            'text/tab-separated-values': { type: 'string' },
            'application/json': {
              type: 'object',
              required: ['products'],
              properties: {
                country: { type: 'string' },
                format: { type: 'string', enum: ['json'] },
                sample: { type: 'boolean', description: "True for a sample feed (the merchant's pages, no tracked links)." },
                generated_at: { type: 'string', format: 'date-time' },
                account: { type: 'string', description: 'The account the links are tracked for.' },
                products: { type: 'array', items: { type: 'object', properties: Object.fromEntries(FEED_FIELDS.map((f) => [f, { type: 'string' }])) } },
              },
            },
          },
        },
        304: { description: 'Not modified' },
        ...ERRORS,
      },
      handler: async (ctx, { query }) => {
        const signed = isSigned(query);
        const publisher = signed ? await signedFeedAccount(deps, query) : principalOf(ctx).publisher;
        if (signed) await enforceRateLimit(ctx, deps.limiter, 'feeds', publisher._id, deps.config.rateLimits.feeds);
        const feed = await prepareFeed(deps, publisher, query);
        ctx.status = 200;
        ctx.set('Cache-Control', 'private, max-age=0, must-revalidate');
        ctx.vary('Accept-Encoding');
        if (feed.etag) {
          ctx.set('ETag', feed.etag);
          ctx.lastModified = feed.lastModified!;
          if (ctx.fresh) {
            ctx.status = 304;
            return;
          }
        }
        const { stream, close } = feed.open();
        stream.on('error', (e) => deps.logger.error({ err: e.message }, 'feed stream failed'));
        ctx.res.once('close', () => {
          if (!ctx.res.writableFinished) {
            stream.destroy();
            close();
          }
        });
        ctx.type = feed.contentType;
        ctx.set('Content-Disposition', `inline; filename="${feed.filename}"`);
        ctx.body = gzipWhenAccepted(ctx, stream);
      },
    }),
  ];
}

function gzipWhenAccepted(ctx: Context, stream: NodeJS.ReadableStream & { destroy(e?: Error): void }) {
  if (ctx.acceptsEncodings('gzip', 'identity') !== 'gzip') return stream;
  ctx.set('Content-Encoding', 'gzip');
  const gz = createGzip();
  stream.on('error', (e) => gz.destroy(e));
  gz.on('close', () => stream.destroy());
  return stream.pipe(gz);
}
