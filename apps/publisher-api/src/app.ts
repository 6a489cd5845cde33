import type Koa from 'koa';
import { API_KEY_SCHEMES, apiIndexRouter, defineApp, gettingStarted } from '@cw/runtime';
import { accountRoutes } from './routes/account.routes';
import { moneyRoutes } from './routes/money.routes';
import { inquiryRoutes } from './routes/inquiries.routes';
import { clickRoutes } from './routes/clicks.routes';
import { codeRoutes } from './routes/codes.routes';
import { linkRoutes } from './routes/links.routes';
import { offersRoutes } from './routes/offers.routes';
import { postbackRoutes } from './routes/postbacks.routes';
import { noStore, productRoutes } from './routes/products.routes';
import { programRoutes } from './routes/programs.routes';
import { reportingRoutes } from './routes/reporting.routes';
import { trendingRoutes } from './routes/trending.routes';
import type { OpenApiExamples } from '@cw/http';
import examples from './openapi.examples.json';
import type { PublisherApiDeps } from './deps';

const PUBLISHER_PREFIX = '/api/v1/publisher';

/** Product endpoints are private to the caller, 405 and 404 included. */
const privateProducts: Koa.Middleware = (ctx, next) => (ctx.path.startsWith(`${PUBLISHER_PREFIX}/products`) ? noStore(ctx, next) : next());

export const { PREFIX, routes, api, openApiDocument, createApp } = defineApp<PublisherApiDeps>({
  name: 'publisher-api',
  title: 'Publisher Affiliate API',
  description: gettingStarted({
    intro:
      'Products, programs, tracking links, conversions, reports, clicks, postbacks, payment status, offers and trending opportunities for affiliate publishers: one API key for all of it. Every product link in an answer is already your tracked link.',
    authentication:
      'Send your API key as `X-API-Key: live_…` or `Authorization: Bearer live_…` (see the security schemes below for what each key kind may do). Offers take the offers credential (`ofr_…`) as Bearer; the postback configuration is written with the portal API token (`ptl_…`).',
    firstRequest: 'curl -s "http://127.0.0.1:8080/api/v1/publisher/products/?q=running%20shoe&country=DE&limit=2" -H "X-API-Key: $KEY"',
    more: [
      '**Writes are safe to retry.** POST, PUT and PATCH take an `Idempotency-Key` header: the first answer is replayed for 24 hours (`Idempotent-Replayed: true`); another body under the same key is 409 `idempotency_key_reused`.',
      '**Sub-IDs.** `subid` and `sub_id` are the same parameter everywhere (the spec spells it both ways).',
    ],
  }),
  prefix: PUBLISHER_PREFIX,
  examples: examples as OpenApiExamples,
  securitySchemes: {
    ...API_KEY_SCHEMES,
    OffersCredential: { type: 'http', scheme: 'bearer', description: 'The dedicated offers credential (pilot), issued per publisher.' },
  },
  routes: (deps) => [
    ...accountRoutes(deps),
    ...moneyRoutes(deps),
    ...inquiryRoutes(deps),
    ...productRoutes(deps),
    ...programRoutes(deps),
    ...linkRoutes(deps),
    ...codeRoutes(deps),
    ...reportingRoutes(deps),
    ...clickRoutes(deps),
    ...postbackRoutes(deps),
    ...offersRoutes(deps),
    ...trendingRoutes(deps),
  ],
  // The portal's front door: the index of every API reference at / and /docs.
  use: () => [privateProducts, apiIndexRouter().routes() as unknown as Koa.Middleware],
});
