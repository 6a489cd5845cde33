import { API_KEY_SCHEMES, defineApp, gettingStarted } from '@cw/runtime';
import { feedRoutes, feedUrlRoutes } from './routes/feeds.routes';
import type { OpenApiExamples } from '@cw/http';
import examples from './openapi.examples.json';
import type { FeedServiceDeps } from './deps';

/** Product feeds: signed feed URLs and the feeds (Google Shopping XML, CSV, TSV, JSON). */
export const { PREFIX, routes, api, openApiDocument, createApp } = defineApp<FeedServiceDeps>({
  name: 'feed-service',
  title: 'Product feeds',
  description: gettingStarted({
    intro:
      'Product feeds in Google Shopping XML, CSV, TSV and JSON: a signed URL to paste into a feed reader or a shopping platform, or the feed itself with an API key. Every `link` is your tracked link.',
    authentication:
      'Ask for a feed URL with your API key (`X-API-Key` or Bearer; accounts with product-feed access). The signed URL it answers needs no key for 90 days; any change to it is 403; ask again after `renew_after`.',
    firstRequest: 'curl -s "http://127.0.0.1:8080/api/v1/affiliates/feed/?country=DE&format=csv" -H "X-API-Key: $KEY"',
  }),
  prefix: '/api/v1/feeds',
  examples: examples as OpenApiExamples,
  securitySchemes: API_KEY_SCHEMES,
  routes: (deps) => feedRoutes(deps),
  moreRoutes: (deps) => [{ prefix: '/api/v1/affiliates', routes: feedUrlRoutes(deps) }],
});
