/** The trending domain's data: opportunity plans (released or not) and their items. The models stay here. */
import type { Model } from 'mongoose';
import { defineDomain } from '@cw/db';
import { trendingPlanSchema, type TrendingPlanDoc } from './trending-plan.schema';

export interface TrendingModels {
  TrendingPlan: Model<TrendingPlanDoc>;
}

let modelsOf!: (data: TrendingData) => TrendingModels;

export class TrendingData {
  readonly #m: TrendingModels;
  static {
    modelsOf = (data) => data.#m;
  }
  constructor(models: TrendingModels) {
    this.#m = models;
  }
}

/** The trending lib's own models (not exported from the lib). */
export const trendingModels = (data: TrendingData): TrendingModels => modelsOf(data);

export const trendingDomain = defineDomain('trending', { TrendingPlan: [trendingPlanSchema, 'trending_plans'] }, (m: TrendingModels) => new TrendingData(m));
