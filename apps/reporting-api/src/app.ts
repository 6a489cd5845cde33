import { renderError, type OpenApiExamples } from '@cw/http';
import { defineApp, gettingStarted } from '@cw/runtime';
import { apiv3Docs } from './apiv3/apiv3.docs';
import { apiv3, renderApiv3Error } from './apiv3/apiv3.middleware';
import { salesRoutes } from './routes/sales.routes';
import examples from './openapi.examples.json';
import type { ReportingApiDeps } from './deps';

/** Reporting API: the reporting-token API for third-party reporting tools, and /Apiv3/json. */
export const { PREFIX, routes, api, openApiDocument, createApp } = defineApp<ReportingApiDeps>({
  name: 'reporting-api',
  title: 'Reporting API',
  description: gettingStarted({
    intro:
      "For third-party reporting tools: sales, sub-ID sales, a summary with clicks, conversion rate and EPC, and a CSV export, read with the account's reporting token, which can do nothing else. Tools built for HasOffers (TUNE) call `/Apiv3/json` as they always have.",
    authentication:
      'Send the reporting token (`rpt_…`) as `Authorization: Bearer rpt_…`. `/Apiv3/json` takes it as its `api_key` parameter, as HasOffers tools send it. API keys are refused here (401).',
    firstRequest: 'curl -s "http://127.0.0.1:8080/api/v1/affiliate-reporting/summary/?group_by=subid" -H "Authorization: Bearer $RPT"',
    more: ['**Dates** (`date_from`, `date_to`) are UTC days, inclusive. Sub-IDs are reported as `sub_id` throughout (`subid` is accepted too).'],
  }),
  prefix: '/api/v1/affiliate-reporting',
  examples: examples as OpenApiExamples,
  securitySchemes: { ReportingToken: { type: 'http', scheme: 'bearer', description: "The account's reporting token (rpt_…): read-only, works only here." } },
  routes: (deps) => salesRoutes(deps),
  described: apiv3Docs(),
  // /Apiv3/json: HasOffers' envelope for every answer, errors included; form bodies read by it.
  use: (deps) => [apiv3(deps)],
  renderError: (ctx, e) => void (renderApiv3Error(ctx, e) || renderError(ctx, e)),
});
