/**
 * Operators and inquiries (the admin CLI's `inquiry:list` / `inquiry:decide`, the portal's
 * operations page): support sees open and overdue inquiries (any merchant, any publisher); an
 * admin decides any open one, recorded in the audit log of the publisher's account.
 */
import { recordOperatorAct } from '@cw/audit';
import { ApiError } from '@cw/errors';
import { operatorUseCase } from '@cw/usecase';
import type { InquiryRecord, InquiryStatus, RejectReason } from './data/inquiry.schema';
import { REJECT_REASONS } from './data/inquiry.schema';
import { own, type InquiriesDeps } from './deps';
import { decideInquiry } from './decide';
import { INQUIRY_ID_FORM, inquiryNotFound, inquiryView } from './inquiries.service';

/** The operator's view: the publisher's view, and whose inquiry it is and which merchant decides it. */
const operatorView = (i: InquiryRecord, now: Date) => ({
  ...inquiryView(i),
  publisher_id: i.publisher_id,
  merchant_id: i.merchant_id,
  overdue: i.status === 'open' && i.respond_by.getTime() <= now.getTime(),
});

export const operatorListInquiries = operatorUseCase(
  'support',
  async function operatorListInquiries(
    deps: InquiriesDeps,
    _operator,
    input: { status?: InquiryStatus; overdue?: boolean; publisher?: string; merchant?: number; limit?: number; now?: Date } = {},
  ) {
    const now = input.now ?? new Date();
    const filter: Record<string, unknown> = {};
    if (input.overdue) Object.assign(filter, { status: 'open', respond_by: { $lte: now } });
    else if (input.status) filter.status = input.status;
    if (input.publisher) filter.publisher_id = input.publisher;
    if (input.merchant !== undefined) filter.merchant_id = input.merchant;
    const rows = await own(deps)
      .Inquiry.find(filter, { events: 0 })
      .sort(input.overdue || input.status === 'open' ? { respond_by: 1, _id: 1 } : { created_at: -1, _id: 1 })
      .limit(Math.min(Math.max(input.limit ?? 50, 1), 500))
      .lean<InquiryRecord[]>();
    return rows.map((r) => operatorView(r, now));
  },
);

export const operatorDecideInquiry = operatorUseCase(
  'admin',
  async function operatorDecideInquiry(deps: InquiriesDeps, operator, input: { id: string; decision: 'accept' | 'reject'; reason?: RejectReason; now?: Date }) {
    const now = input.now ?? new Date();
    if (input.decision !== 'accept' && input.decision !== 'reject')
      throw new ApiError({
        code: 'invalid_parameter',
        detail: "Invalid parameter 'decision': accept or reject.",
        errors: [{ param: 'decision', detail: 'accept or reject' }],
      });
    if (input.decision === 'reject' && !REJECT_REASONS.includes(input.reason as RejectReason))
      throw new ApiError({
        code: 'invalid_parameter',
        detail: `Invalid parameter 'reason': one of ${REJECT_REASONS.join(', ')}.`,
        errors: [{ param: 'reason', detail: `one of ${REJECT_REASONS.join(', ')}` }],
      });
    const row = INQUIRY_ID_FORM.test(input.id) ? await own(deps).Inquiry.findById(input.id, { events: 0 }).lean<InquiryRecord>() : null;
    if (!row) throw inquiryNotFound(input.id);
    const decided = await decideInquiry(deps, row, input.decision === 'accept' ? { accept: true } : { accept: false, reason: input.reason! }, 'operator', now);
    await recordOperatorAct(
      deps.data.audit,
      operator,
      'inquiry_decided',
      {
        inquiry_id: decided._id,
        status: decided.status,
        ...(decided.reason ? { reason: decided.reason } : {}),
        ...(decided.conversion_id ? { conversion_id: decided.conversion_id } : {}),
      },
      decided.publisher_id,
    );
    return operatorView(decided, now);
  },
);
