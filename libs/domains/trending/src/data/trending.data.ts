/** The trending domain's data: opportunity plans (released or not) and their items. The models stay here. */
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import { trendingPlanSchema, type TrendingPlanDoc } from './trending-plan.schema';

export interface TrendingModels {
  TrendingPlan: Model<TrendingPlanDoc>;
}

const { DomainHandle, open } = modelVault<TrendingModels>('trending');

export class TrendingData extends DomainHandle {}

/** The trending lib's own models (not exported from the lib). */
export const trendingModels = (data: TrendingData): TrendingModels => open(data);

export const trendingDomain = defineDomain('trending', { TrendingPlan: [trendingPlanSchema, 'trending_plans'] }, (m: TrendingModels) => new TrendingData(m));
