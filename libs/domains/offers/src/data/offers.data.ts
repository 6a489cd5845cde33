/** The offers domain's data: vouchers and deals of programs, per market. The models stay here. */
import type { Model } from 'mongoose';
import { defineDomain } from '@cw/db';
import { offerSchema, type OfferDoc } from './offer.schema';

export interface OffersModels {
  Offer: Model<OfferDoc>;
}

let modelsOf!: (data: OffersData) => OffersModels;

export class OffersData {
  readonly #m: OffersModels;
  static {
    modelsOf = (data) => data.#m;
  }
  constructor(models: OffersModels) {
    this.#m = models;
  }
}

/** The offers lib's own models (not exported from the lib). */
export const offersModels = (data: OffersData): OffersModels => modelsOf(data);

export const offersDomain = defineDomain('offers', { Offer: [offerSchema, 'offers'] }, (m: OffersModels) => new OffersData(m));
