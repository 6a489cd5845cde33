import { defineApp } from '@cw/runtime';
import { salesRoutes } from './routes/sales.routes';

/** Reporting API: the reporting-token API for third-party reporting tools. */
export const { PREFIX, routes, api, openApiDocument, createApp } = defineApp({
  name: 'reporting-api',
  title: 'Reporting API',
  description: 'Reporting-token API for third-party reporting tools, and the HasOffers-compatible endpoint at /Apiv3/json.',
  prefix: '/api/v1/affiliate-reporting',
  securitySchemes: { ReportingToken: { type: 'http', scheme: 'bearer', description: 'The account\'s reporting token (rpt_…): read-only, works only here.' } },
  routes: (deps) => salesRoutes(deps),
});
