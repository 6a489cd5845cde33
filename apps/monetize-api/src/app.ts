import { defineApp } from '@cw/runtime';
import { monetizeRoutes } from './routes/monetize.routes';
import type { OpenApiExamples } from '@cw/http';
import examples from './openapi.examples.json';

/** Instant monetization API: provisional links for creators without an account. */
export const { PREFIX, routes, api, openApiDocument, createApp } = defineApp({
  name: 'monetize-api',
  title: 'Instant monetization API',
  description:
    'Provisional tracking links issued at once; the account is claimed later for payout. No account and no e-mail needed: an application is read and edited with its access_secret.',
  prefix: '/api/v1/monetize',
  examples: examples as OpenApiExamples,
  routes: (deps) => monetizeRoutes(deps),
});
