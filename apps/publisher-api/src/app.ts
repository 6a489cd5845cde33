import type Koa from 'koa';
import { API_KEY_SCHEMES, defineApp } from '@cw/runtime';
import { accountRoutes } from './routes/account.routes';
import { clickRoutes } from './routes/clicks.routes';
import { linkRoutes } from './routes/links.routes';
import { offersRoutes } from './routes/offers.routes';
import { postbackRoutes } from './routes/postbacks.routes';
import { noStore, productRoutes } from './routes/products.routes';
import { programRoutes } from './routes/programs.routes';
import { reportingRoutes } from './routes/reporting.routes';
import { trendingRoutes } from './routes/trending.routes';
import type { OpenApiExamples } from '@cw/http';
import examples from './openapi.examples.json';

const PUBLISHER_PREFIX = '/api/v1/publisher';

/** Product endpoints are private to the caller, 405 and 404 included. */
const privateProducts: Koa.Middleware = (ctx, next) => (ctx.path.startsWith(`${PUBLISHER_PREFIX}/products`) ? noStore(ctx, next) : next());

export const { PREFIX, routes, api, openApiDocument, createApp } = defineApp({
  name: 'publisher-api',
  title: 'Publisher Affiliate API',
  description: 'Products, programs, tracking links, conversions, reports, clicks, postbacks, payment status, offers and trending opportunities for affiliate publishers.',
  prefix: PUBLISHER_PREFIX,
  examples: examples as OpenApiExamples,
  securitySchemes: { ...API_KEY_SCHEMES, OffersCredential: { type: 'http', scheme: 'bearer', description: 'The dedicated offers credential (pilot), issued per publisher.' } },
  routes: (deps) => [...accountRoutes(deps), ...productRoutes(deps), ...programRoutes(deps), ...linkRoutes(deps), ...reportingRoutes(deps), ...clickRoutes(deps), ...postbackRoutes(deps), ...offersRoutes(deps), ...trendingRoutes(deps)],
  use: () => [privateProducts],
});
