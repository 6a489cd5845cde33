/**
 * Year-end exports in the operator area (`/operations/payouts`, "Year-end"): the payouts lib's
 * `operatorTaxYearEnd`, as `tax:year-end` of the admin CLI. Admins only (the 1099 file holds
 * taxpayer ids in the clear); each listing and each download is an operator act in the audit log
 * (`tax_year_end_exported`, with counts only). Nothing is kept: the files are made on each call.
 */
import type { Context } from 'koa';
import { ApiError } from '@cw/errors';
import { route, type RouteSpec } from '@cw/http';
import { operatorTaxYearEnd } from '@cw/payouts';
import { spendPortalBudget, type PortalDeps } from '../portal-context';
import { operatorIn, operatorOf } from './operator.routes';
import { E } from './schemas';

const TAGS = ['Operator area'];
const ERRORS = {
  401: E('Not signed in'),
  403: E('forbidden: not an operator; role_not_allowed: a support operator (admins only: the 1099 file holds taxpayer ids)'),
  429: E('Rate limited'),
};
const YEAR = { type: 'string', pattern: '^[0-9]{4}$', description: 'The tax year (payouts paid in it, UTC).' } as const;

/** The year of the path (2000-2100), else a 400 naming it. */
function yearOf(ctx: Context): number {
  const raw = String(ctx.params.year);
  const year = /^\d{4}$/.test(raw) ? Number(raw) : NaN;
  if (!(year >= 2000 && year <= 2100))
    throw new ApiError({
      code: 'invalid_parameter',
      detail: `Invalid parameter 'year': must be a year from 2000 to 2100.`,
      errors: [{ param: 'year', detail: 'must be a year from 2000 to 2100' }],
    });
  return year;
}

export function operatorTaxRoutes(deps: PortalDeps): RouteSpec[] {
  const operator = [spendPortalBudget(deps), operatorOf(deps)];
  return [
    route({
      method: 'GET',
      path: '/operator/tax/year-end/:year',
      operationId: 'operatorTaxYearEnd',
      summary: "A tax year's exports (admin): how many US payees, at or above the 1099-NEC threshold, missing a TIN; the files to download",
      description: 'Each listing is an export in the audit log (tax_year_end_exported).',
      tags: TAGS,
      pathParams: { year: YEAR },
      before: operator,
      responses: {
        200: E('{year, threshold_usd, us_payees, at_or_above_threshold, missing_tin, payouts, files: [{name, content_type, bytes}]}'),
        400: E("invalid_parameter: 'year'"),
        ...ERRORS,
      },
      handler: async (ctx) => {
        const { files, ...summary } = await operatorTaxYearEnd(deps, operatorIn(ctx), { year: yearOf(ctx) });
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { ...summary, files: files.map((f) => ({ name: f.name, content_type: 'text/csv; charset=utf-8', bytes: Buffer.byteLength(f.content) })) };
      },
    }),
    route({
      method: 'GET',
      path: '/operator/tax/year-end/:year/files/:name',
      operationId: 'operatorDownloadTaxYearEndFile',
      summary: 'One year-end file as an attachment (admin): 1099-nec-Y.csv (TINs in the clear) or payouts-by-country-Y.csv',
      tags: TAGS,
      pathParams: { year: YEAR, name: { type: 'string', minLength: 1, maxLength: 100 } },
      before: operator,
      responses: {
        200: { description: 'The CSV', contentType: 'text/csv', schema: { type: 'string' } },
        400: E("invalid_parameter: 'year'"),
        ...ERRORS,
        404: E('No such file for this year'),
      },
      handler: async (ctx) => {
        const year = yearOf(ctx);
        const name = String(ctx.params.name);
        const { files } = await operatorTaxYearEnd(deps, operatorIn(ctx), { year });
        const file = files.find((f) => f.name === name);
        if (!file) throw new ApiError({ code: 'not_found', detail: `The year-end exports of ${year} have no file ${name}.` });
        ctx.type = 'text/csv; charset=utf-8';
        // The names are fixed (1099-nec-2026.csv, payouts-by-country-2026.csv): nothing to quote.
        ctx.set('Content-Disposition', `attachment; filename="${file.name}"`);
        ctx.set('Cache-Control', 'no-store');
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.body = file.content;
      },
    }),
  ];
}
