/**
 * Payout runs in the operator area (`/operations/payouts`): the payouts lib's operator use cases, as
 * `payout-run:*` and `fx:import` of the admin CLI (support reads, admin acts; each act audited by
 * the lib with the person's e-mail, the request id and the hashed address). A run is approved by an
 * admin other than its creator; the rails' files are downloaded from here; the bank's answer (a
 * pain.002 status report or a results CSV) is sent as text in the JSON body.
 */
import type { Context } from 'koa';
import { ApiError } from '@cw/errors';
import { route, type RouteSpec } from '@cw/http';
import {
  operatorApprovePayoutRun,
  operatorCreatePayoutRun,
  operatorDecideHold,
  operatorExportPayoutRun,
  operatorImportFx,
  operatorListPayoutRuns,
  operatorPayoutRun,
  operatorSettlePayoutRun,
  payoutView,
  type PayoutRow,
  type RailFile,
} from '@cw/payouts';
import { spendPortalBudget, type PortalDeps } from '../portal-context';
import { operatorIn, operatorOf } from './operator.routes';
import { E } from './schemas';

const TAGS = ['Operator area'];
const ERRORS = {
  401: E('Not signed in'),
  403: E('forbidden: not an operator (or, approving, the run’s creator); role_not_allowed: a support operator on an admin act; csrf_failed'),
  429: E('Rate limited'),
};
const NOT_FOUND = { 404: E('No such run, file or held payout') };
const LIMIT = { type: 'integer', minimum: 1, maximum: 500, default: 50 } as const;
const ID = { type: 'string', minLength: 1, maxLength: 64 } as const;
/** What the portal takes as an uploaded file's text: within the JSON body's 1 MB (a larger body is 413). */
export const MAX_UPLOAD_CHARS = 1_000_000;

const param = (ctx: Context, name: string): string => String(ctx.params[name]);

/** A payout as operators see it: the publisher's view plus whose it is, its rail and its own status (`held` included). */
const operatorPayoutView = (p: PayoutRow) => ({ ...payoutView(p), status: p.status, publisher_id: p.publisher_id, rail: p.rail, run_id: p.run_id });

const contentTypeOf = (f: RailFile) => (f.name.endsWith('.xml') ? 'application/xml; charset=utf-8' : 'text/csv; charset=utf-8');

export function operatorPayoutsRoutes(deps: PortalDeps): RouteSpec[] {
  const operator = [spendPortalBudget(deps), operatorOf(deps)];
  return [
    route({
      method: 'GET',
      path: '/operator/payout-runs',
      operationId: 'operatorListPayoutRuns',
      summary: 'Payout runs, newest first: status, totals per currency and rail, how many payouts are held',
      tags: TAGS,
      query: { type: 'object', additionalProperties: false, properties: { limit: LIMIT } } as const,
      before: operator,
      responses: {
        200: E('{data: [{_id, kind, status, created_by, created_at, approved_by, approved_at, exported_at, settled_at, totals, held}]}'),
        400: E('Invalid parameter'),
        ...ERRORS,
      },
      handler: async (ctx, { query }) => {
        ctx.body = { data: await operatorListPayoutRuns(deps, operatorIn(ctx), { limit: query.limit }) };
      },
    }),
    route({
      method: 'POST',
      path: '/operator/payout-runs',
      operationId: 'operatorCreatePayoutRun',
      summary: 'Create a run of every publisher due now (admin): monthly schedule, at or above the threshold; another admin approves it',
      tags: TAGS,
      before: operator,
      responses: { 201: E('The run'), ...ERRORS },
      handler: async (ctx) => {
        ctx.status = 201;
        ctx.body = await operatorCreatePayoutRun(deps, operatorIn(ctx));
      },
    }),
    route({
      method: 'GET',
      path: '/operator/payout-runs/:id',
      operationId: 'operatorPayoutRun',
      summary: 'A run and its payouts (at most 1,000): publisher, status (held ones with their reasons), amount, rail, method type and last 4',
      tags: TAGS,
      pathParams: { id: ID },
      before: operator,
      responses: { 200: E('{run, payouts: [payout + {publisher_id, rail, run_id}]}'), ...ERRORS, ...NOT_FOUND },
      handler: async (ctx) => {
        const { run, payouts } = await operatorPayoutRun(deps, operatorIn(ctx), { runId: param(ctx, 'id') });
        ctx.body = { run, payouts: payouts.map(operatorPayoutView) };
      },
    }),
    route({
      method: 'POST',
      path: '/operator/payout-runs/:id/approve',
      operationId: 'operatorApprovePayoutRun',
      summary: 'Approve a run (an admin other than its creator): every pending payout booked in the ledger and in transit',
      tags: TAGS,
      pathParams: { id: ID },
      before: operator,
      responses: { 200: E('The run (approved)'), ...ERRORS, ...NOT_FOUND },
      handler: async (ctx) => {
        ctx.body = await operatorApprovePayoutRun(deps, operatorIn(ctx), { runId: param(ctx, 'id') });
      },
    }),
    route({
      method: 'GET',
      path: '/operator/payout-runs/:id/files',
      operationId: 'operatorPayoutRunFiles',
      summary: "The approved run's files (admin): a SEPA credit transfer for EUR bank payouts, PayPal Payouts batch files, a CSV for the rest",
      description: 'The same files every time; each listing is an export in the audit log (payout_run_exported).',
      tags: TAGS,
      pathParams: { id: ID },
      before: operator,
      responses: { 200: E('{data: [{name, rail, content_type, bytes}]}'), ...ERRORS, ...NOT_FOUND, 409: E('invalid_transition: the run is not approved yet') },
      handler: async (ctx) => {
        const files = await operatorExportPayoutRun(deps, operatorIn(ctx), { runId: param(ctx, 'id') });
        ctx.body = { data: files.map((f) => ({ name: f.name, rail: f.rail, content_type: contentTypeOf(f), bytes: Buffer.byteLength(f.content) })) };
      },
    }),
    route({
      method: 'GET',
      path: '/operator/payout-runs/:id/files/:name',
      operationId: 'operatorDownloadPayoutRunFile',
      summary: 'One file of the approved run, as an attachment (admin): application/xml (SEPA) or text/csv',
      tags: TAGS,
      pathParams: { id: ID, name: { type: 'string', minLength: 1, maxLength: 200 } },
      before: operator,
      responses: {
        200: { description: 'The file', contentType: 'application/octet-stream', schema: { type: 'string' } },
        ...ERRORS,
        ...NOT_FOUND,
        409: E('invalid_transition: the run is not approved yet'),
      },
      handler: async (ctx) => {
        const name = param(ctx, 'name');
        const files = await operatorExportPayoutRun(deps, operatorIn(ctx), { runId: param(ctx, 'id') });
        const file = files.find((f) => f.name === name);
        if (!file) throw new ApiError({ code: 'not_found', detail: `Run ${param(ctx, 'id')} has no file ${name}.` });
        ctx.type = contentTypeOf(file);
        // The names are the run's id and the rail's (prun_…, letters, digits, dots): nothing to quote.
        ctx.set('Content-Disposition', `attachment; filename="${file.name}"`);
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.body = file.content;
      },
    }),
    route({
      method: 'POST',
      path: '/operator/payout-runs/:id/settle',
      operationId: 'operatorSettlePayoutRun',
      summary: "Settle an approved run from the bank's answer (admin): paid ones paid, failed ones credited back once",
      description: `\`file\`: the text of a pain.002 status report or a results CSV (payout_id,status,reason_code,reason_message), at most ${MAX_UPLOAD_CHARS.toLocaleString('en')} characters (a body over 1 MB is 413). \`sandbox: true\`: the local platform's bank pays everything exported (refused in production).`,
      tags: TAGS,
      pathParams: { id: ID },
      body: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        maxProperties: 1,
        properties: {
          file: { type: 'string', minLength: 1, maxLength: MAX_UPLOAD_CHARS, description: 'The pain.002 XML or the results CSV, as text.' },
          sandbox: { type: 'boolean', const: true, description: 'Settle with the sandbox bank (not in production).' },
        },
      } as const,
      before: operator,
      responses: {
        200: E('{run, paid, failed, pending, unknown}'),
        400: E('invalid_parameter: the file is not a status report or results CSV of this run; sandbox in production'),
        ...ERRORS,
        ...NOT_FOUND,
        409: E('invalid_transition: the run is not approved yet'),
        413: E('payload_too_large: the body is over 1 MB'),
      },
      handler: async (ctx, { body }) => {
        if (body.sandbox && deps.config.nodeEnv === 'production')
          throw new ApiError({
            code: 'invalid_parameter',
            detail: "Invalid parameter 'sandbox': the sandbox bank exists only on the local platform; upload the bank's status report.",
            errors: [{ param: 'sandbox', detail: 'is not available in production' }],
          });
        const input = body.sandbox ? { sandbox: true } : { file: body.file };
        ctx.body = await operatorSettlePayoutRun(deps, operatorIn(ctx), { runId: param(ctx, 'id'), ...input });
      },
    }),
    ...(['release', 'cancel'] as const).map((action) =>
      route({
        method: 'POST',
        path: `/operator/payouts/:id/${action}`,
        operationId: action === 'release' ? 'operatorReleasePayout' : 'operatorCancelPayout',
        summary:
          action === 'release'
            ? 'Release a held payout (admin): it joins its run (booked at once when the run is approved already)'
            : 'Cancel a held payout (admin): nothing is paid; the balance stays for a later payout',
        tags: TAGS,
        pathParams: { id: ID },
        before: operator,
        responses: { 200: E('The payout'), ...ERRORS, 404: E('No held payout with this id') },
        handler: async (ctx) => {
          const p = await operatorDecideHold(deps, operatorIn(ctx), { payoutId: param(ctx, 'id'), action });
          if (!p) throw new ApiError({ code: 'not_found', detail: `No held payout ${param(ctx, 'id')}.` });
          ctx.body = operatorPayoutView(p);
        },
      }),
    ),
    route({
      method: 'POST',
      path: '/operator/fx',
      operationId: 'operatorImportFx',
      summary: "Import the ECB's reference rates (admin): every day of the file stored; payouts convert at the newest",
      description: `\`xml\`: the ECB's eurofxref XML (daily, 90 days or a history within ${MAX_UPLOAD_CHARS.toLocaleString('en')} characters).`,
      tags: TAGS,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['xml'],
        properties: { xml: { type: 'string', minLength: 1, maxLength: MAX_UPLOAD_CHARS, description: 'The ECB reference-rate XML, as text.' } },
      } as const,
      before: operator,
      responses: {
        200: E('{days, from, to}'),
        400: E('invalid_parameter: not ECB reference rates'),
        ...ERRORS,
        413: E('payload_too_large: the body is over 1 MB'),
      },
      handler: async (ctx, { body }) => {
        ctx.body = await operatorImportFx(deps, operatorIn(ctx), body.xml);
      },
    }),
  ];
}
