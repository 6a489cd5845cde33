import { defineApp } from '@cw/runtime';

/** Reporting API: routes are added by the issues that build this surface. */
export const { PREFIX, routes, api, openApiDocument, createApp } = defineApp({
  name: 'reporting-api',
  title: 'Reporting API',
  description: 'Reporting-token API for third-party reporting tools, and the HasOffers-compatible endpoint at /Apiv3/json.',
  prefix: '/api/v1/affiliate-reporting',
  routes: () => [],
});
