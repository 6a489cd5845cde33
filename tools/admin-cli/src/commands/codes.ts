/** Personal coupon codes: operators list the review queue and approve or reject a code (admin, audited on the publisher's account). */
import { CODE_STATUSES, operatorListCodes, operatorReviewCode } from '@cw/codes';
import { choice, int, str, type CliDeps, type CommandSpec } from './shared';

const codesDeps = (deps: CliDeps) => ({ config: deps.config, data: deps.data });

export const CODES_COMMANDS: Record<string, CommandSpec> = {
  'code:list': {
    summary: 'List personal coupon codes, oldest first: the review queue (pending_review) unless --status says otherwise',
    options: {
      status: { type: 'string', doc: `${CODE_STATUSES.join(', ')} (default pending_review)` },
      program: { type: 'string', doc: 'program id' },
      publisher: { type: 'string', doc: 'account id' },
      limit: { type: 'string', doc: 'at most this many (default 100, at most 500)' },
    },
    run: async (deps, o) =>
      operatorListCodes(codesDeps(deps), deps.operator, {
        status: choice(o, 'status', CODE_STATUSES),
        program_id: int(o, 'program'),
        publisher_id: str(o, 'publisher'),
        limit: int(o, 'limit'),
      }),
  },
  'code:approve': {
    summary: 'Approve a code waiting for review: it is active at once (sales by it are credited); audited',
    options: { code: { type: 'string', required: true, doc: 'cod_…' } },
    run: async (deps, o) => operatorReviewCode(codesDeps(deps), deps.operator, { id: str(o, 'code')!, decision: 'approve' }),
  },
  'code:reject': {
    summary: 'Reject a code waiting for review (its code is free again); the reason is kept in the audit log',
    options: {
      code: { type: 'string', required: true, doc: 'cod_…' },
      reason: { type: 'string', required: true, doc: 'why (at most 500 characters)' },
    },
    run: async (deps, o) => operatorReviewCode(codesDeps(deps), deps.operator, { id: str(o, 'code')!, decision: 'reject', reason: str(o, 'reason')! }),
  },
};
