/**
 * `inquiries:decide`, recurring: missing-sale inquiries unanswered past their program's response
 * window are decided on their evidence (accepted on a verified click, else rejected
 * `outside_window`; @cw/inquiries `decideOverdueInquiries`), a batch at a time until none is due.
 */
import { decideOverdueInquiries, type InquiriesDeps } from '@cw/inquiries';
import type { JobDefinition } from './job';

export const INQUIRIES_DECIDE_JOB = 'inquiries:decide';
/** How often the worker looks for overdue inquiries (their deadlines are days long). */
export const INQUIRIES_DECIDE_EVERY_MS = 10 * 60_000;
const BATCH = 200;

export function inquiryJobs(deps: InquiriesDeps, onDecided: (r: { accepted: number; rejected: number }) => void): JobDefinition[] {
  return [
    {
      name: INQUIRIES_DECIDE_JOB,
      // One pass at a time; a worker that dies holding it frees it after 10 minutes (a decision holds its inquiry for a minute).
      options: { concurrency: 1, lockLifetime: 10 * 60_000 },
      run: async () => {
        for (;;) {
          const r = await decideOverdueInquiries(deps, new Date(), BATCH);
          if (r.accepted || r.rejected) onDecided(r);
          if (r.accepted + r.rejected < BATCH) break;
        }
      },
    },
  ];
}
