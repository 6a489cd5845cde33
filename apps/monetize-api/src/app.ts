import { defineApp } from '@cw/runtime';

/** Instant monetization API: routes are added by the issues that build this surface. */
export const { PREFIX, routes, api, openApiDocument, createApp } = defineApp({
  name: 'monetize-api',
  title: 'Instant monetization API',
  description: 'Provisional tracking links issued at once; the account is claimed later for payout.',
  prefix: '/api/v1/monetize',
  routes: () => [],
});
