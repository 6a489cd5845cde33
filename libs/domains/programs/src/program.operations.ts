/**
 * The programs operations, declared once for every surface (the API key's `/programs`, the
 * portal's `/accounts/:account/programs`): docs/decisions/0071-one-declaration-per-operation.md.
 */
import { operation, pageEnvelopeSchema } from '@cw/http';
import { applyToProgram, joinablePrograms, listPrograms } from './programs.service';
import { APPLICATION_SCHEMA, PROGRAM_SCHEMA } from './program.views';

export const LIST_PROGRAMS = operation({
  method: 'GET',
  path: '/programs',
  operationId: 'listPrograms',
  summary: "The caller's programs; with include_available=true also those open for application",
  tags: ['Programs'],
  useCase: listPrograms,
  input: 'query',
  responses: { 200: { description: 'Page envelope of programs', schema: pageEnvelopeSchema(PROGRAM_SCHEMA, { cursor: true }) } },
  wording: { portal: { summary: 'The account’s programs; with include_available=true also those open for application (as GET /api/v1/publisher/programs/)' } },
});

export const JOINABLE_PROGRAMS = operation({
  method: 'GET',
  path: '/programs/joinable',
  operationId: 'listJoinablePrograms',
  summary: 'Active programs open for application that the caller is not assigned to',
  tags: ['Programs'],
  useCase: joinablePrograms,
  input: 'query',
  responses: { 200: { description: 'Page envelope of programs', schema: pageEnvelopeSchema(PROGRAM_SCHEMA, { cursor: true }) } },
  wording: {
    portal: { summary: 'Active programs open for application that the account is not assigned to (as GET /api/v1/publisher/programs/joinable/)' },
  },
});

export const APPLY_TO_PROGRAM = operation({
  method: 'POST',
  path: '/programs/apply',
  operationId: 'applyToProgram',
  summary: 'Apply to a program: 201 when approved at once, 200 when pending review or already decided',
  description: 'Optional Idempotency-Key (max 255). Demo accounts and read-only keys never apply.',
  tags: ['Programs'],
  useCase: applyToProgram,
  input: 'body',
  responses: {
    200: { description: 'Pending review, or the existing assignment', schema: APPLICATION_SCHEMA },
    201: { description: 'Approved', schema: APPLICATION_SCHEMA },
    404: { description: 'Unknown or inactive program' },
  },
  result: (outcome) => ({ status: outcome.approvedNow ? 201 : 200, body: outcome.view }),
  wording: {
    portal: {
      summary: 'Apply to a program (owners, developers): 201 when approved at once, 200 when pending review or already decided',
      description: 'Optional Idempotency-Key (max 255), the same scope as the API’s POST /programs/apply/. Demo accounts never apply.',
    },
  },
});
