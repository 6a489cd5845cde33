/**
 * The network's operators acting on trending opportunities (the admin CLI): admin creates and
 * releases plans and subscribes accounts; every act is recorded in the audit log.
 */
import type { AuditData } from '@cw/audit';
import { recordOperatorAct } from '@cw/audit';
import { operatorUseCase, type UseCaseDeps } from '@cw/usecase';
import type { TrendingDeps } from './deps';
import { createPlan, releasePlan, subscribeTrending, type NewPlanItem } from './trending.service';

/** The trending lib's deps and the audit log. */
export type OperatorTrendingDeps = Pick<TrendingDeps, 'data'> & UseCaseDeps<{ audit: AuditData }>;

export const operatorCreatePlan = operatorUseCase(
  'admin',
  async function operatorCreatePlan(deps: OperatorTrendingDeps, operator, input: { title: string; country: string; channel: string; items: NewPlanItem[] }) {
    const plan = await createPlan(deps, input);
    await recordOperatorAct(deps.data.audit, operator, 'trending_plan_created', {
      plan_id: plan._id,
      country: plan.country,
      channel: plan.channel,
      items: plan.items.length,
    });
    return plan;
  },
);

/** Releases a plan now; false when there is no such unreleased plan (nothing audited then). */
export const operatorReleasePlan = operatorUseCase('admin', async function operatorReleasePlan(deps: OperatorTrendingDeps, operator, input: { id: string }) {
  const released = await releasePlan(deps, input.id);
  if (released) await recordOperatorAct(deps.data.audit, operator, 'trending_plan_released', { plan_id: input.id });
  return released;
});

/** Subscribes an account to trending opportunities in some channels (none: unsubscribes). */
export const operatorSubscribeTrending = operatorUseCase(
  'admin',
  async function operatorSubscribeTrending(deps: OperatorTrendingDeps, operator, input: { publisher: string; channels: string[] }) {
    const result = await subscribeTrending(deps, input.publisher, input.channels);
    await recordOperatorAct(deps.data.audit, operator, 'publisher_trending_changed', { channels: input.channels }, input.publisher);
    return result;
  },
);
