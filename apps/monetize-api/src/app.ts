import { defineApp, gettingStarted } from '@cw/runtime';
import { monetizeRoutes } from './routes/monetize.routes';
import type { OpenApiExamples } from '@cw/http';
import examples from './openapi.examples.json';
import type { MonetizeApiDeps } from './deps';

/** Instant monetization API: provisional links for creators without an account. */
export const { PREFIX, routes, api, openApiDocument, createApp } = defineApp<MonetizeApiDeps>({
  name: 'monetize-api',
  title: 'Instant monetization API',
  description: gettingStarted({
    intro:
      'Instant monetization for creators without an account: provisional tracking links issued at once, real from the first click; the account is claimed later for payout.',
    authentication:
      'None: each address has its own budget. Opening an application answers an `access_secret`, shown once and stored only as a hash: it reads and edits that application (`?access_secret=`). A wrong or missing secret is 404, revealing nothing.',
    firstRequest:
      'curl -s -X POST http://127.0.0.1:8080/api/v1/monetize/links/ -H "Content-Type: application/json" \\\n  -d \'{"publisher_url": "https://my-blog.example", "placement_description": "gear list in my running blog"}\'',
  }),
  prefix: '/api/v1/monetize',
  examples: examples as OpenApiExamples,
  routes: (deps) => monetizeRoutes(deps),
});
