/** The offers domain's data: vouchers and deals of programs, per market. The models stay here. */
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import { offerSchema, type OfferDoc } from './offer.schema';

export interface OffersModels {
  Offer: Model<OfferDoc>;
}

const { DomainHandle, open } = modelVault<OffersModels>('offers');

export class OffersData extends DomainHandle {}

/** The offers lib's own models (not exported from the lib). */
export const offersModels = (data: OffersData): OffersModels => open(data);

export const offersDomain = defineDomain('offers', { Offer: [offerSchema, 'offers'] }, (m: OffersModels) => new OffersData(m));
