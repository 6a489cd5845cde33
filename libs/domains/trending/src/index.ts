export {
  createPlan,
  ELIGIBILITY_FRESH_DAYS,
  releasePlan,
  subscribeTrending,
  TRENDING_COLUMNS,
  TRENDING_INPUT,
  trendingOpportunities,
  trendingRows,
} from './trending.service';
export type { NewPlanItem, TrendingItem, UnavailableReason } from './trending.service';
export { TrendingData, trendingDomain } from './data/trending.data';
export { TRENDING_CHANNELS } from './data/trending-plan.schema';
export type { TrendingPlanDoc } from './data/trending-plan.schema';
export type { TrendingDeps } from './deps';
export { operatorCreatePlan, operatorReleasePlan, operatorSubscribeTrending } from './operator.service';
export type { OperatorTrendingDeps } from './operator.service';
