import { defineApp } from '@cw/runtime';

/** Product feeds: routes are added by the issues that build this surface. */
export const { PREFIX, routes, api, openApiDocument, createApp } = defineApp({
  name: 'feed-service',
  title: 'Product feeds',
  description: 'Product feeds in Google Shopping XML, CSV, TSV and JSON.',
  prefix: '/api/v1/feeds',
  routes: () => [],
});
