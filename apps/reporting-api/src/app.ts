import { renderError, type OpenApiExamples } from '@cw/http';
import { defineApp } from '@cw/runtime';
import { apiv3Docs } from './apiv3/apiv3.docs';
import { apiv3, renderApiv3Error } from './apiv3/apiv3.middleware';
import { salesRoutes } from './routes/sales.routes';
import examples from './openapi.examples.json';

/** Reporting API: the reporting-token API for third-party reporting tools, and /Apiv3/json. */
export const { PREFIX, routes, api, openApiDocument, createApp } = defineApp({
  name: 'reporting-api',
  title: 'Reporting API',
  description: 'Reporting-token API for third-party reporting tools, and the HasOffers-compatible endpoint at /Apiv3/json.',
  prefix: '/api/v1/affiliate-reporting',
  examples: examples as OpenApiExamples,
  securitySchemes: { ReportingToken: { type: 'http', scheme: 'bearer', description: 'The account\'s reporting token (rpt_…): read-only, works only here.' } },
  routes: (deps) => salesRoutes(deps),
  described: apiv3Docs(),
  // /Apiv3/json: HasOffers' envelope for every answer, errors included; form bodies read by it.
  use: (deps) => [apiv3(deps)],
  renderError: (ctx, e) => void (renderApiv3Error(ctx, e) || renderError(ctx, e)),
});
