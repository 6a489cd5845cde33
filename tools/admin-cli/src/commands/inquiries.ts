/** Missing-sale inquiries: operators list open and overdue ones and decide any (admin, audited on the publisher's account). */
import { operatorDecideInquiry, operatorListInquiries, REJECT_REASONS } from '@cw/inquiries';
import { choice, int, str, UsageError, type CliDeps, type CommandSpec } from './shared';

/** The inquiry use cases' deps (the CLI's `notify` is the payouts'; a decision's mail goes through the composition root's listener). */
const quiet = (deps: CliDeps) => ({ config: deps.config, data: deps.data });

export const INQUIRIES_COMMANDS: Record<string, CommandSpec> = {
  'inquiry:list': {
    summary: 'List missing-sale inquiries: open ones by deadline (--overdue: past it, unanswered), or by status, publisher, merchant',
    options: {
      status: { type: 'string', doc: 'open, accepted or rejected' },
      overdue: { type: 'boolean', doc: 'only open inquiries past their respond_by' },
      publisher: { type: 'string', doc: 'account id' },
      merchant: { type: 'string', doc: 'merchant id' },
      limit: { type: 'string', doc: 'at most this many (default 50, at most 500)' },
    },
    run: async (deps, o) =>
      operatorListInquiries(quiet(deps), deps.operator, {
        status: choice(o, 'status', ['open', 'accepted', 'rejected'] as const),
        overdue: o.overdue === true,
        publisher: str(o, 'publisher'),
        merchant: int(o, 'merchant'),
        limit: int(o, 'limit'),
      }),
  },
  'inquiry:decide': {
    summary: 'Decide an open inquiry: accept (the order is credited, channel inquiry) or reject with a reason; audited',
    options: {
      id: { type: 'string', required: true, doc: 'inq_…' },
      accept: { type: 'boolean', doc: 'credit the order to the publisher' },
      reject: { type: 'string', doc: `reject with this reason: ${REJECT_REASONS.join(', ')}` },
    },
    run: async (deps, o) => {
      const reason = choice(o, 'reject', REJECT_REASONS);
      if ((o.accept === true) === (reason !== undefined)) throw new UsageError('give --accept or --reject <reason>, not both');
      return operatorDecideInquiry(quiet(deps), deps.operator, {
        id: str(o, 'id')!,
        decision: o.accept === true ? 'accept' : 'reject',
        ...(reason ? { reason } : {}),
      });
    },
  },
};
