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
