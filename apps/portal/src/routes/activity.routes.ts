/**
 * Conversions, clicks and the live events of an account, for its people: the same use cases as
 * the publisher API's `/conversions/`, `/clicks/` and `/events/...` (the same filters, cursors and
 * answers), a conversion with its history, and the CSV export of exactly what a list's filters
 * select (streamed: any number of rows, memory flat).
 */
import type { Middleware } from 'koa';
import { authorize } from '@cw/auth';
import { eventRoutes, EVENTS_POLICY, latestEventCursor } from '@cw/events-feed';
import { CONVERSION_COLUMNS, CONVERSION_DETAIL_SCHEMA, CONVERSIONS_EXPORT_INPUT, exportConversions, getConversion, LIST_CONVERSIONS } from '@cw/reports';
import { route, sendDelimited, type RouteSpec } from '@cw/http';
import { LIST_CLICKS } from '@cw/links';
import { memberOf, principalIn, spendPortalBudget, type PortalDeps } from '../portal-context';
import { clickRecords, CLICK_COLUMNS, CLICKS_EXPORT_INPUT } from '../services/activity-export.service';
import { E } from './schemas';
import { memberRoutes } from '../surface';

const ACCOUNT = { account: { type: 'string' } };
const ERRORS = { 401: E('Not signed in'), 404: E('Not found (not one of your accounts)'), 429: E('Rate limited') };
const CSV = { description: 'CSV (RFC 4180, a header line, streamed)', contentType: 'text/csv', schema: { type: 'string' } };
const FORMULAS = 'Cells that start with =, +, -, @ (but a plain negative number) are prefixed with an apostrophe so spreadsheets do not run them.';

/** The date in a download's file name. */
const today = () => new Date().toISOString().slice(0, 10);

export function activityRoutes(deps: PortalDeps): RouteSpec[] {
  const member = [spendPortalBudget(deps), memberOf(deps)];
  // The events feed's policy, as the publisher API's routes require it.
  const events: Middleware = async (ctx, next) => {
    authorize(principalIn(ctx), EVENTS_POLICY);
    await next();
  };
  return [
    ...memberRoutes(deps, [LIST_CONVERSIONS]),
    // Before `conversions/:id`, which would take "export" for an id.
    route({
      method: 'GET',
      path: '/accounts/:account/conversions/export',
      operationId: 'exportPortalConversions',
      summary: 'Every conversion of the filter as CSV, newest first (no paging)',
      description: `The filters of GET conversions (without page, cursor, page_size). Columns: ${CONVERSION_COLUMNS.join(', ')}. ${FORMULAS}`,
      tags: ['Activity'],
      pathParams: ACCOUNT,
      query: CONVERSIONS_EXPORT_INPUT,
      before: member,
      responses: { 200: CSV, 400: E('Invalid parameter'), ...ERRORS },
      handler: async (ctx, { query }) => {
        const { cursor, rows } = exportConversions(deps, principalIn(ctx), query);
        sendDelimited(ctx, rows, {
          columns: CONVERSION_COLUMNS,
          filename: `conversions-${today()}.csv`,
          onAbort: () => void cursor.close().catch(() => undefined),
          onError: (e) => deps.logger.error({ err: e.message }, 'conversions export failed'),
        });
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/conversions/:id',
      operationId: 'getPortalConversion',
      summary: 'A conversion with its history (every status change, oldest first)',
      tags: ['Activity'],
      pathParams: { ...ACCOUNT, id: { type: 'string' } },
      before: member,
      responses: {
        200: { description: 'The conversion and its events', schema: CONVERSION_DETAIL_SCHEMA },
        ...ERRORS,
        404: E('No such conversion in this account'),
      },
      handler: async (ctx) => {
        ctx.body = await getConversion(deps, principalIn(ctx), String(ctx.params.id));
      },
    }),
    ...memberRoutes(deps, [LIST_CLICKS]),
    route({
      method: 'GET',
      path: '/accounts/:account/clicks/export',
      operationId: 'exportPortalClicks',
      summary: 'Every click of the filter as CSV, newest first (no paging)',
      description: `The filters of GET clicks (without page, cursor, page_size). Columns: ${CLICK_COLUMNS.join(', ')}. ${FORMULAS}`,
      tags: ['Activity'],
      pathParams: ACCOUNT,
      query: CLICKS_EXPORT_INPUT,
      before: member,
      responses: { 200: CSV, 400: E('Invalid parameter'), ...ERRORS },
      handler: async (ctx, { query }) => {
        const principal = principalIn(ctx);
        // The first page is read before the answer starts, so a refusal is still a plain 4xx.
        const records = await clickRecords(deps, principal, query);
        sendDelimited(ctx, records, {
          columns: CLICK_COLUMNS,
          filename: `clicks-${today()}.csv`,
          onError: (e) => deps.logger.error({ err: e.message }, 'clicks export failed'),
        });
      },
    }),
    route({
      method: 'GET',
      path: '/accounts/:account/events/latest',
      operationId: 'latestPortalEvent',
      summary: "The cursor after the account's newest event: open the stream from it for what happens next",
      tags: ['Activity'],
      pathParams: ACCOUNT,
      before: [...member, events],
      responses: {
        200: { description: 'The cursor', schema: { type: 'object', required: ['cursor'], properties: { cursor: { type: 'string' } } } },
        ...ERRORS,
      },
      handler: async (ctx) => {
        ctx.body = { cursor: await latestEventCursor(deps, principalIn(ctx).publisher._id) };
      },
    }),
    // The account's events feed and its SSE stream (EventSource sends the session cookie).
    ...eventRoutes(deps, {
      auth: [...member, events],
      security: ['PortalSession'],
      accountOf: (ctx) => principalIn(ctx).publisher._id,
      errors: { 400: E('Invalid parameter'), ...ERRORS },
      operationIds: { list: 'listPortalEvents', stream: 'streamPortalEvents' },
    }).map((r) => ({ ...r, path: `/accounts/:account${r.path}`, pathParams: ACCOUNT, tags: ['Activity'] })),
  ];
}
