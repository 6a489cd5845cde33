/**
 * The network's operators reviewing codes (the admin CLI and the portal's operator area): support
 * lists the codes waiting, admin approves or rejects one; every decision is audited on the
 * publisher's account. A rejected code gives its key up, so it may be asked for again.
 */
import { ApiError } from '@cw/errors';
import { recordOperatorAct, type AuditData } from '@cw/audit';
import { operatorUseCase, type UseCaseDeps } from '@cw/usecase';
import { CODE_STATUSES, type CodeRow, type CodeStatus } from './data/code.schema';
import { own, type CodesDeps } from './deps';

/** The codes lib's deps and the audit log. */
export type OperatorCodesDeps = Pick<CodesDeps, 'data'> & UseCaseDeps<{ audit: AuditData }>;

export const OPERATOR_LIST_CODES_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: CODE_STATUSES, default: 'pending_review' },
    program_id: { type: 'integer', minimum: 1 },
    publisher_id: { type: 'string', minLength: 1, maxLength: 64 },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
  },
} as const;

export const REVIEW_CODE_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'decision'],
  properties: {
    id: { type: 'string', pattern: '^cod_[A-Za-z0-9_-]{1,64}$' },
    decision: { type: 'string', enum: ['approve', 'reject'] },
    /** Why (a rejection's reason), kept in the audit log only: the publisher sees the status. */
    reason: { type: 'string', minLength: 1, maxLength: 500 },
  },
} as const;

/** Codes for the operators, oldest first (the review queue by default). */
export const operatorListCodes = operatorUseCase(
  'support',
  async function operatorListCodes(
    deps: OperatorCodesDeps,
    _operator,
    input: { status?: CodeStatus; program_id?: number; publisher_id?: string; limit?: number } = {},
  ) {
    const rows = await own(deps)
      .Code.find({
        status: input.status ?? 'pending_review',
        ...(input.program_id !== undefined ? { program_id: input.program_id } : {}),
        ...(input.publisher_id !== undefined ? { publisher_id: input.publisher_id } : {}),
      })
      .sort({ created_at: 1, _id: 1 })
      .limit(input.limit ?? 100)
      .lean<CodeRow[]>();
    return rows.map((c) => ({
      id: c._id,
      code: c.code,
      publisher_id: c.publisher_id,
      program_id: c.program_id,
      merchant_id: c.merchant_id,
      status: c.status,
      created_at: c.created_at,
      decided_by: c.decided_by ?? null,
      decided_at: c.decided_at ?? null,
    }));
  },
  OPERATOR_LIST_CODES_INPUT,
);

/** Approves or rejects a code waiting for review (409 `invalid_transition` once decided; 404 for no such code). */
export const operatorReviewCode = operatorUseCase(
  'admin',
  async function operatorReviewCode(
    deps: OperatorCodesDeps,
    operator,
    input: { id: string; decision: 'approve' | 'reject'; reason?: string },
    now: Date = new Date(),
  ) {
    const to: CodeStatus = input.decision === 'approve' ? 'active' : 'rejected';
    const updated = await own(deps)
      .Code.findOneAndUpdate(
        { _id: input.id, status: 'pending_review' },
        {
          $set: {
            status: to,
            decided_by: operator.email,
            decided_at: now,
            updated_at: now,
            // A rejected code frees its key: another publisher (or this one) may ask for it.
            ...(to === 'rejected' ? { key: `~${input.id}` } : {}),
          },
        },
        { returnDocument: 'after' },
      )
      .lean<CodeRow>();
    if (!updated) {
      const exists = await own(deps).Code.exists({ _id: input.id });
      if (!exists) throw new ApiError({ code: 'not_found', detail: `No code ${input.id}.` });
      throw new ApiError({ code: 'invalid_transition', detail: `Code ${input.id} is not waiting for review.` });
    }
    await recordOperatorAct(
      deps.data.audit,
      operator,
      'code_reviewed',
      { code_id: updated._id, code: updated.code, program_id: updated.program_id, decision: input.decision, ...(input.reason ? { reason: input.reason } : {}) },
      updated.publisher_id,
    );
    return { id: updated._id, code: updated.code, program_id: updated.program_id, publisher_id: updated.publisher_id, status: updated.status };
  },
  REVIEW_CODE_INPUT,
);
