import { API_KEY_SCHEMES, defineApp } from '@cw/runtime';
import { feedRoutes, feedUrlRoutes } from './routes/feeds.routes';
import type { OpenApiExamples } from '@cw/http';
import examples from './openapi.examples.json';

/** Product feeds: signed feed URLs and the feeds (Google Shopping XML, CSV, TSV, JSON). */
export const { PREFIX, routes, api, openApiDocument, createApp } = defineApp({
  name: 'feed-service',
  title: 'Product feeds',
  description:
    'Product feeds in Google Shopping XML, CSV, TSV and JSON: a signed URL to paste into a feed reader, or the feed with an API key. Every link is your tracked link.',
  prefix: '/api/v1/feeds',
  examples: examples as OpenApiExamples,
  securitySchemes: API_KEY_SCHEMES,
  routes: (deps) => feedRoutes(deps),
  moreRoutes: (deps) => [{ prefix: '/api/v1/affiliates', routes: feedUrlRoutes(deps) }],
});
