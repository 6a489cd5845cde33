/** The instant-monetization domain's data: applications (provisional accounts, their secret hashes, profiles and claims). The models stay here. */
import type { Model } from 'mongoose';
import { defineDomain } from '@cw/db';
import { monetizeApplicationSchema, type MonetizeApplicationDoc } from './monetize-application.schema';

export interface MonetizeModels {
  MonetizeApplication: Model<MonetizeApplicationDoc>;
}

let modelsOf!: (data: MonetizeData) => MonetizeModels;

export class MonetizeData {
  readonly #m: MonetizeModels;
  static {
    modelsOf = (data) => data.#m;
  }
  constructor(models: MonetizeModels) {
    this.#m = models;
  }
}

/** The monetize lib's own models (not exported from the lib). */
export const monetizeModels = (data: MonetizeData): MonetizeModels => modelsOf(data);

export const monetizeDomain = defineDomain(
  'monetize',
  { MonetizeApplication: [monetizeApplicationSchema, 'monetize_applications'] },
  (m: MonetizeModels) => new MonetizeData(m),
);
