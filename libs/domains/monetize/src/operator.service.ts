/**
 * The network's operators reviewing instant-monetization applications (the admin CLI, the portal's
 * operator area): support lists them; admin approves or rejects, recorded in the audit log of the
 * account (never the API key an approval may issue: its prefix only).
 */
import { recordOperatorAct } from '@cw/audit';
import { operatorUseCase } from '@cw/usecase';
import { approveApplication, listApplications, rejectApplication } from './applications.admin';
import type { ApplicationStatus } from './data/monetize-application.schema';
import type { MonetizeDeps } from './deps';

export const operatorListApplications = operatorUseCase(
  'support',
  async function operatorListApplications(deps: MonetizeDeps, _operator, input: { status?: ApplicationStatus; limit?: number }) {
    return listApplications(deps, input);
  },
);

export const operatorReviewApplication = operatorUseCase(
  'admin',
  async function operatorReviewApplication(deps: MonetizeDeps, operator, input: { id: string; decision: 'approve' | 'reject'; note?: string }) {
    if (input.decision === 'approve') {
      const r = await approveApplication(deps, input.id);
      await recordOperatorAct(
        deps.data.audit,
        operator,
        'application_reviewed',
        { application_id: r.application_id, decision: 'approve', ...(r.api_key ? { credential_id: r.api_key.id, prefix: r.api_key.prefix } : {}) },
        r.account_id,
      );
      return r;
    }
    const r = await rejectApplication(deps, input.id, input.note);
    await recordOperatorAct(deps.data.audit, operator, 'application_reviewed', { application_id: r.application_id, decision: 'reject' }, r.account_id);
    return r;
  },
);
